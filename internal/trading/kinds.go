package trading

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"time"

	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Limits of limit and stop orders.
const (
	// DefaultTriggerTTL is how long a limit or stop order waits to fire when it names no expiresAt.
	DefaultTriggerTTL = 24 * time.Hour
	// MaxTriggerTTL is the furthest ahead expiresAt may be.
	MaxTriggerTTL = 30 * 24 * time.Hour
	// DefaultWatchEvery spaces the reads of the pool's price by a waiting order's workflow.
	DefaultWatchEvery = 5 * time.Second
)

// Signaler signals running workflows (a cancelled order's).
type Signaler interface {
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
}

// kind is an order request's type with its trigger, read and checked.
type kind struct {
	typ       string
	trigger   *string
	expiresAt *time.Time
}

var decimalPrice = regexp.MustCompile(`^[0-9]{1,40}(\.[0-9]{1,40})?$`)

// readKind checks an order request's type, limitPrice, stopPrice and expiresAt, naming the first bad one.
func readKind(b client.CreateOrderRequest, now time.Time) (kind, error) {
	k := kind{typ: b.Type}
	if err := noParentFields(b); err != nil {
		return k, err
	}
	if k.typ == "" {
		k.typ = client.OrderTypeMarket
		if b.LimitPrice != "" {
			k.typ = client.OrderTypeLimit
		}
	}
	switch k.typ {
	case client.OrderTypeMarket:
		return k, marketOnly(b)
	case client.OrderTypeLimit:
		if b.StopPrice != "" {
			return k, svcerr.Invalid("stopPrice", "a limit order names limitPrice, not stopPrice")
		}
		return k, k.readTrigger("limitPrice", b.LimitPrice, b.ExpiresAt, now)
	case client.OrderTypeStop:
		if b.LimitPrice != "" {
			return k, svcerr.Invalid("limitPrice", "a stop order names stopPrice, not limitPrice")
		}
		return k, k.readTrigger("stopPrice", b.StopPrice, b.ExpiresAt, now)
	}
	return k, svcerr.Invalid("type", "type is market, limit, stop, twap or dca, not %q", b.Type)
}

// noParentFields refuses a twap or dca field on another type of order.
func noParentFields(b client.CreateOrderRequest) error {
	for _, f := range []struct {
		name string
		set  bool
	}{{"duration", b.Duration != ""}, {"slices", b.Slices != 0}, {"every", b.Every != ""}, {"amountPerSlice", b.AmountPerSlice != ""}} {
		if f.set {
			return svcerr.Invalid(f.name, "%s is for twap and dca orders (type twap or dca)", f.name)
		}
	}
	return nil
}

// marketOnly refuses a market order's trigger fields.
func marketOnly(b client.CreateOrderRequest) error {
	switch {
	case b.LimitPrice != "":
		return svcerr.Invalid("limitPrice", "a market order has no limitPrice (type limit, or leave type out)")
	case b.StopPrice != "":
		return svcerr.Invalid("stopPrice", "a market order has no stopPrice (type stop)")
	case b.ExpiresAt != nil:
		return svcerr.Invalid("expiresAt", "a market order does not expire: expiresAt is for limit and stop orders")
	}
	return nil
}

// readTrigger checks the trigger price in field and the expiry (default DefaultTriggerTTL from now).
func (k *kind) readTrigger(field, price string, expiresAt *time.Time, now time.Time) error {
	if price == "" {
		return svcerr.Invalid(field, "a %s order needs %s (quote token per base token)", k.typ, field)
	}
	r, ok := new(big.Rat).SetString(price)
	if !decimalPrice.MatchString(price) || !ok || r.Sign() <= 0 {
		return svcerr.Invalid(field, "%s is a positive decimal number of quote token per base token, such as 2500.5; got %q", field, price)
	}
	k.trigger = &price
	at := now.Add(DefaultTriggerTTL)
	if expiresAt != nil {
		at = *expiresAt
	}
	if !at.After(now) {
		return svcerr.Invalid("expiresAt", "expiresAt must be in the future")
	}
	if at.Sub(now) > MaxTriggerTTL {
		return svcerr.Invalid("expiresAt", "expiresAt may be at most %s ahead", MaxTriggerTTL)
	}
	at = at.UTC()
	k.expiresAt = &at
	return nil
}

// IsTrigger reports whether order type typ waits for a price (limit, stop).
func IsTrigger(typ string) bool { return typ == schema.OrderLimit || typ == schema.OrderStop }

// placeTrigger records a limit or stop order and starts its workflow: nothing is sent until it fires.
// The wallet's policy judges the order's USD value now (a refusal is its 403 and records nothing); the
// trading fee is held until it fills, expires or is cancelled.
func (s *Service) placeTrigger(ctx context.Context, r Request, o *schema.TradingOrder, k kind, now time.Time) (*schema.TradingOrder, error) {
	o.Type, o.TriggerPrice, o.ExpiresAt = k.typ, k.trigger, k.expiresAt
	w, err := s.Wallets.Get(ctx, r.Scope, o.WalletID)
	if err != nil {
		return nil, err
	}
	v, err := s.verdict(ctx, w, o.USDCents, now)
	if err != nil {
		return nil, err
	}
	if v.Decision == wallet.Refused {
		return nil, svcerr.New(svcerr.Forbidden, "the wallet's policy refuses this order (%s): %s", v.Rule, v.Message).
			WithDetails("rule", v.Rule).WithDetails("decision", v.Decision)
	}
	if err := s.hold(ctx, o); err != nil {
		return nil, err
	}
	if _, err := s.DB.NewInsert().Model(o).Returning("created_at, updated_at").Exec(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("record order %s: %w", o.ID, err), s.release(ctx, o))
	}
	return o, s.Start(ctx, o)
}

// startTrigger starts limit or stop order o's workflow order/<id>; one started before is fine.
func (s *Service) startTrigger(ctx context.Context, o *schema.TradingOrder) error {
	every := s.WatchEvery
	if every <= 0 {
		every = DefaultWatchEvery
	}
	p := workflows.TriggerOrderParams{OrderID: o.ID, CheckEvery: every}
	if o.ExpiresAt != nil {
		p.ExpiresAt = *o.ExpiresAt
	}
	return wallet.StartOnce(ctx, s.Engine, sdkclient.StartWorkflowOptions{ID: workflows.OrderWorkflowID(o.ID),
		TypedSearchAttributes: workflows.ResourceAttributes(o.AccountID, o.ProjectID, client.ServiceManagedTrading, client.OpTradingOrdersCreate),
		StaticSummary:         o.Type + " " + o.Side + " " + o.Base + "/" + o.Quote + " at " + deref(o.TriggerPrice) + " (" + o.ID + ") from " + o.WalletID},
		"order", workflows.TriggerOrderWorkflowName, p)
}

// Cancel asks the workflow of the scope's limit or stop order id to stop (another account's is not
// found); a market order, or one that has fired or ended, is a 409. The order reads cancelled once its
// workflow has recorded it.
func (s *Service) Cancel(ctx context.Context, scope tenant.Scope, id string) (client.TradingOrder, error) {
	o := new(schema.TradingOrder)
	err := scope.Where(s.DB.NewSelect().Model(o)).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return client.TradingOrder{}, svcerr.NotFoundf("order %s not found", id)
	}
	if err != nil {
		return client.TradingOrder{}, fmt.Errorf("read order %s: %w", id, err)
	}
	if o.Status == schema.OrderCancelled {
		return s.View(ctx, o)
	}
	if IsParent(o.Type) {
		if err := s.cancelParent(ctx, o); err != nil {
			return client.TradingOrder{}, err
		}
		return s.View(ctx, o)
	}
	if !IsTrigger(o.Type) {
		return client.TradingOrder{}, svcerr.New(svcerr.Conflict, "order %s is a %s order: only limit, stop, twap and dca orders can be cancelled", id, o.Type)
	}
	fired, err := s.swapRecorded(ctx, o)
	if err != nil {
		return client.TradingOrder{}, err
	}
	if Final(o.Status) || fired {
		return client.TradingOrder{}, svcerr.New(svcerr.Conflict, "order %s has fired or ended (%s): it cannot be cancelled", id, o.Status)
	}
	if s.Signals == nil {
		return client.TradingOrder{}, svcerr.New(svcerr.Unavailable, "this server cannot signal workflows")
	}
	if err := s.Signals.SignalWorkflow(ctx, workflows.OrderWorkflowID(id), "", workflows.OrderCancelSignal, nil); err != nil {
		return client.TradingOrder{}, svcerr.New(svcerr.Unavailable, "the order's workflow did not take the cancel: %v", err)
	}
	return s.View(ctx, o)
}

// swapRecorded says whether order o's swap is recorded (a limit or stop order has fired).
func (s *Service) swapRecorded(ctx context.Context, o *schema.TradingOrder) (bool, error) {
	n, err := s.DB.NewSelect().Model((*schema.WalletTransaction)(nil)).Where("id = ?", o.SwapTxID).Count(ctx)
	if err != nil {
		return false, fmt.Errorf("read the swap of order %s: %w", o.ID, err)
	}
	return n > 0, nil
}
