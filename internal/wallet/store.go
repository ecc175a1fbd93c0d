package wallet

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// Store keeps wallets: their rows, sealed keys and policies.
type Store struct {
	db  *bun.DB
	box *secretbox.Box
	// chain is the CAIP-2 id of the chain wallets live on.
	chain string
	// screener screens every send (DefaultScreening unless WithScreening changes it).
	screener *Screener
}

// NewStore returns a Store on db whose keys are sealed under box, for wallets on chain (CAIP-2), that
// screens sends with DefaultScreening.
func NewStore(db *bun.DB, box *secretbox.Box, chain string) *Store {
	return &Store{db: db, box: box, chain: chain, screener: NewScreener(DefaultScreening())}
}

// WithScreening makes the store screen sends with opts, and returns it.
func (s *Store) WithScreening(opts ScreeningOptions) *Store {
	s.screener = NewScreener(opts)
	return s
}

// Chain is the CAIP-2 id of the chain the store's wallets live on.
func (s *Store) Chain() string { return s.chain }

// Create makes wallet id with a fresh key and the default policy; a replay (the same id) answers the
// wallet made before. chain must be the store's ("" for it).
func (s *Store) Create(ctx context.Context, scope tenant.Scope, id, name, chain string) (*schema.Wallet, error) {
	if chain == "" {
		chain = s.chain
	}
	if chain != s.chain {
		return nil, svcerr.Invalid("chain", "this platform's wallets live on %s; chain %q is not served here", s.chain, chain)
	}
	if existing, err := s.Get(ctx, scope, id); err == nil {
		return existing, nil
	}
	addr, sealed, err := NewKey(s.box, id)
	if err != nil {
		return nil, err
	}
	policy, err := json.Marshal(DefaultPolicy())
	if err != nil {
		return nil, fmt.Errorf("encode the default policy: %w", err)
	}
	w := &schema.Wallet{ID: id, AccountID: scope.AccountID, ProjectID: scope.ProjectID, Name: name, Chain: chain,
		Address: addr.Hex(), SealedKey: sealed.Key, SealedDataKey: sealed.DataKey, Policy: policy}
	if _, err := s.db.NewInsert().Model(w).On("CONFLICT (id) DO NOTHING").Exec(ctx); err != nil {
		return nil, fmt.Errorf("record wallet: %w", err)
	}
	return s.Get(ctx, scope, id)
}

// errNotFound answers a wallet the caller's scope does not have.
func errNotFound(id string) error { return svcerr.NotFoundf("wallet %s not found", id) }

// Get reads the scope's wallet id (another scope's is not found).
func (s *Store) Get(ctx context.Context, scope tenant.Scope, id string) (*schema.Wallet, error) {
	return s.get(ctx, s.db, scope, id, "")
}

func (s *Store) get(ctx context.Context, db bun.IDB, scope tenant.Scope, id, lock string) (*schema.Wallet, error) {
	w := new(schema.Wallet)
	q := scope.Where(db.NewSelect().Model(w)).Where("id = ?", id)
	if lock != "" {
		q = q.For(lock)
	}
	err := q.Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("read wallet %s: %w", id, err)
	}
	return w, nil
}

// List answers the scope's wallets, newest first, a page at a time.
func (s *Store) List(ctx context.Context, scope tenant.Scope, p page.Params) ([]schema.Wallet, *string, error) {
	out := []schema.Wallet{}
	q := scope.Where(s.db.NewSelect().Model(&out))
	if p.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	if err := q.OrderExpr("created_at DESC, id DESC").Limit(int64(p.Limit + 1)).Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list wallets: %w", err)
	}
	out, next := page.Next(p, out, func(w schema.Wallet) page.Cursor { return page.Cursor{CreatedAt: w.CreatedAt, ID: w.ID} })
	return out, next, nil
}

// UpdatePolicy applies u to the wallet's policy under the wallet's row lock.
func (s *Store) UpdatePolicy(ctx context.Context, scope tenant.Scope, id string, u client.UpdateWalletPolicyRequest, now time.Time) (*schema.Wallet, error) {
	var w *schema.Wallet
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if w, err = s.get(ctx, tx, scope, id, "UPDATE"); err != nil {
			return err
		}
		p, err := PolicyOf(w)
		if err != nil {
			return err
		}
		if p, err = p.Apply(u, now); err != nil {
			return err
		}
		if w.Policy, err = json.Marshal(p); err != nil {
			return fmt.Errorf("encode the policy of wallet %s: %w", id, err)
		}
		w.UpdatedAt = now.UTC()
		_, err = tx.NewUpdate().Model(w).Column("policy", "updated_at").WherePK().Exec(ctx)
		return err
	})
	return w, err
}

// PolicyOf decodes a wallet's stored policy.
func PolicyOf(w *schema.Wallet) (Policy, error) {
	var p Policy
	if err := json.Unmarshal(w.Policy, &p); err != nil {
		return Policy{}, fmt.Errorf("decode the policy of wallet %s: %w", w.ID, err)
	}
	if p.Recipients.Entries == nil {
		p.Recipients.Entries = []Recipient{}
	}
	return p, nil
}

// Address is the wallet's address.
func Address(w *schema.Wallet) common.Address { return common.HexToAddress(w.Address) }

// ToWire is the wallet as the API shows it (never its key).
func ToWire(w *schema.Wallet) (client.Wallet, error) {
	p, err := PolicyOf(w)
	if err != nil {
		return client.Wallet{}, err
	}
	return client.Wallet{ID: w.ID, Name: w.Name, Address: Address(w).Hex(), Chain: w.Chain, Policy: p.ToWire(),
		ProjectID: w.ProjectID, CreatedAt: w.CreatedAt.UTC()}, nil
}
