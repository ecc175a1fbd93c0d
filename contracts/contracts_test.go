package contracts

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildInputs are the files (and the src/ tree) a fresh build needs.
var buildInputs = []string{"package.json", "package-lock.json", "compile.mjs", "extract.mjs", "src"}

// binding is one line of bindings.txt: the Go bindings of one artifact.
type binding struct {
	artifact, pkg, goType, out string
}

// readBindings parses bindings.txt (blank lines and # comments skipped).
func readBindings(t *testing.T) []binding {
	t.Helper()
	data, err := os.ReadFile("bindings.txt")
	if err != nil {
		t.Fatalf("read bindings.txt: %v", err)
	}
	var list []binding
	for n, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 4 {
			t.Fatalf("bindings.txt:%d: want 4 fields (artifact package type output), got %q", n+1, line)
		}
		list = append(list, binding{artifact: f[0], pkg: f[1], goType: f[2], out: f[3]})
	}
	return list
}

// TestBuildMatchesSources rebuilds every contract from the pinned npm packages
// in a temporary copy of this directory and requires the artifacts (exactly
// the committed set) and the Go bindings to equal the committed ones byte for byte.
func TestBuildMatchesSources(t *testing.T) {
	requireNode(t)
	tmp := t.TempDir()
	for _, name := range buildInputs {
		copyTree(t, name, filepath.Join(tmp, name))
	}

	start := time.Now()
	run(t, tmp, "npm", "ci", "--no-audit", "--no-fund")
	t.Logf("npm ci took %s", time.Since(start).Round(time.Millisecond))

	start = time.Now()
	out := filepath.Join(tmp, "out")
	run(t, tmp, "node", "compile.mjs", "--out", out)
	t.Logf("node compile.mjs took %s", time.Since(start).Round(time.Millisecond))
	requireSameNames(t, "build", out)
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatalf("read %s: %v", out, err)
	}
	for _, e := range entries {
		requireSameFile(t, filepath.Join("build", e.Name()), filepath.Join(out, e.Name()))
	}

	start = time.Now()
	for _, b := range readBindings(t) {
		fresh := generateBindings(t, tmp, filepath.Join(out, b.artifact+".json"), b)
		requireSameFile(t, filepath.Join("..", filepath.FromSlash(b.out)), fresh)
	}
	t.Logf("go tool abigen took %s", time.Since(start).Round(time.Millisecond))
}

// requireSameNames fails unless the two directories hold the same file names.
func requireSameNames(t *testing.T, committed, fresh string) {
	t.Helper()
	names := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatalf("read %s: %v", dir, err)
		}
		var list []string
		for _, e := range entries {
			list = append(list, e.Name())
		}
		return list
	}
	if want, got := names(committed), names(fresh); strings.Join(want, ",") != strings.Join(got, ",") {
		t.Fatalf("%s holds %v but a fresh build writes %v; run `make contracts` and commit the result", committed, want, got)
	}
}

// requireNode fails the test (never skips it) when node or npm is missing.
func requireNode(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found in PATH (%v): install Node.js 20+ and npm, e.g. `apt-get install nodejs npm`", tool, err)
		}
	}
}

// generateBindings runs extract.mjs and `go tool abigen` exactly as `make
// contracts` does for b, into dir, and returns the path of the generated file.
func generateBindings(t *testing.T, dir, artifact string, b binding) string {
	t.Helper()
	inputs := filepath.Join(dir, "abigen")
	run(t, dir, "node", "extract.mjs", artifact, inputs)
	out := filepath.Join(dir, b.pkg+"-"+filepath.Base(b.out))
	// abigen has to run inside the module (cwd = this package) to get the pinned tool version.
	run(t, ".", "go", "tool", "abigen", "--v2", "--pkg", b.pkg, "--type", b.goType,
		"--abi", filepath.Join(inputs, b.artifact+".abi"), "--bin", filepath.Join(inputs, b.artifact+".bin"), "--out", out)
	return out
}

// run executes name with args in dir and fails the test with its output on error.
func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "npm_config_update_notifier=false")
	output, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, output)
	}
}

// requireSameFile fails unless the fresh file equals the committed one byte for byte.
func requireSameFile(t *testing.T, committed, fresh string) {
	t.Helper()
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatalf("read committed %s: %v", committed, err)
	}
	got, err := os.ReadFile(fresh)
	if err != nil {
		t.Fatalf("read fresh build %s: %v", fresh, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: a fresh build (%s) differs from it (%d vs %d bytes); run `make contracts` and commit the result",
			committed, fresh, len(got), len(want))
	}
}

// copyTree copies a file or a directory tree from src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s to %s: %v", src, dst, err)
	}
}
