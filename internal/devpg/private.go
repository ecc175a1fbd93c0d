package devpg

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const (
	startTimeout = 60 * time.Second
	readyTimeout = 10 * time.Second
	// maxSocketPath is the usable length of sun_path on Linux.
	maxSocketPath = 107
)

// cluster is a private PostgreSQL cluster in dir (PGDATA).
type cluster struct {
	opts Options
	dir  string // absolute PGDATA, <DataDir>/pg
	name string // <DataDir>/pg as given, for progress lines
	bin  string // directory holding initdb and pg_ctl
}

// ensurePrivate initialises, starts or reuses the cluster in DataDir/pg.
func ensurePrivate(ctx context.Context, opts Options) (*Result, error) {
	c, err := newCluster(ctx, opts)
	if err != nil {
		return nil, err
	}
	if !c.initialised() {
		if err := c.init(ctx); err != nil {
			return nil, err
		}
	}
	port, running, err := c.runningPort(ctx)
	if err != nil {
		return nil, err
	}
	stop := noopStop
	if running {
		opts.progressf("reusing private cluster in %s (port %d)", c.name, port)
	} else {
		if err := c.start(ctx); err != nil {
			return nil, err
		}
		port, stop = opts.PrivatePort, c.stop
	}
	return c.finish(ctx, port, stop)
}

func newCluster(ctx context.Context, opts Options) (*cluster, error) {
	if opts.DataDir == "" {
		return nil, errors.New("devpg: no server found and Options.DataDir is empty; cannot create a private cluster")
	}
	dir, err := filepath.Abs(filepath.Join(opts.DataDir, "pg"))
	if err != nil {
		return nil, fmt.Errorf("devpg: resolve data dir: %w", err)
	}
	c := &cluster{opts: opts, dir: dir, name: filepath.Join(opts.DataDir, "pg")}
	c.bin, err = ensureBinaries(ctx, opts, c.version())
	if err != nil {
		return nil, err
	}
	return c, nil
}

// finish waits for the server, creates the database and builds the Result.
func (c *cluster) finish(ctx context.Context, port int, stop func(context.Context) error) (*Result, error) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	admin := pgURL(addr, maintenanceDB)
	err := waitReady(ctx, admin, readyTimeout)
	if err == nil {
		err = ensureDatabase(ctx, admin, c.opts.Database)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("devpg: private cluster %s: %w", c.dir, err), stop(ctx))
	}
	return &Result{URL: pgURL(addr, c.opts.Database), Source: SourcePrivate, Stop: stop}, nil
}

// version is the major version recorded in PG_VERSION, "" if absent.
func (c *cluster) version() string {
	b, err := os.ReadFile(filepath.Join(c.dir, "PG_VERSION"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func (c *cluster) initialised() bool { return c.version() != "" }

func (c *cluster) logFile() string { return filepath.Join(c.dir, "log", "postgres.log") }

// init runs initdb with trust auth and writes the listen configuration.
func (c *cluster) init(ctx context.Context) error {
	if err := os.MkdirAll(filepath.Dir(c.dir), 0o755); err != nil {
		return fmt.Errorf("devpg: create %s: %w", filepath.Dir(c.dir), err)
	}
	if err := c.prepareDir(ctx, c.dir); err != nil {
		return err
	}
	c.opts.progressf("initialising private cluster in %s", c.name)
	err := c.pg(ctx, "initdb", "-D", c.dir, "-U", superuser, "--auth=trust",
		"--encoding=UTF8", "--no-locale")
	if err != nil {
		return fmt.Errorf("devpg: initdb %s: %w", c.dir, err)
	}
	return c.writeConfig()
}

// writeConfig appends the listen settings to postgresql.conf so a manual
// pg_ctl start behaves like ours.
func (c *cluster) writeConfig() error {
	conf := fmt.Sprintf("\n# added by svc devpg\nlisten_addresses = '127.0.0.1'\nport = %d\n"+
		"unix_socket_directories = '%s'\n", c.opts.PrivatePort, confQuote(c.socketDir()))
	f, err := os.OpenFile(filepath.Join(c.dir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("devpg: open postgresql.conf: %w", err)
	}
	if _, err := f.WriteString(conf); err != nil {
		_ = f.Close()
		return fmt.Errorf("devpg: write postgresql.conf: %w", err)
	}
	return f.Close()
}

// socketDir is the data dir itself, or "" (no Unix socket) when the socket
// path would exceed the kernel limit.
func (c *cluster) socketDir() string {
	if len(filepath.Join(c.dir, ".s.PGSQL.65535")) > maxSocketPath {
		return ""
	}
	return c.dir
}

func confQuote(s string) string { return strings.ReplaceAll(s, "'", "''") }

// start runs pg_ctl start and waits for the server to accept connections.
func (c *cluster) start(ctx context.Context) error {
	if err := c.prepareDir(ctx, filepath.Dir(c.logFile())); err != nil {
		return err
	}
	c.opts.progressf("starting private cluster in %s (port %d, log in %s/log)", c.name, c.opts.PrivatePort, c.name)
	err := c.pg(ctx, "pg_ctl", "start", "-D", c.dir, "-l", c.logFile(), "-w",
		"-t", strconv.Itoa(int(startTimeout.Seconds())), "-o", "-p "+strconv.Itoa(c.opts.PrivatePort))
	if err != nil {
		return fmt.Errorf("devpg: pg_ctl start %s: %w\nlog tail: %s", c.dir, err, c.logTail())
	}
	return nil
}

// stop stops the cluster if it is running; calling it twice is harmless.
func (c *cluster) stop(ctx context.Context) error {
	if _, running, err := c.runningPort(ctx); err != nil || !running {
		return err
	}
	c.opts.progressf("stopping private cluster in %s", c.name)
	if err := c.pg(ctx, "pg_ctl", "stop", "-D", c.dir, "-m", "fast", "-w"); err != nil {
		return fmt.Errorf("devpg: pg_ctl stop %s: %w", c.dir, err)
	}
	return nil
}

func (c *cluster) logTail() string {
	b, err := os.ReadFile(c.logFile())
	if err != nil {
		return fmt.Sprintf("(unreadable: %v)", err)
	}
	return tail(string(b), 1500)
}

// runningPort asks pg_ctl status whether the cluster runs and, if so,
// returns the port recorded in postmaster.pid.
func (c *cluster) runningPort(ctx context.Context) (int, bool, error) {
	err := c.pg(ctx, "pg_ctl", "status", "-D", c.dir)
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) && exitErr.ExitCode() == 3 {
		return 0, false, nil // not running
	}
	if err != nil {
		return 0, false, fmt.Errorf("devpg: pg_ctl status %s: %w", c.dir, err)
	}
	port, err := c.pidFilePort()
	return port, err == nil, err
}

// pidFilePort reads the port (line 4) from postmaster.pid.
func (c *cluster) pidFilePort() (int, error) {
	b, err := os.ReadFile(filepath.Join(c.dir, "postmaster.pid"))
	if err != nil {
		return 0, fmt.Errorf("devpg: read postmaster.pid: %w", err)
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) < 4 {
		return 0, fmt.Errorf("devpg: postmaster.pid in %s is incomplete", c.dir)
	}
	port, err := strconv.Atoi(strings.TrimSpace(lines[3]))
	if err != nil {
		return 0, fmt.Errorf("devpg: postmaster.pid port: %w", err)
	}
	return port, nil
}

// pg runs a PostgreSQL tool from c.bin, as the postgres system user when
// the process is root (initdb, pg_ctl and postgres refuse to run as root).
func (c *cluster) pg(ctx context.Context, tool string, args ...string) error {
	return runAsPG(ctx, filepath.Join(c.bin, tool), args...)
}

func runAsPG(ctx context.Context, name string, args ...string) error {
	if os.Geteuid() == 0 {
		args = append([]string{"-u", pgSystemUser, "--", name}, args...)
		name = "runuser"
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = "/" // the postgres user may not be able to enter our cwd
	return run(cmd)
}

// prepareDir creates dir (0700) and, when root, hands it to the postgres
// user and checks that user can reach and write it.
func (c *cluster) prepareDir(ctx context.Context, dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("devpg: create %s: %w", dir, err)
	}
	if os.Geteuid() != 0 {
		return nil
	}
	if err := chownToPG(dir); err != nil {
		return err
	}
	if err := runAsPG(ctx, "test", "-w", dir); err != nil {
		return fmt.Errorf("devpg: the %s system user cannot write %s; make its parent directories "+
			"traversable (chmod o+x) or choose another data dir: %w", pgSystemUser, dir, err)
	}
	return nil
}

func chownToPG(dir string) error {
	u, err := user.Lookup(pgSystemUser)
	if err != nil {
		return fmt.Errorf("devpg: look up %s user: %w", pgSystemUser, err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		return fmt.Errorf("devpg: %s user ids: %w", pgSystemUser, err)
	}
	if err := os.Chown(dir, uid, gid); err != nil {
		return fmt.Errorf("devpg: chown %s: %w", dir, err)
	}
	return nil
}
