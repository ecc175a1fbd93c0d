// Package debinstall installs a Debian package that a test needs (a headless Chromium, tmux) when the
// test runs as root on a machine with apt-get: the project's own files install what its tests use, so a
// new machine needs no manual step. Concurrent test binaries install once, under a machine-wide lock.
package debinstall

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Timeout bounds one installation (apt-get update and install included).
const Timeout = 10 * time.Minute

// Possible reports whether Install can work here: apt-get is on PATH and the process runs as root.
func Possible() bool {
	_, err := exec.LookPath("apt-get")
	return err == nil && os.Geteuid() == 0
}

// Install runs apt-get install pkg (and, when that fails, apt-get update and the install again) unless
// present, asked under the lock, says it is there already. lock is the lock file's path, one per
// package, so parallel test binaries wait for the first one's install.
func Install(ctx context.Context, lock, pkg string, present func() bool) error {
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("install lock: %w", err)
	}
	defer f.Close() // releases the lock
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("install lock: %w", err)
	}
	if present() {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	args := []string{"-o", "DPkg::Lock::Timeout=300", "install", "-y", "--no-install-recommends", pkg}
	if aptGet(ctx, args...) == nil {
		return nil
	}
	if err := aptGet(ctx, "update"); err != nil {
		return err
	}
	return aptGet(ctx, args...)
}

// aptGet runs apt-get non-interactively; its error carries the end of apt-get's output.
func aptGet(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, "apt-get", args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("apt-get %s: %w: %s", strings.Join(args, " "), err, Tail(string(out), 1500))
	}
	return nil
}

// Tail is the last n bytes of s, trimmed, marked with … when cut.
func Tail(s string, n int) string {
	if s = strings.TrimSpace(s); len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
