// Package testterm drives terminal programs from Go tests under tmux, as a person at a terminal would:
// it starts a program in a detached tmux session of its own, types into it (send-keys) and reads the
// screen (capture-pane), waiting for text by polling the screen until a deadline. When tmux is missing
// it installs it with apt-get as root (internal/debinstall, as internal/testbrowser installs Chromium); elsewhere it skips
// the test saying why.
package testterm

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/debinstall"
)

// DebianPackage is the package Require installs when tmux is missing.
const DebianPackage = "tmux"

// installLock serialises installs of concurrent test processes on one machine.
const installLock = "/tmp/svc-testterm-install.lock"

// pollEvery is how often WaitFor and WaitExit read the pane.
const pollEvery = 50 * time.Millisecond

// Require returns the path of tmux, installing it with apt-get when the test runs as root on a machine
// that has apt-get; otherwise a missing tmux skips the test with the reason. why says what the test
// drives.
func Require(t testing.TB, why string) string {
	t.Helper()
	if p, err := exec.LookPath("tmux"); err == nil {
		return p
	}
	if !debinstall.Possible() {
		t.Skipf("tmux is not on PATH and cannot be installed here (needs root and apt-get): %s; install it with apt-get install %s",
			why, DebianPackage)
	}
	present := func() bool { _, err := exec.LookPath("tmux"); return err == nil }
	if err := debinstall.Install(t.Context(), installLock, DebianPackage, present); err != nil {
		t.Fatalf("%s needs tmux; installing it failed: %v", why, err)
	}
	p, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatalf("%s needs tmux; apt-get installed %s but it is not on PATH", why, DebianPackage)
	}
	return p
}

// Session is one program running in a tmux session on a private tmux server.
type Session struct {
	t      testing.TB
	tmux   string
	socket string
	// status is the file the program's exit status is written to once it ends.
	status string
}

// Start runs argv in a new 120x40 tmux session whose environment is exactly env (plus PATH and TERM
// when env lacks them). The session's server is private to the test and killed when it ends; the pane
// stays after the program exits so that its last screen and exit status can be read.
func Start(t testing.TB, env map[string]string, argv ...string) *Session {
	t.Helper()
	bin := Require(t, "a terminal session of "+filepath.Base(argv[0]))
	dir, err := os.MkdirTemp("", "testterm-") // short: a socket path has at most 108 bytes
	if err != nil {
		t.Fatalf("testterm: temp dir: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g remain-on-exit on\nset -g status off\n"), 0o600); err != nil {
		t.Fatalf("testterm: %v", err)
	}
	s := &Session{t: t, tmux: bin, socket: filepath.Join(dir, "sock"), status: filepath.Join(dir, "status")}
	full := map[string]string{"PATH": os.Getenv("PATH"), "TERM": "screen"}
	for k, v := range env {
		full[k] = v
	}
	keys := make([]string, 0, len(full))
	for k := range full {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// The program runs under sh, which writes its exit status to a file when it ends (tmux's own
	// pane_dead_status is not always set by the time the pane is marked dead).
	record := `"$@"; echo $? > "$STATUS.tmp" && mv "$STATUS.tmp" "$STATUS"`
	cmd := []string{"env", "STATUS=" + s.status, "sh", "-c", record, "sh", "env", "-i"}
	for _, k := range keys {
		cmd = append(cmd, k+"="+full[k])
	}
	cmd = append(cmd, argv...)
	args := append([]string{"-f", conf, "new-session", "-d", "-s", "t", "-x", "120", "-y", "40", "--"}, cmd...)
	if out, err := s.run(args...); err != nil {
		t.Fatalf("testterm: start %v: %v: %s", argv, err, out)
	}
	t.Cleanup(func() { _, _ = s.run("kill-server") })
	return s
}

// run runs a tmux command against the session's server.
func (s *Session) run(args ...string) (string, error) {
	out, err := exec.Command(s.tmux, append([]string{"-S", s.socket}, args...)...).CombinedOutput()
	return string(out), err
}

// Type types text literally, without pressing Enter.
func (s *Session) Type(text string) {
	s.t.Helper()
	if out, err := s.run("send-keys", "-t", "t", "-l", text); err != nil {
		s.t.Fatalf("testterm: type %q: %v: %s", text, err, out)
	}
}

// Enter presses Enter.
func (s *Session) Enter() {
	s.t.Helper()
	if out, err := s.run("send-keys", "-t", "t", "Enter"); err != nil {
		s.t.Fatalf("testterm: press Enter: %v: %s", err, out)
	}
}

// Line types text and presses Enter.
func (s *Session) Line(text string) {
	s.t.Helper()
	s.Type(text)
	s.Enter()
}

// Screen is what the pane shows now with the lines scrolled above it (its history), wrapped lines
// joined and trailing blank lines dropped.
func (s *Session) Screen() string {
	s.t.Helper()
	out, err := s.run("capture-pane", "-p", "-J", "-S", "-", "-t", "t")
	if err != nil {
		s.t.Fatalf("testterm: capture-pane: %v: %s", err, out)
	}
	return strings.TrimRight(out, "\n")
}

// WaitFor polls the screen until it contains text and returns it; at the deadline it fails the test
// showing the screen. tmux drops the spaces that end a line, so text should not end with one.
func (s *Session) WaitFor(text string, timeout time.Duration) string {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		screen := s.Screen()
		if strings.Contains(screen, text) {
			return screen
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("testterm: %q did not appear within %s; the screen:\n%s", text, timeout, screen)
		}
		time.Sleep(pollEvery)
	}
}

// WaitExit polls until the program has exited and returns its exit status; at the deadline it fails
// the test showing the screen.
func (s *Session) WaitExit(timeout time.Duration) int {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if raw, err := os.ReadFile(s.status); err == nil {
			code, err := strconv.Atoi(strings.TrimSpace(string(raw)))
			if err != nil {
				s.t.Fatalf("testterm: exit status %q: %v", raw, err)
			}
			return code
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("testterm: the program did not exit within %s; the screen:\n%s", timeout, s.Screen())
		}
		time.Sleep(pollEvery)
	}
}
