package trading

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/evm/uniswap"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/sweep"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// DeadlineMargin is how long after the chain head's time a swap may be mined (the router's deadline).
// A swap that waits for an approval gets the approval's lifetime on top.
const DeadlineMargin = 10 * time.Minute

// Request is an order as the route asks for it.
type Request struct {
	Scope tenant.Scope
	KeyID string
	ID    string
	Body  client.CreateOrderRequest
}

// Place records market order r.ID with its wallet transactions and starts its workflow order/<id>: the
// swap (judged by the wallet's policy at the order's USD value, its spend reserved, waiting for an
// approval when the policy asks) and, when the router's allowance is short, an ERC-20 approve before
// it. A limit or stop order records no transaction until it fires (placeTrigger). The trading fee is held on the account's credits. A replay (the same id) answers the order
// recorded. A policy refusal is the policy's 403 and records nothing.
func (s *Service) Place(ctx context.Context, r Request, now time.Time) (*schema.TradingOrder, error) {
	if o, err := s.load(ctx, s.DB, r.ID); err == nil {
		if Final(o.Status) {
			return o, nil
		}
		return o, s.Start(ctx, o)
	}
	if s.Wallets == nil || s.Engine == nil || s.Venue == nil {
		return nil, svcerr.New(svcerr.Unavailable, "this server has no managed wallets, workflow engine or trading venue")
	}
	if IsParent(r.Body.Type) {
		return s.placeParent(ctx, r, now)
	}
	k, err := readKind(r.Body, now)
	if err != nil {
		return nil, err
	}
	o, err := s.orderOf(ctx, r, now)
	if err != nil {
		return nil, err
	}
	if IsTrigger(k.typ) {
		return s.placeTrigger(ctx, r, o, k, now)
	}
	if err := s.hold(ctx, o); err != nil {
		return nil, err
	}
	if _, err := s.DB.NewInsert().Model(o).Returning("created_at, updated_at").Exec(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("record order %s: %w", o.ID, err), s.release(ctx, o))
	}
	if err := s.send(ctx, r, o, now); err != nil {
		return nil, err
	}
	return o, s.Start(ctx, o)
}

// orderOf builds the order from its quote, or prices its own fields afresh.
func (s *Service) orderOf(ctx context.Context, r Request, now time.Time) (*schema.TradingOrder, error) {
	b := r.Body
	o := &schema.TradingOrder{ID: r.ID, AccountID: r.Scope.AccountID, ProjectID: r.Scope.ProjectID, KeyID: opt(r.KeyID), Type: schema.OrderMarket,
		Status: schema.OrderOpen, FeeMillicredits: s.FeeMillicredits, SwapTxID: SwapTxID(r.ID)}
	if b.QuoteID != "" {
		if b.WalletID != "" || b.Side != "" || b.Base != "" || b.Quote != "" || b.Amount != "" || b.AmountKind != "" || b.SlippageBps != nil {
			return nil, svcerr.Invalid("quoteId", "an order names a quoteId or its own fields, not both")
		}
		return o, s.fromQuote(ctx, r.Scope, b.QuoteID, o, now)
	}
	sp, err := s.readSpec(client.TradingQuoteRequest{WalletID: b.WalletID, Side: b.Side, Base: b.Base, Quote: b.Quote, Amount: b.Amount,
		AmountKind: b.AmountKind, SlippageBps: b.SlippageBps})
	if err != nil {
		return nil, err
	}
	w, err := s.Wallets.Get(ctx, r.Scope, sp.walletID)
	if err != nil {
		return nil, err
	}
	t, err := s.price(ctx, sp)
	if err != nil {
		return nil, err
	}
	o.WalletID, o.Side, o.Base, o.Quote, o.AmountKind, o.Path = w.ID, t.Side, t.Base.Symbol, t.Quote.Symbol, t.AmountKind, hexes(t.Path)
	o.AmountIn, o.AmountOut, o.Bound, o.SlippageBps, o.USDCents = t.AmountIn.String(), t.AmountOut.String(), t.Bound.String(), t.SlippageBps, s.usdCents(t)
	return o, nil
}

// fromQuote fills o from the scope's unexpired quote id.
func (s *Service) fromQuote(ctx context.Context, scope tenant.Scope, id string, o *schema.TradingOrder, now time.Time) error {
	q := new(schema.TradingQuote)
	err := s.DB.NewSelect().Model(q).Where("id = ? AND account_id = ?", id, scope.AccountID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return svcerr.NotFoundf("quote %s not found", id)
	}
	if err != nil {
		return fmt.Errorf("read quote %s: %w", id, err)
	}
	if !now.Before(q.ExpiresAt) {
		return svcerr.Invalid("quoteId", "quote %s expired at %s: quote again", q.ID, q.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if _, err := s.Wallets.Get(ctx, scope, q.WalletID); err != nil {
		return err
	}
	o.QuoteID, o.WalletID, o.Side, o.Base, o.Quote, o.AmountKind, o.Path = &q.ID, q.WalletID, q.Side, q.Base, q.Quote, q.AmountKind, q.Path
	o.AmountIn, o.AmountOut, o.Bound, o.SlippageBps, o.USDCents = q.AmountIn, q.AmountOut, q.Bound, q.SlippageBps, q.USDCents
	return nil
}

// send records the order's swap, then its approve when the allowance is short. A refused swap takes
// the order back (it never happened); a refused approve fails the order, ending its swap unsent.
func (s *Service) send(ctx context.Context, r Request, o *schema.TradingOrder, now time.Time) error {
	w, err := s.Wallets.Get(ctx, r.Scope, o.WalletID)
	if err != nil {
		return err
	}
	swap, err := s.swapCall(ctx, w, o, now)
	if err != nil {
		return errors.Join(err, s.forget(ctx, o))
	}
	t, err := s.Wallets.CreateTransaction(ctx, s.Chain, s.Prices, wallet.NewTransaction{Scope: r.Scope, KeyID: r.KeyID, WalletID: o.WalletID,
		ID: o.SwapTxID, Req: swap, USDCents: o.USDCents}, now)
	if err != nil {
		if _, ok := svcerr.As(err); ok {
			return errors.Join(err, s.forget(ctx, o))
		}
		return err
	}
	if t.ApprovalID != nil {
		o.Status, o.ApprovalID = schema.OrderPendingApproval, t.ApprovalID
		if _, err := s.DB.NewUpdate().Model(o).Column("status", "approval_id").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("record the approval of order %s: %w", o.ID, err)
		}
	}
	return s.approveIfShort(ctx, r, w, o, now)
}

// approveIfShort records the ERC-20 approve of the router when the wallet's allowance of the token paid
// is below what its unfinished orders paying it may take, this one's included (allowance.go): the
// approve is for all of that, decided under the wallet's lock for the token.
func (s *Service) approveIfShort(ctx context.Context, r Request, w *schema.Wallet, o *schema.TradingOrder, now time.Time) error {
	in, _ := legs(o, s.Venue.Config)
	if in.Native {
		return nil
	}
	return s.withAllowanceLock(ctx, o.WalletID, in.Address.Hex(), func() error {
		need, err := outstanding(ctx, s.DB, o, in.Address.Hex())
		if err != nil {
			return err
		}
		tok := launch.NewLaunchToken()
		out, err := s.Venue.RPC.CallContract(ctx, ethereum.CallMsg{To: &in.Address, Data: tok.PackAllowance(wallet.Address(w), s.Venue.Config.Router)}, nil)
		if err != nil {
			return svcerr.New(svcerr.Unavailable, "read the router's allowance: %v", err)
		}
		if have, err := tok.UnpackAllowance(out); err == nil && have.Cmp(need) >= 0 {
			return nil
		}
		return s.recordApprove(ctx, r, o, in, tok.PackApprove(s.Venue.Config.Router, need), now)
	})
}

// recordApprove records order o's approve of the router (call data data) as a wallet transaction.
func (s *Service) recordApprove(ctx context.Context, r Request, o *schema.TradingOrder, in Token, data []byte, now time.Time) error {
	id := ApproveTxID(o.ID)
	o.ApproveTxID = &id
	if _, err := s.DB.NewUpdate().Model(o).Column("approve_tx_id").WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("record the approve of order %s: %w", o.ID, err)
	}
	zero := int64(0)
	_, err := s.Wallets.CreateTransaction(ctx, s.Chain, s.Prices, wallet.NewTransaction{Scope: r.Scope, KeyID: r.KeyID, WalletID: o.WalletID,
		ID: id, USDCents: &zero, Req: client.CreateTransactionRequest{To: in.Address.Hex(), Amount: "0", Asset: client.AssetNative,
			Data: "0x" + common.Bytes2Hex(data)}}, now)
	if e, ok := svcerr.As(err); ok {
		return s.refuseApprove(ctx, o, e)
	}
	return err
}

// refuseApprove fails an order whose approve the policy refused: its swap ends unsent, its fee is
// released, and the refusal is answered.
func (s *Service) refuseApprove(ctx context.Context, o *schema.TradingOrder, e *svcerr.Error) error {
	msg := "the approve of the router was refused: " + e.Message
	if err := (&wallet.Sender{DB: s.DB}).Finish(ctx, workflows.WalletTxEnd{TransactionID: o.SwapTxID, Status: schema.WalletTxFailed,
		ErrorCode: client.OrderReasonApproveFailed, ErrorMessage: msg}); err != nil {
		return err
	}
	reason := client.OrderReasonPolicy
	o.Status, o.ApproveTxID, o.FailureReason, o.ErrorMessage = schema.OrderFailed, nil, &reason, &msg
	if _, err := s.DB.NewUpdate().Model(o).Column("status", "approve_tx_id", "failure_reason", "error_message").WherePK().Exec(ctx); err != nil {
		return fmt.Errorf("record order %s failed: %w", o.ID, err)
	}
	return errors.Join(e, s.release(ctx, o))
}

// maxIn is the most the swap may take of the token paid: the amount in (exact_in) or the bound.
func maxIn(o *schema.TradingOrder) *big.Int {
	if o.AmountKind == client.AmountExactOut {
		return bigOf(o.Bound)
	}
	return bigOf(o.AmountIn)
}

// swapCall is the router call of the order's swap, to the wallet, with a deadline from the chain head
// (plus the approval's lifetime when the policy will ask for one).
func (s *Service) swapCall(ctx context.Context, w *schema.Wallet, o *schema.TradingOrder, now time.Time) (client.CreateTransactionRequest, error) {
	head, err := s.Venue.RPC.HeaderByNumber(ctx, nil)
	if err != nil {
		return client.CreateTransactionRequest{}, svcerr.New(svcerr.Unavailable, "the chain did not answer: %v", err)
	}
	margin := DeadlineMargin
	if v, err := s.verdict(ctx, w, o.USDCents, now); err == nil && v.Decision == string(wallet.NeedsApproval) {
		margin += approval.DefaultTTL
	}
	deadline := new(big.Int).SetUint64(head.Time + uint64(margin.Seconds()))
	value, data := s.swapData(o, wallet.Address(w), deadline)
	return client.CreateTransactionRequest{To: s.Venue.Config.Router.Hex(), Amount: wallet.FormatUnits(value, 18), Asset: client.AssetNative,
		Data: "0x" + common.Bytes2Hex(data)}, nil
}

// swapData is the router function for the order's direction and kind, and the ether it sends.
func (s *Service) swapData(o *schema.TradingOrder, to common.Address, deadline *big.Int) (*big.Int, []byte) {
	r := uniswap.NewRouter()
	path := make([]common.Address, len(o.Path))
	for i, a := range o.Path {
		path[i] = common.HexToAddress(a)
	}
	in, out := legs(o, s.Venue.Config)
	amountIn, amountOut, b := bigOf(o.AmountIn), bigOf(o.AmountOut), bigOf(o.Bound)
	exactIn := o.AmountKind == client.AmountExactIn
	switch {
	case in.Native && exactIn:
		return amountIn, r.PackSwapExactETHForTokens(b, path, to, deadline)
	case in.Native:
		return b, r.PackSwapETHForExactTokens(amountOut, path, to, deadline)
	case out.Native && exactIn:
		return new(big.Int), r.PackSwapExactTokensForETH(amountIn, b, path, to, deadline)
	case out.Native:
		return new(big.Int), r.PackSwapTokensForExactETH(amountOut, b, path, to, deadline)
	case exactIn:
		return new(big.Int), r.PackSwapExactTokensForTokens(amountIn, b, path, to, deadline)
	default:
		return new(big.Int), r.PackSwapTokensForExactTokens(amountOut, b, path, to, deadline)
	}
}

// HoldReference is the ledger reference of order id's fee hold.
func HoldReference(orderID string) string { return "order/" + orderID }

// hold reserves the order's fee on the account's credits (insufficient_credits refuses the order).
func (s *Service) hold(ctx context.Context, o *schema.TradingOrder) error {
	if s.Ledger == nil || o.FeeMillicredits <= 0 {
		o.FeeMillicredits = 0
		return nil
	}
	_, err := s.Ledger.Hold(ctx, o.AccountID, o.FeeMillicredits, HoldReference(o.ID))
	return err
}

// release gives the order's fee hold back.
func (s *Service) release(ctx context.Context, o *schema.TradingOrder) error {
	return releaseHold(ctx, s.Ledger, o)
}

func releaseHold(ctx context.Context, l *ledger.Ledger, o *schema.TradingOrder) error {
	if l == nil || o.FeeMillicredits <= 0 {
		return nil
	}
	h, _, err := l.FindHold(ctx, o.AccountID, HoldReference(o.ID))
	if err != nil || h.Millicredits == 0 {
		return err
	}
	return l.Release(ctx, h)
}

// forget deletes an order whose swap was refused, and releases its fee.
func (s *Service) forget(ctx context.Context, o *schema.TradingOrder) error {
	if _, err := s.DB.NewDelete().Model((*schema.TradingOrder)(nil)).Where("id = ?", o.ID).Exec(ctx); err != nil {
		return fmt.Errorf("forget order %s: %w", o.ID, err)
	}
	return s.release(ctx, o)
}

// SwapTxID and ApproveTxID are the ids of order id's wallet transactions.
func SwapTxID(orderID string) string { return ids.Derive(ids.WalletTransaction, "order-swap", orderID) }

// ApproveTxID is the id of order id's ERC-20 approve of the router.
func ApproveTxID(orderID string) string {
	return ids.Derive(ids.WalletTransaction, "order-approve", orderID)
}

// Start starts order o's workflow order/<id> (TriggerOrderWorkflow for a limit or stop order); one
// started before is fine. A swap that waits for an
// approval has the approval's workflow started first.
func (s *Service) Start(ctx context.Context, o *schema.TradingOrder) error {
	switch {
	case IsTrigger(o.Type):
		return s.startTrigger(ctx, o)
	case o.Type == schema.OrderTWAP:
		return s.startTWAP(ctx, o)
	case o.Type == schema.OrderDCA:
		return s.startDCA(ctx, o)
	}
	p := workflows.OrderParams{OrderID: o.ID, SwapTxID: o.SwapTxID, ApproveTxID: deref(o.ApproveTxID)}
	if o.ApprovalID != nil {
		a, err := approval.NewStore(s.DB).ByID(ctx, *o.ApprovalID)
		if err != nil {
			return err
		}
		if err := approval.Start(ctx, s.Engine, a); err != nil {
			return err
		}
		p.ApprovalID, p.ApprovalExpiresAt = a.ID, a.ExpiresAt
	}
	// EnableEagerStart: a worker in this process (svcd dev, one process) gets the workflow's first task in
	// the start's answer, without a trip through matching; elsewhere the start is an ordinary one.
	return wallet.StartOnce(ctx, s.Engine, sdkclient.StartWorkflowOptions{ID: workflows.OrderWorkflowID(o.ID), EnableEagerStart: true,
		TypedSearchAttributes: workflows.ResourceAttributes(o.AccountID, o.ProjectID, client.ServiceManagedTrading, client.OpTradingOrdersCreate),
		StaticSummary:         o.Side + " " + o.Base + "/" + o.Quote + " (" + o.ID + ") from " + o.WalletID}, "order", workflows.OrderWorkflowName, p)
}

// load reads order id.
func (s *Service) load(ctx context.Context, db bun.IDB, id string) (*schema.TradingOrder, error) {
	o := new(schema.TradingOrder)
	if err := db.NewSelect().Model(o).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("read order %s: %w", id, err)
	}
	return o, nil
}

// legs are the tokens order o pays and receives (by the symbols it names: ETH is the native asset even
// where WETH is listed too).
func legs(o *schema.TradingOrder, cfg Config) (Token, Token) {
	base, _ := cfg.Lookup(o.Base)
	quote, _ := cfg.Lookup(o.Quote)
	if o.Side == client.SideBuy {
		return quote, base
	}
	return base, quote
}

// Final reports whether an order in status has ended.
func Final(status string) bool {
	switch status {
	case schema.OrderFilled, schema.OrderFailed, schema.OrderCancelled, schema.OrderExpired:
		return true
	}
	return false
}

func bigOf(s string) *big.Int {
	v, ok := new(big.Int).SetString(strings.TrimSpace(s), 10)
	if !ok {
		return new(big.Int)
	}
	return v
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Sweep starts the workflows of orders still open or pending an approval after settle (their request
// died between recording them and starting their workflow), recorded in the last day, at most limit of
// them; it answers how many it handed on. An order whose workflow runs or ran is left as it is (its start
// is refused as a duplicate).
func (s *Service) Sweep(ctx context.Context, settle time.Duration, limit int) (int, error) {
	return sweep.Stale(ctx, s.DB, sweep.Query{What: "orders", Statuses: []string{schema.OrderOpen, schema.OrderPendingApproval},
		Where:  "parent_order_id IS NULL", // a child order is its parent's workflow's to start
		Settle: settle, Limit: limit}, func(ctx context.Context, o *schema.TradingOrder) (bool, error) {
		return true, s.Start(ctx, o)
	})
}
