// Package beneficiary keeps managed-wallet beneficiary transfers (issue 20, POST
// /user/amm/execute-transfer-beneficiary): the caller's managed wallet, a beneficiary of a launched
// token's pool, sends FeesManager.updateBeneficiary(poolId, newBeneficiary) as an ordinary wallet
// transaction (its policy applies), its gas sponsored by the platform as fee claims' is; workflow
// beneficiary/<id> drives the send and records what the contract paid the old beneficiary first.
package beneficiary

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

// Service records transfers and starts their workflows.
type Service struct {
	DB      *bun.DB
	Wallets *wallet.Store
	Chain   *wallet.Chain
	Prices  wallet.Prices
	Fees    *feeread.Reader
	Engine  wallet.Engine
}

// Request is a transfer as the route asks for it: by a web session of the scope's account (Session is
// its address) with the body's token, new beneficiary and wallet.
type Request struct {
	Scope   tenant.Scope
	Session string
	ID      string
	Body    client.BeneficiaryTransferRequest
}

// Transfer records transfer r.ID (a replay answers the transfer recorded) and its wallet transaction, and
// starts its workflow beneficiary/<id>. Before anything is recorded it refuses with 400 naming the field
// a bad tokenAddress or newBeneficiary (the zero address, the wallet itself), with 403 a wallet that
// holds no shares of the token's pool, with 409 an updateBeneficiary the chain refuses from the wallet
// (eth_call), with 429 a wallet over its sponsored transactions, and with the wallet policy's answer a
// send the policy refuses (a paused wallet). A transfer whose send waits for an approval carries the
// approval's id.
func (s *Service) Transfer(ctx context.Context, r Request, now time.Time) (*schema.BeneficiaryTransfer, error) {
	t, err := s.transfer(ctx, r, now)
	if err != nil {
		return t, err
	}
	return t, withApproval(ctx, s.DB, t)
}

// transfer is Transfer without the approval's id.
func (s *Service) transfer(ctx context.Context, r Request, now time.Time) (*schema.BeneficiaryTransfer, error) {
	if t, err := load(ctx, s.DB, r.ID); err == nil {
		return t, s.send(ctx, r, t, now)
	}
	if s.Wallets == nil || s.Engine == nil || s.Fees == nil {
		return nil, svcerr.New(svcerr.Unavailable, "this server has no managed wallets, fee reader or workflow engine")
	}
	token, err := feeread.ParseAddress("tokenAddress", r.Body.TokenAddress)
	if err != nil {
		return nil, err
	}
	next, err := feeread.ParseAddress("newBeneficiary", r.Body.NewBeneficiary)
	if err != nil {
		return nil, err
	}
	w, err := s.Wallets.Pick(ctx, r.Scope, r.Body.WalletID)
	if err != nil {
		return nil, err
	}
	plan, err := s.Fees.PlanTransfer(ctx, token, wallet.Address(w), next)
	if err != nil {
		return nil, err
	}
	t := &schema.BeneficiaryTransfer{ID: r.ID, AccountID: r.Scope.AccountID, ProjectID: r.Scope.ProjectID, SessionAddress: opt(r.Session),
		WalletID: w.ID, WalletAddress: wallet.Address(w).Hex(), NewBeneficiary: next.Hex(), Chain: w.Chain, TokenAddress: token.Hex(),
		PoolID: plan.PoolID.Hex(), Shares: plan.Shares.String(), Status: schema.BeneficiaryTransferring, TransactionID: TransactionID(r.ID)}
	if err := s.record(ctx, t, now); err != nil {
		return nil, err
	}
	return t, s.send(ctx, r, t, now)
}

// send records the transfer's wallet transaction (a replay finds it) and starts the transfer's workflow.
// A refused send takes the transfer back: it never happened.
func (s *Service) send(ctx context.Context, r Request, t *schema.BeneficiaryTransfer, now time.Time) error {
	req := client.CreateTransactionRequest{To: s.Fees.Manager().Hex(), Amount: "0", Asset: client.AssetNative,
		Data: "0x" + common.Bytes2Hex(CallData(t))}
	_, err := s.Wallets.CreateTransaction(ctx, s.Chain, s.Prices, wallet.NewTransaction{Scope: r.Scope, WalletID: t.WalletID,
		ID: t.TransactionID, Req: req}, now)
	if err != nil {
		if _, ok := svcerr.As(err); ok {
			if derr := s.forget(ctx, t); derr != nil {
				return errors.Join(err, derr)
			}
		}
		return err
	}
	return Start(ctx, s.Engine, s.DB, t)
}

// record inserts the transfer and reserves its gas sponsorship (429 over the wallet's daily
// sponsorships, which fee claims and launches count against too).
func (s *Service) record(ctx context.Context, t *schema.BeneficiaryTransfer, now time.Time) error {
	return s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(t).Returning("created_at, updated_at").Exec(ctx); err != nil {
			return fmt.Errorf("record beneficiary transfer %s: %w", t.ID, err)
		}
		return sponsor.Reserve(ctx, tx, sponsor.Request{TransactionID: t.TransactionID, WalletID: t.WalletID, AccountID: t.AccountID,
			To: common.HexToAddress(t.WalletAddress), Purpose: "beneficiary"}, now)
	})
}

// forget deletes a transfer whose send was refused, with its sponsorship.
func (s *Service) forget(ctx context.Context, t *schema.BeneficiaryTransfer) error {
	return s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Model((*schema.GasSponsorship)(nil)).Where("transaction_id = ?", t.TransactionID).Exec(ctx); err != nil {
			return fmt.Errorf("forget the sponsorship of %s: %w", t.ID, err)
		}
		_, err := tx.NewDelete().Model((*schema.BeneficiaryTransfer)(nil)).Where("id = ?", t.ID).Exec(ctx)
		return wrap(err, "forget beneficiary transfer "+t.ID)
	})
}

// CallData is the transfer's updateBeneficiary(poolId, newBeneficiary).
func CallData(t *schema.BeneficiaryTransfer) []byte {
	return feesABI.PackUpdateBeneficiary(common.HexToHash(t.PoolID), common.HexToAddress(t.NewBeneficiary))
}

// TransactionID is the id of transfer id's wallet transaction.
func TransactionID(transferID string) string {
	return ids.Derive(ids.WalletTransaction, "beneficiary", transferID)
}

// Get reads the scope's transfer id (another account's is not found).
func (s *Service) Get(ctx context.Context, scope tenant.Scope, id string) (*schema.BeneficiaryTransfer, error) {
	t := new(schema.BeneficiaryTransfer)
	err := s.DB.NewSelect().Model(t).Where("id = ? AND account_id = ?", id, scope.AccountID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("beneficiary transfer %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read beneficiary transfer %s: %w", id, err)
	}
	return t, withApproval(ctx, s.DB, t)
}

// withApproval sets t.ApprovalID from its wallet transaction (none when the transaction needed no
// approval, or is not recorded).
func withApproval(ctx context.Context, db bun.IDB, t *schema.BeneficiaryTransfer) error {
	id, err := wallet.ApprovalOf(ctx, db, t.TransactionID)
	if err != nil {
		return fmt.Errorf("beneficiary transfer %s: %w", t.ID, err)
	}
	t.ApprovalID = id
	return nil
}

func load(ctx context.Context, db bun.IDB, id string) (*schema.BeneficiaryTransfer, error) {
	t := new(schema.BeneficiaryTransfer)
	if err := db.NewSelect().Model(t).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("read beneficiary transfer %s: %w", id, err)
	}
	return t, nil
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
