package wallet

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// NewTransaction is a send as a request asks for it.
type NewTransaction struct {
	Scope    tenant.Scope
	KeyID    string
	WalletID string
	ID       string
	Req      client.CreateTransactionRequest
	// USDCents, when set, is the value the policy judges and the spend reservation holds instead of the
	// send's own (a trading order's swap moves the order's value through a contract call).
	USDCents *int64
}

// CreateTransaction judges a send under the wallet's row lock (the policy again, with the rolling
// 24-hour spend, and the screening step), reserves its USD value against the daily limit and records
// it: queued, for the workflow wallettx/<id> to sign and broadcast, or pending_approval with a pending
// approval (kind wallet_transaction) and its wallet.transaction.pending_approval event when the policy or
// the screening asks for one. The reservation is taken either way, so sends waiting for a decision count
// against the daily limit. A refusal (or a block by screening) names its rule and stores nothing. A
// replay (the same id) answers the transaction recorded.
func (s *Store) CreateTransaction(ctx context.Context, c *Chain, prices Prices, n NewTransaction, now time.Time) (*schema.WalletTransaction, error) {
	w, err := s.Get(ctx, n.Scope, n.WalletID)
	if err != nil {
		return nil, err
	}
	if existing, err := s.transaction(ctx, s.db, w.ID, n.ID, ""); err == nil {
		return existing, nil
	}
	if c == nil {
		return nil, svcerr.New(svcerr.Unavailable, "this server reads no chain (SVC_CHAIN_RPC_URL)")
	}
	snd, quoteID, err := s.sendOf(ctx, c, prices, w, n.Req, now)
	if err != nil {
		return nil, err
	}
	if n.USDCents != nil {
		snd.usdCents = n.USDCents
	}
	var t *schema.WalletTransaction
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		locked, err := s.get(ctx, tx, n.Scope, w.ID, "UPDATE")
		if err != nil {
			return err
		}
		v, screening, err := s.judge(ctx, tx, locked, snd, now)
		if err != nil {
			return err
		}
		t = newTransaction(n, locked, snd, quoteID, v, screening)
		var a *schema.Approval
		if v.Decision == NeedsApproval || screening.Verdict == client.ScreeningNeedsApproval {
			if n.KeyID == "" {
				return errApprovalNeedsKey(v, screening)
			}
			a = approvalOf(n, t, v, screening, now)
			t.Status, t.ApprovalID = schema.WalletTxPendingApproval, &a.ID
		}
		if _, err := tx.NewInsert().Model(t).Returning("created_at, updated_at").Exec(ctx); err != nil {
			return fmt.Errorf("record transaction: %w", err)
		}
		if _, err = tx.NewRaw("INSERT INTO wallet_spends (wallet_id, transaction_id, cents) VALUES (?, ?, ?)",
			w.ID, t.ID, deref64(snd.usdCents)).Exec(ctx); err != nil {
			return fmt.Errorf("reserve the spend of %s: %w", t.ID, err)
		}
		if a == nil {
			return nil
		}
		if err := approval.Insert(ctx, tx, a); err != nil {
			return err
		}
		return outbox.Emit(ctx, tx, outbox.Event{AccountID: t.AccountID, ProjectID: t.ProjectID, Type: outbox.WalletTransactionPendingApproval,
			Subject: t.ID, Data: TransactionToWire(t)})
	})
	return t, err
}

// errApprovalNeedsKey refuses (403) a send that needs an approval when no API key makes it (a web
// session): an approval is requested by a key, and the send is not recorded.
func errApprovalNeedsKey(v Verdict, sc client.Screening) error {
	rule := v.Rule
	if v.Decision != NeedsApproval {
		rule = sc.Rule
	}
	return svcerr.New(svcerr.Forbidden, "this send needs an approval (rule %s), and approvals are requested by an API key: a web session cannot ask for one", rule).
		WithDetails("rule", rule).WithDetails("decision", NeedsApproval)
}

// approvalOf is the pending approval a send that needs one waits for: requested by the send's key,
// expiring after approval.DefaultTTL, its reason the rule that asked for it.
func approvalOf(n NewTransaction, t *schema.WalletTransaction, v Verdict, sc client.Screening, now time.Time) *schema.Approval {
	reason := v.Rule + ": " + v.Message
	if v.Decision != NeedsApproval {
		reason = "screening " + sc.Rule + ": " + sc.Reason
	}
	input, _ := json.Marshal(map[string]any{"walletId": t.WalletID, "transactionId": t.ID, "to": t.ToAddress, "asset": t.Asset,
		"amount": FormatUnits(mustBig(t.Atomic), t.Decimals), "usdValue": usd(t.USDCents), "verdict": v, "screening": sc})
	id := ids.New(ids.Approval)
	return &schema.Approval{ID: id, AccountID: t.AccountID, ProjectID: t.ProjectID, KeyID: n.KeyID, Kind: approval.KindWalletTransaction,
		ServiceID: client.ServiceManagedWallets, OperationID: client.OpWalletsTransactionsCreate, Input: input, Reason: &reason,
		Status: client.ApprovalPending, WorkflowID: workflows.ApprovalWorkflowID(id), ExpiresAt: now.Add(approval.DefaultTTL).UTC(),
		TransactionID: &t.ID}
}

// judge evaluates the wallet's policy for snd with the spend of the last 24 hours, and screens it. A
// block by screening or a refusal by the policy is a 403 naming the rule; a send that needs an approval
// (by either) is not an error.
func (s *Store) judge(ctx context.Context, tx bun.Tx, w *schema.Wallet, snd *send, now time.Time) (Verdict, client.Screening, error) {
	p, err := PolicyOf(w)
	if err != nil {
		return Verdict{}, client.Screening{}, err
	}
	spent, err := Spent(ctx, tx, w.ID, now)
	if err != nil {
		return Verdict{}, client.Screening{}, err
	}
	sc, err := s.screener.Screen(ctx, tx, w, snd, now)
	if err != nil {
		return Verdict{}, client.Screening{}, err
	}
	if sc.Verdict == client.ScreeningBlock {
		return Verdict{}, sc, svcerr.New(svcerr.Forbidden, "screening blocks this send (%s): %s", sc.Rule, sc.Reason).
			WithDetails("rule", sc.Rule).WithDetails("decision", sc.Verdict).WithDetails("check", "screening")
	}
	v := p.Evaluate(Outbound{From: Address(w), To: snd.to, USDCents: snd.usdCents, ContractCall: snd.contractCall, SpentCents: spent}, now)
	if v.Decision == Refused {
		return v, sc, svcerr.New(svcerr.Forbidden, "the wallet's policy refuses this send (%s): %s", v.Rule, v.Message).
			WithDetails("rule", v.Rule).WithDetails("decision", v.Decision)
	}
	return v, sc, nil
}

// sendOf resolves the send of a request: its quote (unexpired, of this wallet), or its own fields.
func (s *Store) sendOf(ctx context.Context, c *Chain, prices Prices, w *schema.Wallet, r client.CreateTransactionRequest, now time.Time) (*send, *string, error) {
	if r.QuoteID == "" {
		if r.To == "" || r.Amount == "" || r.Asset == "" {
			return nil, nil, svcerr.Invalid("quoteId", "a send names a quoteId, or to, amount and asset")
		}
		snd, err := c.resolve(ctx, client.TransactionQuoteRequest{To: r.To, Amount: r.Amount, Asset: r.Asset, Data: r.Data}, prices)
		return snd, nil, err
	}
	if r.To != "" || r.Amount != "" || r.Asset != "" || r.Data != "" {
		return nil, nil, svcerr.Invalid("quoteId", "a send names a quoteId or its own fields, not both")
	}
	q := new(schema.WalletQuote)
	err := s.db.NewSelect().Model(q).Where("id = ? AND wallet_id = ? AND account_id = ?", r.QuoteID, w.ID, w.AccountID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, svcerr.NotFoundf("quote %s not found for wallet %s", r.QuoteID, w.ID)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read quote %s: %w", r.QuoteID, err)
	}
	if !now.Before(q.ExpiresAt) {
		return nil, nil, svcerr.Invalid("quoteId", "quote %s expired at %s: quote again", q.ID, q.ExpiresAt.UTC().Format(time.RFC3339))
	}
	snd, err := c.resolve(ctx, client.TransactionQuoteRequest{To: q.ToAddress, Amount: FormatUnits(mustBig(q.Atomic), q.Decimals),
		Asset: q.Asset, Data: hexOf(q.Data)}, prices)
	if err != nil {
		return nil, nil, err
	}
	snd.usdCents = q.USDCents // the quoted value is the one judged and reserved
	return snd, &q.ID, nil
}

func newTransaction(n NewTransaction, w *schema.Wallet, snd *send, quoteID *string, v Verdict, sc client.Screening) *schema.WalletTransaction {
	verdict, _ := json.Marshal(v)
	screening, _ := json.Marshal(sc)
	keyID := n.KeyID
	t := &schema.WalletTransaction{ID: n.ID, WalletID: w.ID, AccountID: w.AccountID, ProjectID: w.ProjectID, KeyID: &keyID,
		QuoteID: quoteID, Chain: w.Chain, ToAddress: snd.to.Hex(), Asset: snd.asset, Atomic: snd.atomic.String(), Decimals: snd.decimals,
		USDCents: snd.usdCents, TxTo: snd.txTo.Hex(), Value: snd.value.String(), Data: snd.data, Status: schema.WalletTxQueued,
		Verdict: verdict, Screening: screening}
	if snd.token != nil {
		tok := snd.token.Hex()
		t.Token = &tok
	}
	return t
}

// transaction reads transaction id of wallet walletID.
func (s *Store) transaction(ctx context.Context, db bun.IDB, walletID, id, lock string) (*schema.WalletTransaction, error) {
	t := new(schema.WalletTransaction)
	q := db.NewSelect().Model(t).Where("id = ? AND wallet_id = ?", id, walletID)
	if lock != "" {
		q = q.For(lock)
	}
	err := q.Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("transaction %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read transaction %s: %w", id, err)
	}
	return t, nil
}

// Transaction reads transaction id of the scope's wallet walletID.
func (s *Store) Transaction(ctx context.Context, scope tenant.Scope, walletID, id string) (*schema.WalletTransaction, error) {
	if _, err := s.Get(ctx, scope, walletID); err != nil {
		return nil, err
	}
	return s.transaction(ctx, s.db, walletID, id, "")
}

// Transactions lists the scope's wallet's transactions, newest first.
func (s *Store) Transactions(ctx context.Context, scope tenant.Scope, walletID string, limit int, after *time.Time, afterID string) ([]schema.WalletTransaction, error) {
	if _, err := s.Get(ctx, scope, walletID); err != nil {
		return nil, err
	}
	out := []schema.WalletTransaction{}
	q := s.db.NewSelect().Model(&out).Where("wallet_id = ?", walletID)
	if after != nil {
		q = q.Where("(created_at, id) < (?, ?)", *after, afterID)
	}
	if err := q.OrderExpr("created_at DESC, id DESC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("list transactions: %w", err)
	}
	return out, nil
}

// TransactionToWire is the transaction as the API shows it.
func TransactionToWire(t *schema.WalletTransaction) client.WalletTransaction {
	out := client.WalletTransaction{ID: t.ID, WalletID: t.WalletID, Status: t.Status, To: t.ToAddress, Asset: t.Asset, Token: t.Token,
		Amount: FormatUnits(mustBig(t.Atomic), t.Decimals), Atomic: t.Atomic, USDValue: usd(t.USDCents), Hash: t.TxHash, Nonce: t.Nonce,
		QuoteID: t.QuoteID, WorkflowID: workflows.WalletTxWorkflowID(t.ID), CreatedAt: t.CreatedAt.UTC(), UpdatedAt: t.UpdatedAt.UTC(),
		Confirmed: t.ConfirmedAt, ApprovalID: t.ApprovalID}
	_ = json.Unmarshal(t.Verdict, &out.Verdict)
	if len(t.Screening) > 0 {
		out.Screening = new(client.Screening)
		_ = json.Unmarshal(t.Screening, out.Screening)
	}
	if t.ErrorCode != nil {
		out.Error = &client.RunError{Code: *t.ErrorCode, Message: derefStr(t.ErrorMessage)}
	}
	return out
}

func mustBig(s string) *big.Int {
	v, ok := new(big.Int).SetString(strings.TrimSpace(s), 10)
	if !ok {
		return new(big.Int)
	}
	return v
}

func hexOf(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return "0x" + common.Bytes2Hex(b)
}

func deref64(v *int64) int64 {
	if v == nil {
		return 0
	}
	return *v
}

func derefStr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ApprovalOf is the approval id of wallet transaction transactionID: nil when it needed no approval or
// is not recorded (yet).
func ApprovalOf(ctx context.Context, db bun.IDB, transactionID string) (*string, error) {
	var id sql.NullString
	err := db.NewRaw("SELECT approval_id FROM wallet_transactions WHERE id = ?", transactionID).Scan(ctx, &id)
	if errors.Is(err, sql.ErrNoRows) || err == nil && !id.Valid {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the approval of wallet transaction %s: %w", transactionID, err)
	}
	return &id.String, nil
}
