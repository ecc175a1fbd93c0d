// Package testnode runs reference JavaScript packages from Go tests: it checks that Node.js and npm are
// installed (failing the test, never skipping it, when they are not), installs npm packages into a
// temporary directory, and runs a node script there.
package testnode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// MinNodeMajor is the oldest Node.js major version Require accepts.
const MinNodeMajor = 20

// InstallTimeout bounds one Install, on top of the deadline of its context.
const InstallTimeout = 5 * time.Minute

// RunTimeout bounds one Run or RunWithInput.
const RunTimeout = 2 * time.Minute

// installHint says what to install when Require fails.
const installHint = "install them (Debian/Ubuntu: apt-get install nodejs npm, or https://nodejs.org)"

// Require fails the test (it never skips it) unless node, major version MinNodeMajor or later, and npm are
// on PATH. why says what the test uses them for, e.g. "this test signs with the reference x402 client";
// the failure message carries it and how to install them.
func Require(t testing.TB, why string) {
	t.Helper()
	for _, bin := range []string{"node", "npm"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Fatalf("%s not found on PATH (%v): %s, so it needs Node.js %d+ and npm: %s", bin, err, why, MinNodeMajor, installHint)
		}
	}
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		t.Fatalf("node --version: %v: %s, so it needs Node.js %d+ and npm: %s", err, why, MinNodeMajor, installHint)
	}
	version := strings.TrimSpace(string(out))
	major, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(version, "v"), ".", 2)[0])
	if err != nil || major < MinNodeMajor {
		t.Fatalf("node %q is too old or unrecognised: %s, so it needs Node.js %d+ and npm: %s", version, why, MinNodeMajor, installHint)
	}
}

// manifest is the package.json Install writes into a directory that has none: private, and ES modules
// for .js scripts (name a CommonJS script .cjs).
const manifest = `{"private":true,"type":"module"}` + "\n"

// exactVersion matches an exact semantic version, such as 2.27.0 or 1.0.0-beta.1.
var exactVersion = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// Install installs packages (npm specs such as "viem@2.57.20" or "stripe") into dir with npm and returns
// how long npm took. It writes a minimal package.json first if dir has none. npm runs with
// --ignore-scripts (only the packages' JavaScript is needed, no install hooks run) and, when every package
// names an exact version, --prefer-offline (npm's cached metadata then cannot be stale; a package without
// one means its latest version, which needs the registry's current metadata). npm is stopped after
// InstallTimeout or when ctx ends; the error then wraps ctx's error (e.g. context.DeadlineExceeded).
// Install returns errors instead of failing a test, so it may run on another goroutine.
func Install(ctx context.Context, dir string, packages ...string) (time.Duration, error) {
	if len(packages) == 0 {
		return 0, errors.New("testnode.Install: no packages")
	}
	path := filepath.Join(dir, "package.json")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
			return 0, err
		}
	} else if err != nil {
		return 0, err
	}
	args := []string{"install", "--no-audit", "--no-fund", "--loglevel=error", "--save-exact", "--ignore-scripts"}
	if allExact(packages) {
		args = append(args, "--prefer-offline")
	}
	args = append(args, packages...)
	ctx, cancel := context.WithTimeout(ctx, InstallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
	started := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(started)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return took, fmt.Errorf("npm %s stopped after %s (is the npm registry reachable?): %w (%v)\n%s",
				strings.Join(args, " "), took.Round(time.Millisecond), cerr, err, out)
		}
		return took, fmt.Errorf("npm %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return took, nil
}

// allExact reports whether every npm spec names an exact version (name@1.2.3, @scope/name@1.2.3).
func allExact(packages []string) bool {
	for _, p := range packages {
		at := strings.LastIndex(p, "@")
		if at <= 0 || !exactVersion.MatchString(p[at+1:]) {
			return false
		}
	}
	return true
}

// CopyFile copies the file src to dst (created or truncated, mode 0644): e.g. a script from testdata into
// the directory Install filled, since ES modules resolve packages from the script's own directory.
func CopyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Run runs `node script` in dir, with the test's environment plus env ("NAME=value"), and returns its
// standard output. The script is stopped after RunTimeout or when the test ends. If node fails, Run fails
// the test with its standard output and error; otherwise a non-empty standard error is logged.
func Run(t testing.TB, dir, script string, env ...string) []byte {
	t.Helper()
	return RunWithInput(t, dir, script, nil, env...)
}

// RunWithInput is Run with stdin as the script's standard input.
func RunWithInput(t testing.TB, dir, script string, stdin []byte, env ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), RunTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\nstdout: %s\nstderr: %s", script, err, stdout, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Logf("node %s stderr:\n%s", script, stderr.String())
	}
	return stdout
}
