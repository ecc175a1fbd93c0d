package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// DevRecordEnv names the variable that overrides where `svcd dev` records itself (DevRecordPath).
const DevRecordEnv = "SVC_DEV_RECORD"

// DevRecord is what a running `svcd dev` writes to DevRecordPath so that admin commands (`svcd accounts`,
// `svcd migrate`) run in any terminal and directory work on its database with its key, instead of
// guessing from their own environment and working directory.
type DevRecord struct {
	// PID is the svcd dev process; a record whose process is gone is stale.
	PID int `json:"pid"`
	// Dir is the directory svcd dev was started in (where `make run` restarts it).
	Dir string `json:"dir"`
	// DataDir is svcd dev's data directory, absolute.
	DataDir string `json:"dataDir"`
	// DatabaseURL is the PostgreSQL URL svcd dev uses.
	DatabaseURL string `json:"databaseUrl"`
	// KeyFile is the master key file, absolute; empty when svcd dev took its key from SVC_ENCRYPTION_KEY.
	KeyFile string `json:"keyFile,omitempty"`
	// APIURL and ChainRPCURL are where the API and the chain answer.
	APIURL      string `json:"apiUrl"`
	ChainRPCURL string `json:"chainRpcUrl,omitempty"`
	// StartedAt is when svcd dev wrote the record.
	StartedAt time.Time `json:"startedAt"`
}

// DevRecordPath is where `svcd dev` records itself: SVC_DEV_RECORD when set, else dev.json beside the
// CLI's config ($XDG_CONFIG_HOME/svc/dev.json or ~/.config/svc/dev.json); "" when neither HOME nor an
// absolute XDG_CONFIG_HOME is set.
func DevRecordPath(getenv func(string) string) string {
	if p := getenv(DevRecordEnv); p != "" {
		return p
	}
	if xdg := getenv("XDG_CONFIG_HOME"); xdg != "" && filepath.IsAbs(xdg) {
		return filepath.Join(xdg, "svc", "dev.json")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".config", "svc", "dev.json")
	}
	return ""
}

// newDevRecord describes this process as the dev system on databaseURL, with cfg's data dir and key.
func newDevRecord(cfg Config, databaseURL string) (DevRecord, error) {
	wd, err := os.Getwd()
	if err != nil {
		return DevRecord{}, fmt.Errorf("dev record: %w", err)
	}
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return DevRecord{}, fmt.Errorf("dev record: %w", err)
	}
	rec := DevRecord{PID: os.Getpid(), Dir: wd, DataDir: dataDir, DatabaseURL: databaseURL,
		APIURL: "http://" + cfg.HTTPAddr, ChainRPCURL: cfg.Chain.RPCURL, StartedAt: time.Now().UTC()}
	if cfg.EncryptionKey == "" {
		rec.KeyFile = devKeyFile(dataDir)
	}
	return rec, nil
}

// devKeyFile is the master key file svcd dev keeps under dataDir.
func devKeyFile(dataDir string) string { return filepath.Join(dataDir, "keys", "master.key") }

// writeDevRecord writes rec to path (mode 0600, directory 0700: the URL may hold a password), atomically.
func writeDevRecord(path string, rec DevRecord) error {
	if path == "" {
		return errors.New("dev record: no place to write it (set HOME, XDG_CONFIG_HOME or " + DevRecordEnv + ")")
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("dev record: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("dev record: %w", err)
	}
	// A fresh temporary file (O_EXCL, mode 0600), never one that exists already with looser permissions
	// or as a symbolic link, renamed over the record once written.
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("dev record: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("dev record: %w", err)
	}
	return nil
}

// removeDevRecord deletes the record at path if it still names this process (a later svcd dev may
// have replaced it).
func removeDevRecord(path string) {
	if rec, err := readDevRecord(path); err == nil && rec.PID == os.Getpid() {
		_ = os.Remove(path)
	}
}

func readDevRecord(path string) (DevRecord, error) {
	var rec DevRecord
	data, err := os.ReadFile(path)
	if err != nil {
		return rec, err
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return rec, fmt.Errorf("dev record %s: %w", path, err)
	}
	return rec, nil
}

// errNoDevSystem is the message of an admin command that found neither DATABASE_URL nor a running
// svcd dev: it says what to do.
func errNoDevSystem(path string) error {
	where := "svcd dev records itself in " + path
	if path == "" {
		where = "no HOME or XDG_CONFIG_HOME to find svcd dev's record in"
	}
	return fmt.Errorf("no running svc dev system found (%s).\n"+
		"  Start one with `make run` (or `./bin/svcd dev`) in your svc clone and run this command again, or\n"+
		"  set DATABASE_URL (and SVC_ENCRYPTION_KEY) to the values your API uses. Nothing was created", where)
}

// runningDevRecord reads the record at path and checks that its process still runs.
func runningDevRecord(path string) (DevRecord, error) {
	if path == "" {
		return DevRecord{}, errNoDevSystem(path)
	}
	rec, err := readDevRecord(path)
	if errors.Is(err, os.ErrNotExist) {
		return DevRecord{}, errNoDevSystem(path)
	}
	if err != nil {
		return DevRecord{}, err
	}
	if !processAlive(rec.PID) || startedAfter(rec.PID, rec.StartedAt) {
		return DevRecord{}, fmt.Errorf("the svc dev system recorded in %s (pid %d, started in %s) is no longer running.\n"+
			"  Start it again with `make run` in %s and run this command again, or set DATABASE_URL (and "+
			"SVC_ENCRYPTION_KEY) to the values your API uses. Nothing was created", path, rec.PID, rec.Dir, rec.Dir)
	}
	return rec, nil
}

// startedAfter reports whether the process pid started after at (plus a little slack for clock
// rounding): then it is not the svcd dev that wrote a record at that time, but a later process given the
// same pid after that svcd dev died without removing its record (kill -9, say). It reads /proc (Linux);
// elsewhere, or for a record without a time, it reports false.
func startedAfter(pid int, at time.Time) bool {
	if at.IsZero() {
		return false
	}
	started, ok := processStart(pid)
	return ok && started.After(at.Add(2*time.Second))
}

// processStart is when process pid started, from /proc/<pid>/stat (its 22nd field, in clock ticks since
// boot) and the boot time in /proc/stat. Linux reports clock ticks at 100 a second to user space.
func processStart(pid int) (time.Time, bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return time.Time{}, false
	}
	// The command name (field 2) may hold spaces; the fields after it follow its closing parenthesis.
	end := bytes.LastIndexByte(stat, ')')
	if end < 0 {
		return time.Time{}, false
	}
	fields := strings.Fields(string(stat[end+1:]))
	if len(fields) < 20 { // field 22 of the line is the 20th after the name
		return time.Time{}, false
	}
	ticks, err := strconv.ParseInt(fields[19], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	boot, ok := bootTime()
	if !ok {
		return time.Time{}, false
	}
	return boot.Add(time.Duration(ticks) * time.Second / 100), true
}

// bootTime is when the machine booted, from the btime line of /proc/stat.
func bootTime() (time.Time, bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "btime "); ok {
			secs, err := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			return time.Unix(secs, 0), err == nil
		}
	}
	return time.Time{}, false
}

// processAlive reports whether a process with pid exists (signal 0 probes without signalling).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// RunningDevChainRPC is the JSON-RPC URL of the dev chain of the running svcd dev recorded at
// DevRecordPath(getenv), or "" when none runs (svcd dev faucet then uses its default).
func RunningDevChainRPC(getenv func(string) string) string {
	rec, err := runningDevRecord(DevRecordPath(getenv))
	if err != nil {
		return ""
	}
	return rec.ChainRPCURL
}
