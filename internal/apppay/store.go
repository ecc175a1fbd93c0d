package apppay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/x402"
	"github.com/svcplatform/svc/schema"
)

// paying are the statuses whose amount counts against the visitor's daily limit.
var paying = []string{schema.AppX402Paying, schema.AppX402Paid, schema.AppX402Unsettled}

// locked runs fn in a transaction holding the advisory lock of c's (account, app, visitor).
func (s *Service) locked(ctx context.Context, c *call, fn func(tx bun.Tx) error) error {
	return s.cfg.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		key := "appx402:" + c.AccountID + ":" + c.AppSlug + ":" + c.Visitor
		if _, err := tx.NewRaw("SELECT pg_advisory_xact_lock(hashtext(?))", key).Exec(ctx); err != nil {
			return fmt.Errorf("lock the x402 calls of app %s: %w", c.AppSlug, err)
		}
		return fn(tx)
	})
}

// begin counts the call against the visitor's per-minute limit and records it (status calling),
// answering its id; the eleventh call in a minute is a 429 and records nothing.
func (s *Service) begin(ctx context.Context, c *call) (string, error) {
	now := s.cfg.Now()
	row := &schema.AppX402Payment{ID: ids.New(idPrefix), AccountID: c.AccountID, ProjectID: c.ProjectID, AppSlug: c.AppSlug,
		Visitor: c.Visitor, WalletID: c.WalletID, Method: c.Method, Host: strings.ToLower(c.target.Host),
		URL: c.target.Scheme + "://" + c.target.Host + c.target.EscapedPath(), Status: schema.AppX402Calling, CreatedAt: now, UpdatedAt: now}
	err := s.locked(ctx, c, func(tx bun.Tx) error {
		var calls int
		var oldest time.Time
		err := tx.NewRaw("SELECT count(*), coalesce(min(created_at), now()) FROM app_x402_payments WHERE account_id = ? AND app_slug = ? AND visitor = ? AND created_at > ?",
			c.AccountID, c.AppSlug, c.Visitor, now.Add(-time.Minute)).Scan(ctx, &calls, &oldest)
		if err != nil {
			return fmt.Errorf("count the x402 calls of app %s: %w", c.AppSlug, err)
		}
		if calls >= CallsPerMinute {
			retry := max(time.Second, oldest.Add(time.Minute).Sub(now).Round(time.Second))
			return svcerr.New(svcerr.LimitExceeded, "%s: %d calls in the last minute; nothing was called or paid (retry in %s)",
				RuleCallsMinute, calls, retry).WithDetails("rule", RuleCallsMinute).WithDetails("retryAfterSeconds", int(retry.Seconds()))
		}
		if _, err := tx.NewInsert().Model(row).Exec(ctx); err != nil {
			return fmt.Errorf("record the x402 call of app %s: %w", c.AppSlug, err)
		}
		return nil
	})
	return row.ID, err
}

// reserveDaily checks the visitor's daily limit with the offer's price and marks the call paying with
// the offer's terms; past the limit it is a 429 and the row stays calling.
func (s *Service) reserveDaily(ctx context.Context, c *call, id string, o x402.Offer, cents int64) error {
	now := s.cfg.Now()
	return s.locked(ctx, c, func(tx bun.Tx) error {
		var spent int64
		err := tx.NewRaw("SELECT coalesce(sum(amount_cents), 0) FROM app_x402_payments WHERE account_id = ? AND app_slug = ? AND visitor = ? AND status IN (?) AND created_at > ?",
			c.AccountID, c.AppSlug, c.Visitor, bun.List(paying), now.Add(-24*time.Hour)).Scan(ctx, &spent)
		if err != nil {
			return fmt.Errorf("sum the x402 payments of app %s: %w", c.AppSlug, err)
		}
		if spent+cents > DailyCents {
			return svcerr.New(svcerr.LimitExceeded, "%s: $%.2f paid in the last 24 hours plus this $%.2f is above $%.2f; nothing was paid",
				RuleDaily, usdOf(spent), usdOf(cents), usdOf(DailyCents)).WithDetails("rule", RuleDaily).
				WithDetails("spentLast24hUsd", usdOf(spent)).WithDetails("priceUsd", usdOf(cents))
		}
		req := o.Requirements
		_, err = tx.NewUpdate().Model((*schema.AppX402Payment)(nil)).
			Set("status = ?, amount_atomic = ?, amount_cents = ?, network = ?, asset = ?, pay_to = ?, updated_at = ?",
				schema.AppX402Paying, o.Atomic.String(), cents, req.Network, req.Asset, req.PayTo, now).
			Where("id = ?", id).Exec(ctx)
		if err != nil {
			return fmt.Errorf("record the x402 payment %s: %w", id, err)
		}
		return nil
	})
}

// finish records the call's outcome and answers the app: err (a refusal, or a failure of the request)
// or the server's answer with what was paid.
func (s *Service) finish(ctx context.Context, c *call, id string, res *x402.Response, err error) (*Result, error) {
	paid := res != nil && res.Paid != nil
	if err != nil && !paid {
		return nil, s.refused(ctx, c, id, err)
	}
	if err != nil {
		// The payment was signed and sent but no answer came: it may have settled, so it stays counted.
		s.update(ctx, id, schema.AppX402Unsettled, nil, res.Paid, err.Error())
		return nil, svcerr.New(svcerr.UpstreamUnreachable, "the paid request to %s got no answer; the payment may have settled", c.target.Host)
	}
	if !paid {
		s.update(ctx, id, schema.AppX402Free, &res.Status, nil, "")
		return answer(res, nil), nil
	}
	status := schema.AppX402Paid
	switch {
	case res.Paid.Settled():
	case res.Status == http.StatusPaymentRequired:
		status = schema.AppX402Failed
		if rerr := s.cfg.Wallets.ReleasePayment(ctx, c.WalletID, id); rerr != nil {
			s.cfg.Log.Error("apppay: release a refused payment", "payment", id, "err", rerr)
		}
	default:
		status = schema.AppX402Unsettled
	}
	s.update(ctx, id, status, &res.Status, res.Paid, "")
	s.cfg.Log.Info("apppay: x402 payment", "payment", id, "app", c.AppSlug, "host", c.target.Host, "status", status,
		"amountAtomic", res.Paid.Offer.Atomic.String())
	var p *Payment
	if status != schema.AppX402Failed {
		p = &Payment{AmountUsd: atomicUSD(res.Paid.Offer), Network: res.Paid.Offer.Requirements.Network, PayTo: res.Paid.Offer.Requirements.PayTo}
		if res.Paid.Settlement != nil {
			p.Transaction = res.Paid.Settlement.Transaction
		}
	}
	return answer(res, p), nil
}

// refused records a call that paid nothing and answers err as the app sees it.
func (s *Service) refused(ctx context.Context, c *call, id string, err error) error {
	if rerr := s.cfg.Wallets.ReleasePayment(ctx, c.WalletID, id); rerr != nil {
		s.cfg.Log.Error("apppay: release a refused payment", "payment", id, "err", rerr)
	}
	s.update(ctx, id, schema.AppX402Refused, nil, nil, err.Error())
	var se *svcerr.Error
	switch {
	case errors.As(err, &se):
		return se
	case errors.Is(err, x402.ErrAboveCap):
		return svcerr.New(svcerr.Forbidden, "the price is above the cap of $%.2f (min of x402.maxPaymentUsdPerCall and maxPaymentUsd); nothing was paid: %v",
			c.capUSD, err).WithDetails("rule", RulePerCall)
	case errors.Is(err, x402.ErrNoOffer), errors.Is(err, x402.ErrBadPaymentRequired):
		return svcerr.New(svcerr.UpstreamInvalid, "%s asked for a payment the platform cannot make: %v", c.target.Host, err).WithDetails("rule", RuleOffer)
	}
	return svcerr.New(svcerr.UpstreamUnreachable, "the request to %s failed: %v", c.target.Host, err)
}

// update records a call's outcome; a failure is logged (the answer has been decided).
func (s *Service) update(ctx context.Context, id, status string, httpStatus *int, paid *x402.Paid, msg string) {
	q := s.cfg.DB.NewUpdate().Model((*schema.AppX402Payment)(nil)).Set("status = ?, updated_at = ?", status, s.cfg.Now()).Where("id = ?", id)
	if httpStatus != nil {
		q = q.Set("http_status = ?", *httpStatus)
	}
	if msg != "" {
		q = q.Set("error_message = ?", msg)
	}
	if paid != nil {
		q = q.Set("payer = ?", paid.Payload.Payload.Authorization.From)
		if st := paid.Settlement; st != nil {
			receipt, _ := json.Marshal(st)
			q = q.Set("receipt = ?", string(receipt))
			if st.Transaction != "" {
				q = q.Set("tx_hash = ?", st.Transaction)
			}
		}
	}
	if _, err := q.Exec(context.WithoutCancel(ctx)); err != nil {
		s.cfg.Log.Error("apppay: record the outcome of an x402 call", "payment", id, "status", status, "err", err)
	}
}

// answer is the server's answer as the app receives it (the body as text; binary bodies are not
// returned).
func answer(res *x402.Response, p *Payment) *Result {
	body := ""
	if utf8.Valid(res.Body) {
		body = string(res.Body)
	}
	return &Result{Status: res.Status, OK: res.Status >= 200 && res.Status < 300, Body: body, Payment: p}
}

// atomicUSD is an offer's amount in USD (USDC has six decimals).
func atomicUSD(o x402.Offer) float64 {
	f, _ := new(big.Float).Quo(new(big.Float).SetInt(o.Atomic), big.NewFloat(math.Pow10(usdcDecimals))).Float64()
	return f
}
