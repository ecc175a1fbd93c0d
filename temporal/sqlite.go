package temporal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.temporal.io/server/common/config"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"google.golang.org/protobuf/types/known/durationpb"
)

// dbFileName is the SQLite file the dev server keeps in its data directory.
const dbFileName = "temporal.db"

// sqliteConfig returns the persistence config for the SQLite file at path.
func sqliteConfig(path string) *config.SQL {
	return &config.SQL{
		PluginName:        sqliteplugin.PluginName,
		DatabaseName:      path,
		ConnectAttributes: map[string]string{"mode": "rwc"},
	}
}

// prepareSQLite makes sure the database file in dataDir exists with the
// Temporal schema and the given namespace, and returns its config.
//
// The schema is created only when the file does not exist yet, and it is
// built in a temporary file renamed into place once complete, so an
// interrupted first start never leaves a half-initialised database behind.
// The namespace (with retention and the platform's search attributes) is
// inserted only when missing, so restarts keep existing data untouched.
func prepareSQLite(dataDir, clusterName, namespace string, retention time.Duration) (*config.SQL, error) {
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return nil, fmt.Errorf("create temporal data dir: %w", err)
	}
	path := filepath.Join(dataDir, dbFileName)
	if err := ensureSchema(path); err != nil {
		return nil, err
	}
	cfg := sqliteConfig(path)
	if err := ensureDBNamespace(cfg, clusterName, namespace, retention); err != nil {
		return nil, err
	}
	return cfg, nil
}

// ensureSchema creates the SQLite file at path with the Temporal schema
// unless it already exists.
func ensureSchema(path string) error {
	_, err := os.Stat(path)
	if err == nil {
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("stat temporal database: %w", err)
	}
	tmp := path + ".init-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	if err := sqliteschema.SetupSchema(sqliteConfig(tmp)); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("set up temporal sqlite schema: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("move temporal database into place: %w", err)
	}
	return nil
}

// ensureDBNamespace inserts namespace into the database unless present.
func ensureDBNamespace(cfg *config.SQL, clusterName, namespace string, retention time.Duration) error {
	ns, err := sqliteschema.NewNamespaceConfig(clusterName, namespace, false, searchAttributes())
	if err != nil {
		return fmt.Errorf("build namespace %q config: %w", namespace, err)
	}
	ns.Detail.Config.Retention = durationpb.New(retention)
	if err := sqliteschema.CreateNamespaces(cfg, ns); err != nil {
		return fmt.Errorf("create namespace %q in sqlite: %w", namespace, err)
	}
	return nil
}
