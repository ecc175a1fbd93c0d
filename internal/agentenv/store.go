package agentenv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/svcerr"
)

// VariableIDPrefix starts environment variables' ids (env_...).
const VariableIDPrefix = "env"

// Variable is an environment variable as the API shows it: its name and times, never its value.
type Variable struct {
	ID        string    `bun:"id"`
	Name      string    `bun:"name"`
	CreatedAt time.Time `bun:"created_at"`
	UpdatedAt time.Time `bun:"updated_at"`
}

// Store keeps environment variables and MCP servers in PostgreSQL, sealing their secrets with a data
// key per account that box seals.
type Store struct {
	db  bun.IDB
	box *secretbox.Box
	// guard checks MCP server URLs (see URLGuard).
	guard URLGuard
}

// NewStore returns a Store on db sealing with box; guard checks MCP servers' URLs.
func NewStore(db bun.IDB, box *secretbox.Box, guard URLGuard) *Store {
	return &Store{db: db, box: box, guard: guard}
}

// errNoBox answers on a server without the master key.
var errNoBox = svcerr.New(svcerr.Unavailable, "agent secrets are not configured on this server (no encryption key)")

// dataKeyAAD binds an account's sealed data key to the account.
func dataKeyAAD(accountID string) []byte { return []byte("svc/agent-data-key:" + accountID) }

// accountBox answers the account's data key as a Box, creating the key on first use. Two first uses at
// once agree: the insert that loses the race reads the winner's key.
func (s *Store) accountBox(ctx context.Context, db bun.IDB, accountID string) (*secretbox.Box, error) {
	if s.box == nil {
		return nil, errNoBox
	}
	var sealed []byte
	err := db.NewRaw("SELECT sealed FROM agent_data_keys WHERE account_id = ?", accountID).Scan(ctx, &sealed)
	if errors.Is(err, sql.ErrNoRows) {
		fresh := make([]byte, secretbox.KeySize)
		if _, err := rand.Read(fresh); err != nil {
			return nil, fmt.Errorf("agent data key: %w", err)
		}
		candidate := s.box.Seal(fresh, dataKeyAAD(accountID))
		clear(fresh)
		err = db.NewRaw(`WITH ins AS (INSERT INTO agent_data_keys (account_id, sealed) VALUES (?0, ?1)
			ON CONFLICT (account_id) DO NOTHING RETURNING sealed)
			SELECT sealed FROM ins UNION ALL SELECT sealed FROM agent_data_keys WHERE account_id = ?0 LIMIT 1`,
			accountID, candidate).Scan(ctx, &sealed)
	}
	if err != nil {
		return nil, fmt.Errorf("agent data key of account %s: %w", accountID, err)
	}
	key, err := s.box.Open(sealed, dataKeyAAD(accountID))
	if err != nil {
		return nil, fmt.Errorf("agent data key of account %s does not open: %w", accountID, err)
	}
	defer clear(key)
	b, err := secretbox.New(key)
	if err != nil {
		return nil, fmt.Errorf("agent data key of account %s: %w", accountID, err)
	}
	return b, nil
}

// varAAD binds a sealed value to its account and name.
func varAAD(accountID, name string) []byte { return []byte("svc/agent-env:" + accountID + ":" + name) }

// Set creates or replaces the account's variable name with value (both validated) and answers it,
// without its value.
func (s *Store) Set(ctx context.Context, accountID, name, value string) (Variable, error) {
	if err := ValidateName(name); err != nil {
		return Variable{}, err
	}
	if err := ValidateValue(name, value); err != nil {
		return Variable{}, err
	}
	var v Variable
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		b, err := s.accountBox(ctx, tx, accountID)
		if err != nil {
			return err
		}
		// The account's row lock makes the count and the insert one step under concurrent sets.
		if _, err := tx.NewRaw("SELECT 1 FROM accounts WHERE id = ? FOR UPDATE", accountID).Exec(ctx); err != nil {
			return fmt.Errorf("lock account: %w", err)
		}
		var n int
		if err := tx.NewRaw("SELECT count(*) FROM agent_env_vars WHERE account_id = ? AND name <> ?", accountID, name).Scan(ctx, &n); err != nil {
			return fmt.Errorf("count variables: %w", err)
		}
		if n >= MaxVariables {
			return svcerr.New(svcerr.InvalidRequest, "this account already keeps %d environment variables, the most it may", MaxVariables).
				WithDetails("limit", MaxVariables)
		}
		sealed := b.Seal([]byte(value), varAAD(accountID, name))
		return tx.NewRaw(`INSERT INTO agent_env_vars (id, account_id, name, value_sealed) VALUES (?, ?, ?, ?)
			ON CONFLICT (account_id, name) DO UPDATE SET value_sealed = EXCLUDED.value_sealed, updated_at = now()
			RETURNING id, name, created_at, updated_at`, ids.New(VariableIDPrefix), accountID, name, sealed).Scan(ctx, &v)
	})
	if err != nil {
		return Variable{}, fmt.Errorf("set variable %s: %w", name, err)
	}
	return v, nil
}

// List answers the account's variables by name, without values.
func (s *Store) List(ctx context.Context, accountID string) ([]Variable, error) {
	var out []Variable
	if err := s.db.NewRaw("SELECT id, name, created_at, updated_at FROM agent_env_vars WHERE account_id = ? ORDER BY name", accountID).
		Scan(ctx, &out); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("list variables: %w", err)
	}
	if out == nil {
		out = []Variable{}
	}
	return out, nil
}

// Delete removes the account's variable name, answering it; an absent one is not_found naming it.
func (s *Store) Delete(ctx context.Context, accountID, name string) (Variable, error) {
	var v Variable
	err := s.db.NewRaw("DELETE FROM agent_env_vars WHERE account_id = ? AND name = ? RETURNING id, name, created_at, updated_at",
		accountID, name).Scan(ctx, &v)
	if errors.Is(err, sql.ErrNoRows) {
		return Variable{}, svcerr.NotFoundf("no environment variable %s", name).WithDetails("key", name)
	}
	if err != nil {
		return Variable{}, fmt.Errorf("delete variable %s: %w", name, err)
	}
	return v, nil
}

// Resolve answers the values of the account's variables named, by name, for a tool at execution time;
// names the account has not set are absent from the map. The values must go no further than the tool's
// own call: never into a log, a workflow payload or a model's context.
func (s *Store) Resolve(ctx context.Context, accountID string, names []string) (map[string]string, error) {
	out := map[string]string{}
	if len(names) == 0 {
		return out, nil
	}
	var rows []struct {
		Name   string `bun:"name"`
		Sealed []byte `bun:"value_sealed"`
	}
	if err := s.db.NewRaw("SELECT name, value_sealed FROM agent_env_vars WHERE account_id = ? AND name IN (?)", accountID, bun.List(names)).
		Scan(ctx, &rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("resolve variables: %w", err)
	}
	if len(rows) == 0 {
		return out, nil
	}
	b, err := s.accountBox(ctx, s.db, accountID)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		plain, err := b.Open(r.Sealed, varAAD(accountID, r.Name))
		if err != nil {
			return nil, fmt.Errorf("variable %s does not open: %w", r.Name, err)
		}
		out[r.Name] = string(plain)
	}
	return out, nil
}
