package devpg

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// debianPGRoot holds one bin directory per installed major version.
const debianPGRoot = "/usr/lib/postgresql"

// pgSystemUser owns the private cluster when the process runs as root.
const pgSystemUser = "postgres"

var errNoBinaries = errors.New("no PostgreSQL server binaries (initdb, pg_ctl) found")

// ensureBinaries returns the directory holding initdb and pg_ctl, installing
// Debian's postgresql package when allowed. want, if set, is the major
// version an existing cluster was initialised with.
func ensureBinaries(ctx context.Context, opts Options, want string) (string, error) {
	dir, err := findBinaries(want)
	if !errors.Is(err, errNoBinaries) {
		return dir, err
	}
	if !opts.AllowInstall || os.Geteuid() != 0 {
		return "", fmt.Errorf("devpg: %w under %s/<version>/bin or in PATH; "+
			"install them (e.g. `sudo apt-get install -y postgresql`) or set DATABASE_URL", err, debianPGRoot)
	}
	if err := aptInstall(ctx, opts); err != nil {
		return "", err
	}
	return findBinaries(want)
}

// findBinaries picks the bin directory of the highest installed version,
// or of version want when set.
func findBinaries(want string) (string, error) {
	dirs := debianBinDirs()
	if want != "" {
		return pickVersion(dirs, want)
	}
	if len(dirs) > 0 {
		return dirs[0], nil
	}
	return pathBinaries()
}

// debianBinDirs lists /usr/lib/postgresql/<v>/bin holding both tools,
// highest version first.
func debianBinDirs() []string {
	matches, _ := filepath.Glob(filepath.Join(debianPGRoot, "*", "bin"))
	var dirs []string
	for _, d := range matches {
		if hasTools(d) {
			dirs = append(dirs, d)
		}
	}
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	return dirs
}

func versionOf(binDir string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(binDir)), 64)
	return v
}

func hasTools(dir string) bool {
	for _, tool := range []string{"initdb", "pg_ctl"} {
		if fi, err := os.Stat(filepath.Join(dir, tool)); err != nil || fi.IsDir() {
			return false
		}
	}
	return true
}

func pickVersion(dirs []string, want string) (string, error) {
	for _, d := range dirs {
		if filepath.Base(filepath.Dir(d)) == want {
			return d, nil
		}
	}
	if dir, err := pathBinaries(); err == nil {
		return dir, nil // version unknown; pg_ctl reports a mismatch itself
	}
	if len(dirs) == 0 {
		return "", errNoBinaries
	}
	return "", fmt.Errorf("devpg: existing cluster needs PostgreSQL %s, but only %v are installed; "+
		"install postgresql-%s or remove the cluster directory", want, dirs, want)
}

// pathBinaries finds initdb and pg_ctl through PATH (non-Debian systems).
func pathBinaries() (string, error) {
	p, err := exec.LookPath("pg_ctl")
	if err != nil {
		return "", errNoBinaries
	}
	dir := filepath.Dir(p)
	if !hasTools(dir) {
		return "", errNoBinaries
	}
	return dir, nil
}

// aptInstall installs Debian's postgresql package (root only).
func aptInstall(ctx context.Context, opts Options) error {
	opts.progressf("no server binaries found; installing postgresql with apt-get (this can take a minute)")
	for _, args := range [][]string{{"update"}, {"install", "-y", "postgresql"}} {
		cmd := exec.CommandContext(ctx, "apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if err := run(cmd); err != nil {
			return fmt.Errorf("devpg: apt-get %s: %w", strings.Join(args, " "), err)
		}
	}
	return nil
}

// run executes cmd, folding the tail of its output into the error.
func run(cmd *exec.Cmd) error {
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if msg := tail(string(out), 1500); err != nil && msg != "" {
		return fmt.Errorf("%w: %s", err, msg)
	}
	return err
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}
