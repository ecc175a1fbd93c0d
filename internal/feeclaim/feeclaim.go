// Package feeclaim keeps managed-wallet fee claims (issue 20, POST /token-launches/{tokenAddress}/fees/claim):
// the caller's managed wallet, a beneficiary of the token's pool, sends FeesManager.collectFees(poolId)
// as an ordinary wallet transaction (its policy applies), its gas sponsored by the platform as token
// launches' is; workflow feeclaim/<id> drives the send and records the Release event's amounts.
package feeclaim

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/feeread"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/sponsor"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
)

// Service records claims and starts their workflows.
type Service struct {
	DB      *bun.DB
	Wallets *wallet.Store
	Chain   *wallet.Chain
	Prices  wallet.Prices
	Fees    *feeread.Reader
	Engine  wallet.Engine
}

// Request is a claim as the route asks for it.
type Request struct {
	Scope tenant.Scope
	KeyID string
	ID    string
	Token common.Address
	Body  client.FeeClaimRequest
}

// Claim records claim r.ID (a replay answers the claim recorded) and its wallet transaction, and starts
// its workflow feeclaim/<id>. Before anything is recorded it refuses with 403 a wallet that holds no
// shares of the token's pool and has nothing pending, with 409 a collectFees the chain refuses from the
// wallet (eth_call), with 429 a wallet over its sponsored transactions, and with the wallet policy's
// answer a send the policy refuses (a paused wallet). A claim whose send waits for an approval carries
// the approval's id.
func (s *Service) Claim(ctx context.Context, r Request, now time.Time) (*schema.FeeClaim, error) {
	c, err := s.claim(ctx, r, now)
	if err != nil {
		return c, err
	}
	return c, withApproval(ctx, s.DB, c)
}

// claim is Claim without the approval's id.
func (s *Service) claim(ctx context.Context, r Request, now time.Time) (*schema.FeeClaim, error) {
	if c, err := load(ctx, s.DB, r.ID); err == nil {
		return c, s.send(ctx, r, c, now)
	}
	if s.Wallets == nil || s.Engine == nil || s.Fees == nil {
		return nil, svcerr.New(svcerr.Unavailable, "this server has no managed wallets, fee reader or workflow engine")
	}
	w, err := s.Wallets.Pick(ctx, r.Scope, r.Body.WalletID)
	if err != nil {
		return nil, err
	}
	plan, err := s.Fees.PlanClaim(ctx, r.Token, wallet.Address(w))
	if err != nil {
		return nil, err
	}
	c := &schema.FeeClaim{ID: r.ID, AccountID: r.Scope.AccountID, ProjectID: r.Scope.ProjectID, KeyID: opt(r.KeyID), WalletID: w.ID,
		WalletAddress: wallet.Address(w).Hex(), Chain: w.Chain, TokenAddress: r.Token.Hex(), PoolID: plan.PoolID.Hex(),
		Status: schema.FeeClaimClaiming, TransactionID: TransactionID(r.ID)}
	if err := s.record(ctx, c, now); err != nil {
		return nil, err
	}
	return c, s.send(ctx, r, c, now)
}

// send records the claim's wallet transaction (a replay finds it) and starts the claim's workflow. A
// refused send takes the claim back: it never happened.
func (s *Service) send(ctx context.Context, r Request, c *schema.FeeClaim, now time.Time) error {
	req := client.CreateTransactionRequest{To: s.Fees.Manager().Hex(), Amount: "0", Asset: client.AssetNative,
		Data: "0x" + common.Bytes2Hex(CallData(c))}
	_, err := s.Wallets.CreateTransaction(ctx, s.Chain, s.Prices, wallet.NewTransaction{Scope: r.Scope, KeyID: r.KeyID, WalletID: c.WalletID,
		ID: c.TransactionID, Req: req}, now)
	if err != nil {
		if _, ok := svcerr.As(err); ok {
			if derr := s.forget(ctx, c); derr != nil {
				return errors.Join(err, derr)
			}
		}
		return err
	}
	return Start(ctx, s.Engine, s.DB, c)
}

// record inserts the claim and reserves its gas sponsorship (429 over the wallet's daily sponsorships).
func (s *Service) record(ctx context.Context, c *schema.FeeClaim, now time.Time) error {
	return s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(c).Returning("created_at, updated_at").Exec(ctx); err != nil {
			return fmt.Errorf("record fee claim %s: %w", c.ID, err)
		}
		return sponsor.Reserve(ctx, tx, sponsor.Request{TransactionID: c.TransactionID, WalletID: c.WalletID, AccountID: c.AccountID,
			To: common.HexToAddress(c.WalletAddress), Purpose: "claim"}, now)
	})
}

// forget deletes a claim whose send was refused, with its sponsorship.
func (s *Service) forget(ctx context.Context, c *schema.FeeClaim) error {
	return s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Model((*schema.GasSponsorship)(nil)).Where("transaction_id = ?", c.TransactionID).Exec(ctx); err != nil {
			return fmt.Errorf("forget the sponsorship of %s: %w", c.ID, err)
		}
		_, err := tx.NewDelete().Model((*schema.FeeClaim)(nil)).Where("id = ?", c.ID).Exec(ctx)
		return wrap(err, "forget fee claim "+c.ID)
	})
}

// CallData is the claim's collectFees(poolId).
func CallData(c *schema.FeeClaim) []byte {
	return feesABI.PackCollectFees(common.HexToHash(c.PoolID))
}

// TransactionID is the id of claim id's wallet transaction.
func TransactionID(claimID string) string {
	return ids.Derive(ids.WalletTransaction, "feeclaim", claimID)
}

// Get reads the scope's claim id (another account's is not found).
func (s *Service) Get(ctx context.Context, scope tenant.Scope, id string) (*schema.FeeClaim, error) {
	c := new(schema.FeeClaim)
	err := s.DB.NewSelect().Model(c).Where("id = ? AND account_id = ?", id, scope.AccountID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("fee claim %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read fee claim %s: %w", id, err)
	}
	return c, withApproval(ctx, s.DB, c)
}

// withApproval sets c.ApprovalID from its wallet transaction (none when the transaction needed no
// approval, or is not recorded).
func withApproval(ctx context.Context, db bun.IDB, c *schema.FeeClaim) error {
	id, err := wallet.ApprovalOf(ctx, db, c.TransactionID)
	if err != nil {
		return fmt.Errorf("fee claim %s: %w", c.ID, err)
	}
	c.ApprovalID = id
	return nil
}

func load(ctx context.Context, db bun.IDB, id string) (*schema.FeeClaim, error) {
	c := new(schema.FeeClaim)
	if err := db.NewSelect().Model(c).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("read fee claim %s: %w", id, err)
	}
	return c, nil
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}
