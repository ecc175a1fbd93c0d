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

// TestBuildMatchesSources rebuilds DevUSDC from the pinned npm packages in a
// temporary copy of this directory and requires the artifact and the Go
// bindings to equal the committed ones byte for byte.
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
	requireSameFile(t, filepath.Join("build", "DevUSDC.json"), filepath.Join(out, "DevUSDC.json"))

	start = time.Now()
	bindings := generateBindings(t, tmp, filepath.Join(out, "DevUSDC.json"))
	t.Logf("go tool abigen took %s", time.Since(start).Round(time.Millisecond))
	requireSameFile(t, filepath.Join("..", "internal", "evm", "usdc", "usdc.go"), bindings)
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
// contracts` does, into dir, and returns the path of the generated file.
func generateBindings(t *testing.T, dir, artifact string) string {
	t.Helper()
	inputs := filepath.Join(dir, "abigen")
	run(t, dir, "node", "extract.mjs", artifact, inputs)
	out := filepath.Join(dir, "usdc.go")
	// abigen has to run inside the module (cwd = this package) to get the pinned tool version.
	run(t, ".", "go", "tool", "abigen", "--v2", "--pkg", "usdc", "--type", "USDC",
		"--abi", filepath.Join(inputs, "DevUSDC.abi"), "--bin", filepath.Join(inputs, "DevUSDC.bin"), "--out", out)
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
