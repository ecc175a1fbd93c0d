package testdb

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/schema"
)

// The pool lives in the database itself, in svc_testdb.schemas: one row per pooled schema, naming the
// migrations it was made by, the fingerprint of its structure when fresh, and its owner: the process
// using it, or NULL while it is idle. Every test process holds a session advisory lock on its owner key
// for as long as it lives; a schema whose owner's lock can be taken belongs to a process that died
// (killed mid-test, say) and is dropped. A schema idle for longer than idleLimit is dropped too, so
// schemas of old migrations do not pile up.

// poolDDLLock is the pg_advisory_xact_lock key serialising the creation of the pool table ("svc-tdb").
const poolDDLLock = 0x7376632d746462

// idleLimit is how long a schema may sit idle in the pool before a starting process drops it.
const idleLimit = "1 hour"

// lockTimeout bounds how long cleaning or dropping a schema waits for a lock held by something the test
// left behind.
const lockTimeout = "10s"

// pool hands out schemas to the tests of this process.
type pool struct {
	admin *bun.DB
	// lock is the connection holding the owner lock, kept for the life of the process.
	lock       bun.Conn
	owner      int64
	migrations string
}

// pooled is one schema a test holds.
type pooled struct {
	name string
	// fingerprint is the schema's structure when freshly migrated; "" until the schema is migrated.
	fingerprint string
}

// sharedPool opens the pool of this process once.
var sharedPool = sync.OnceValues(func() (*pool, error) {
	hash, err := migrationsHash()
	if err != nil {
		return nil, err
	}
	return openPool(context.Background(), hash)
})

// openPool connects, creates the pool table if needed, takes this process's owner lock and drops the
// schemas of dead processes and those idle too long. It hands out schemas of the migrations hash names.
func openPool(ctx context.Context, hash string) (*pool, error) {
	admin, err := pg.Open(ctx, URL(), pg.Options{MaxOpenConns: 4})
	if err != nil {
		return nil, err
	}
	p := &pool{admin: admin, owner: randomKey(), migrations: hash}
	if err := p.prepare(ctx); err != nil {
		_ = admin.Close()
		return nil, err
	}
	if err := p.sweep(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// prepare creates the pool table and takes the owner lock.
func (p *pool) prepare(ctx context.Context) error {
	err := p.admin.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, q := range []string{
			fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", poolDDLLock),
			"CREATE SCHEMA IF NOT EXISTS svc_testdb",
			`CREATE TABLE IF NOT EXISTS svc_testdb.schemas (name text PRIMARY KEY, owner bigint, migrations text NOT NULL,
				fingerprint text NOT NULL DEFAULT '', released_at timestamptz NOT NULL DEFAULT now())`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("create the test schema pool: %w", err)
	}
	if p.lock, err = p.admin.Conn(ctx); err != nil {
		return fmt.Errorf("connect for the owner lock: %w", err)
	}
	if _, err := p.lock.ExecContext(ctx, "SELECT pg_advisory_lock(?)", p.owner); err != nil {
		return fmt.Errorf("take the owner lock: %w", err)
	}
	return nil
}

// acquire takes an idle schema of the current migrations, or makes a new one (not yet migrated).
func (p *pool) acquire(ctx context.Context) (pooled, error) {
	var s pooled
	err := p.admin.QueryRowContext(ctx, `UPDATE svc_testdb.schemas SET owner = ? WHERE name = (
		SELECT name FROM svc_testdb.schemas WHERE owner IS NULL AND migrations = ? AND fingerprint <> ''
			AND to_regnamespace(name) IS NOT NULL
		ORDER BY released_at DESC LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING name, fingerprint`,
		p.owner, p.migrations).Scan(&s.name, &s.fingerprint)
	if err == nil {
		return s, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return pooled{}, fmt.Errorf("take an idle schema: %w", err)
	}
	s.name = "tp_" + randomHex(8)
	err = p.admin.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO svc_testdb.schemas (name, owner, migrations) VALUES (?, ?, ?)",
			s.name, p.owner, p.migrations); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "CREATE SCHEMA "+s.name)
		return err
	})
	if err != nil {
		return pooled{}, fmt.Errorf("create schema %s: %w", s.name, err)
	}
	return s, nil
}

// recordFingerprint stores the structure of a freshly migrated schema, which makes it poolable.
func (p *pool) recordFingerprint(ctx context.Context, s *pooled) error {
	return p.admin.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		fp, err := fingerprint(ctx, tx, s.name)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE svc_testdb.schemas SET fingerprint = ? WHERE name = ?", fp, s.name); err != nil {
			return fmt.Errorf("record fingerprint: %w", err)
		}
		s.fingerprint = fp
		return nil
	})
}

// release empties the schema and gives it back to the pool, or drops it when its structure is no longer
// the one it was migrated to (or it cannot be emptied). A schema that cannot even be dropped stays owned
// by this process, for a process started after this one ends to drop.
func (p *pool) release(ctx context.Context, s pooled) {
	if s.fingerprint != "" && p.clean(ctx, s) == nil {
		return
	}
	_ = p.drop(ctx, s.name, "owner = ?", p.owner)
}

// errChanged says a test changed the structure of its schema.
var errChanged = errors.New("schema structure changed")

// clean checks that the schema still has the structure it was migrated to, deletes every row but its
// migration records, restarts its sequences and marks it idle, in one transaction. It locks the tables
// first, so that a statement still running for something that used the schema (a killed process's last
// insert) finishes before the rows go.
func (p *pool) clean(ctx context.Context, s pooled) error {
	return p.admin.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SET LOCAL lock_timeout = '"+lockTimeout+"'"); err != nil {
			return err
		}
		fp, err := fingerprint(ctx, tx, s.name)
		if err != nil {
			return err
		}
		if fp != s.fingerprint {
			return errChanged
		}
		if _, err := tx.ExecContext(ctx, cleanSQL(s.name)); err != nil {
			return fmt.Errorf("empty schema %s: %w", s.name, err)
		}
		_, err = tx.ExecContext(ctx, "UPDATE svc_testdb.schemas SET owner = NULL, released_at = now() WHERE name = ?", s.name)
		return err
	})
}

// cleanSQL empties schema name (one of ours, so safe to quote plainly): rows are deleted rather than
// truncated, which is much faster on tables this small; foreign keys are not checked on the way (as
// every table is emptied) when the role may switch them off, else the tables are truncated together.
func cleanSQL(name string) string {
	return `DO $clean$
DECLARE
	tables text;
	t record;
BEGIN
	SELECT string_agg(format('%I.%I', schemaname, tablename), ', ') INTO tables
		FROM pg_tables WHERE schemaname = '` + name + `' AND tablename <> 'schema_migrations';
	IF tables IS NOT NULL THEN
		EXECUTE 'LOCK TABLE ' || tables || ' IN ACCESS EXCLUSIVE MODE';
		IF current_setting('is_superuser') = 'on' THEN
			SET LOCAL session_replication_role = replica;
			FOR t IN SELECT schemaname, tablename FROM pg_tables
				WHERE schemaname = '` + name + `' AND tablename <> 'schema_migrations' LOOP
				EXECUTE format('DELETE FROM %I.%I', t.schemaname, t.tablename);
			END LOOP;
			SET LOCAL session_replication_role = DEFAULT;
		ELSE
			EXECUTE 'TRUNCATE ' || tables;
		END IF;
	END IF;
	PERFORM setval(c.oid, s.seqstart, false) FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid
		WHERE c.relnamespace = '` + name + `'::regnamespace;
END
$clean$`
}

// drop drops schema name and forgets it, if its row still matches cond (re-checked under the row's lock,
// skipped when another process holds it).
func (p *pool) drop(ctx context.Context, name, cond string, args ...any) error {
	return p.admin.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SET LOCAL lock_timeout = '"+lockTimeout+"'"); err != nil {
			return err
		}
		var locked []string
		if err := tx.NewRaw("SELECT name FROM svc_testdb.schemas WHERE name = ? AND "+cond+" FOR UPDATE SKIP LOCKED",
			append([]any{name}, args...)...).Scan(ctx, &locked); err != nil || len(locked) == 0 {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DROP SCHEMA IF EXISTS "+name+" CASCADE"); err != nil {
			return fmt.Errorf("drop schema %s: %w", name, err)
		}
		_, err := tx.ExecContext(ctx, "DELETE FROM svc_testdb.schemas WHERE name = ?", name)
		return err
	})
}

// sweep drops the schemas of processes that died and those idle longer than idleLimit.
func (p *pool) sweep(ctx context.Context) error {
	var owners []int64
	if err := p.admin.NewRaw("SELECT DISTINCT owner FROM svc_testdb.schemas WHERE owner IS NOT NULL AND owner <> ?",
		p.owner).Scan(ctx, &owners); err != nil {
		return fmt.Errorf("list schema owners: %w", err)
	}
	for _, owner := range owners {
		var dead bool
		if err := p.lock.QueryRowContext(ctx, "SELECT pg_try_advisory_lock(?)", owner).Scan(&dead); err != nil {
			return fmt.Errorf("probe owner %d: %w", owner, err)
		}
		if !dead {
			continue
		}
		err := p.dropAll(ctx, "owner = ?", owner)
		if _, uerr := p.lock.ExecContext(ctx, "SELECT pg_advisory_unlock(?)", owner); uerr != nil && err == nil {
			err = uerr
		}
		if err != nil {
			return err
		}
	}
	return p.dropAll(ctx, "owner IS NULL AND released_at < now() - interval '"+idleLimit+"'")
}

// dropAll drops every schema whose row matches cond.
func (p *pool) dropAll(ctx context.Context, cond string, args ...any) error {
	var names []string
	if err := p.admin.NewRaw("SELECT name FROM svc_testdb.schemas WHERE "+cond, args...).Scan(ctx, &names); err != nil {
		return fmt.Errorf("list schemas to drop: %w", err)
	}
	for _, name := range names {
		if err := p.drop(ctx, name, cond, args...); err != nil {
			return err
		}
	}
	return nil
}

// migrationsHash identifies the embedded migrations: a pooled schema is only reused by tests built with
// the same ones.
func migrationsHash() (string, error) {
	migrations, err := schema.Migrations()
	if err != nil {
		return "", fmt.Errorf("read migrations: %w", err)
	}
	h := sha256.New()
	for _, m := range migrations {
		fmt.Fprintf(h, "%s\x00%s\x00", m.Version, m.SQL)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// randomKey is a random positive advisory-lock key.
func randomKey() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return int64(binary.BigEndian.Uint64(b[:]) >> 1)
}

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
