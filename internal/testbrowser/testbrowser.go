// Package testbrowser loads pages in a headless Chromium from Go tests, cut off from the internet. Like
// internal/testnode it fails a test (never skips it) when the browser is missing; as root on Debian it
// first installs the browser with apt-get, as svcd dev does for PostgreSQL.
package testbrowser

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/svcplatform/svc/internal/debinstall"
)

// DebianPackage is the package Require installs when no browser is found.
const DebianPackage = "chromium-headless-shell"

// candidates are the browser binaries Require looks for on PATH, in order.
var candidates = []string{"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "chrome-headless-shell"}

// installLock serialises installs of concurrent test processes on one machine.
const installLock = "/tmp/svc-testbrowser-install.lock"

// Require returns a headless Chromium's path. When none is on PATH and the test runs as root on a machine
// with apt-get, it installs DebianPackage; otherwise it fails the test saying what to install. why says
// what the test uses the browser for.
func Require(t testing.TB, why string) string {
	t.Helper()
	if bin := find(); bin != "" {
		return bin
	}
	if !debinstall.Possible() {
		t.Fatalf("no headless Chromium on PATH (%s): %s; install one (Debian: apt-get install %s)",
			strings.Join(candidates, ", "), why, DebianPackage)
	}
	if err := debinstall.Install(t.Context(), installLock, DebianPackage, func() bool { return find() != "" }); err != nil {
		t.Fatalf("%s needs a headless Chromium; installing it failed: %v", why, err)
	}
	bin := find()
	if bin == "" {
		t.Fatalf("%s needs a headless Chromium; apt-get installed %s but none is on PATH", why, DebianPackage)
	}
	return bin
}

func find() string {
	for _, name := range candidates {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Offline are the flags that cut the browser off from everything but 127.0.0.1: no host name resolves
// (except 127.0.0.1 and localhost), and every other connection goes through a proxy that is not there.
var Offline = []string{
	"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
	"--proxy-server=http://127.0.0.1:9",
}

// DumpDOM loads url in a fresh headless browser (bin, from Require) with the Offline flags, lets its
// scripts and loads run for up to budget of virtual time, and returns the resulting DOM as HTML.
func DumpDOM(t testing.TB, bin, url string, budget time.Duration) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), budget+time.Minute)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--user-data-dir=" + t.TempDir(), fmt.Sprintf("--virtual-time-budget=%d", budget.Milliseconds()), "--dump-dom"},
		Offline...)
	cmd := exec.CommandContext(ctx, bin, append(args, url)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s --dump-dom %s: %v\n%s", bin, url, err, debinstall.Tail(stderr.String(), 3000))
	}
	return string(out)
}
