// Package club keeps Club subscriptions (seed 002, issue 25): 20 USD a month or 198 USD a year, paid
// from credits at the catalog's rate (catalog.CreditsPerUSD), setting the account's tier to club, which
// every tier limit reads. Workflow club/<accountId> renews a subscription on a durable timer at the end of
// each period; a renewal the credits cannot pay returns the account to standard and emits club.lapsed.
//
// Exactly once: every charge's ledger reference is club:<accountId>:<generation>:<period>, where
// generation counts the subscriptions the account started and period the periods of this one, so a
// retried subscribe or renewal posts once; a renewal's row update is conditional on the period it renews.
package club

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/uptrace/bun"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Periods a subscription is paid for.
const (
	PeriodMonth = "month"
	PeriodYear  = "year"
)

// Prices in USD (seed 002).
const (
	MonthUSD = 20
	YearUSD  = 198
)

// Statuses of a subscription.
const (
	// StatusActive: paid to period_end and renewing then.
	StatusActive = "active"
	// StatusCancelled: paid to period_end, not renewing (POST /v1/club/cancel).
	StatusCancelled = "cancelled"
	// StatusLapsed: a renewal could not be paid; the account is standard again.
	StatusLapsed = "lapsed"
	// StatusEnded: a cancelled subscription reached its period's end.
	StatusEnded = "ended"
)

// Events a subscription emits.
const (
	EventRenewed = outbox.ClubRenewed
	EventLapsed  = outbox.ClubLapsed
)

// Price is the period's price in millicredits.
func Price(period string) int64 {
	usd := int64(MonthUSD)
	if period == PeriodYear {
		usd = YearUSD
	}
	return usd * catalog.CreditsPerUSD * 1000
}

// Next is the end of a period of the given length starting at start (calendar months and years, UTC).
func Next(period string, start time.Time) time.Time {
	if period == PeriodYear {
		return start.UTC().AddDate(1, 0, 0)
	}
	return start.UTC().AddDate(0, 1, 0)
}

// Reference is the ledger reference of a subscription's charge for one period.
func Reference(accountID string, generation, period int) string {
	return "club:" + accountID + ":" + strconv.Itoa(generation) + ":" + strconv.Itoa(period)
}

// Subscription is the club_subscriptions row.
type Subscription struct {
	bun.BaseModel `bun:"table:club_subscriptions"`

	AccountID         string    `bun:"account_id,pk"`
	Period            string    `bun:"period"`
	Status            string    `bun:"status"`
	PeriodStart       time.Time `bun:"period_start"`
	PeriodEnd         time.Time `bun:"period_end"`
	PeriodNumber      int       `bun:"period_number"`
	Generation        int       `bun:"generation"`
	CancelAtPeriodEnd bool      `bun:"cancel_at_period_end"`
	CreatedAt         time.Time `bun:"created_at,nullzero,default:now()"`
	UpdatedAt         time.Time `bun:"updated_at,nullzero,default:now()"`
}

// Store reads and changes subscriptions.
type Store struct {
	db *bun.DB
	// afterCharge, when set, runs between a renewal's charge and its record (a crash test's fault).
	afterCharge func(context.Context)
}

// WithAfterCharge makes Renew call f between a renewal's charge and its record: the crash test stalls
// a worker there to kill it. Never set it in production. It returns s.
func (s *Store) WithAfterCharge(f func(context.Context)) *Store {
	s.afterCharge = f
	return s
}

// NewStore returns a Store on db.
func NewStore(db *bun.DB) *Store { return &Store{db: db} }

// Get answers the account's subscription, or nil when it never subscribed.
func (s *Store) Get(ctx context.Context, accountID string) (*Subscription, error) {
	sub := new(Subscription)
	err := s.db.NewSelect().Model(sub).Where("account_id = ?", accountID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read club subscription: %w", err)
	}
	return sub, nil
}

// HasEmbeddedWallet reports whether the account has a managed wallet (seed 002: Club needs an embedded
// wallet; an account with external wallets only cannot subscribe).
func HasEmbeddedWallet(ctx context.Context, db bun.IDB, accountID string) (bool, error) {
	var ok bool
	if err := db.NewRaw("SELECT EXISTS (SELECT 1 FROM wallets WHERE account_id = ?)", accountID).Scan(ctx, &ok); err != nil {
		return false, fmt.Errorf("look for a managed wallet: %w", err)
	}
	return ok, nil
}

// Subscribe starts (or, for a cancelled subscription still in its period, resumes) the account's Club
// membership: it charges the first period and sets the tier to club. The caller starts the workflow.
// A subscription that is active is a conflict. The charge is posted once however often a failed
// subscribe is retried: its reference is that of the next generation's first period until the row is
// written.
func (s *Store) Subscribe(ctx context.Context, accountID, period string, now time.Time) (*Subscription, error) {
	if period != PeriodMonth && period != PeriodYear {
		return nil, svcerr.Invalid("period", "period must be %q or %q", PeriodMonth, PeriodYear)
	}
	ok, err := HasEmbeddedWallet(ctx, s.db, accountID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, svcerr.New(svcerr.InvalidRequest, "Club needs an embedded wallet: create a managed wallet (POST /v1/wallets) first; external wallets cannot subscribe").
			WithDetails("requires", "managed_wallet")
	}
	cur, err := s.Get(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if cur != nil && cur.PeriodEnd.After(now) && (cur.Status == StatusActive || cur.Status == StatusCancelled) {
		if cur.Status == StatusActive {
			return nil, svcerr.New(svcerr.Conflict, "this account is a Club member until %s and renews then", cur.PeriodEnd.UTC().Format(time.RFC3339)).
				WithDetails("renewsAt", cur.PeriodEnd.UTC())
		}
		// Resubscribing during a cancelled period resumes the renewal; nothing is charged now.
		_, err := s.db.NewUpdate().Model((*Subscription)(nil)).Set("status = ?, cancel_at_period_end = false, updated_at = now()", StatusActive).
			Where("account_id = ? AND status = ?", accountID, StatusCancelled).Exec(ctx)
		if err != nil {
			return nil, fmt.Errorf("resume club subscription: %w", err)
		}
		return s.Get(ctx, accountID)
	}
	generation := 1
	if cur != nil {
		generation = cur.Generation + 1
	}
	if err := ledger.New(s.db).Charge(ctx, accountID, Price(period), Reference(accountID, generation, 1)); err != nil {
		return nil, err
	}
	sub := &Subscription{AccountID: accountID, Period: period, Status: StatusActive, PeriodStart: now.UTC(),
		PeriodEnd: Next(period, now), PeriodNumber: 1, Generation: generation}
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(sub).On("CONFLICT (account_id) DO UPDATE").
			Set("period = EXCLUDED.period, status = EXCLUDED.status, period_start = EXCLUDED.period_start, period_end = EXCLUDED.period_end").
			Set("period_number = 1, generation = EXCLUDED.generation, cancel_at_period_end = false, updated_at = now()").
			Exec(ctx); err != nil {
			return fmt.Errorf("record club subscription: %w", err)
		}
		return file.SetTier(ctx, tx, accountID, schema.TierClub)
	})
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, accountID)
}

// Cancel stops the renewal at the end of the current period; the account stays club until then.
func (s *Store) Cancel(ctx context.Context, accountID string) (*Subscription, error) {
	res, err := s.db.NewUpdate().Model((*Subscription)(nil)).Set("status = ?, cancel_at_period_end = true, updated_at = now()", StatusCancelled).
		Where("account_id = ? AND status IN (?, ?)", accountID, StatusActive, StatusCancelled).Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("cancel club subscription: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, svcerr.NotFoundf("this account has no Club subscription to cancel")
	}
	return s.Get(ctx, accountID)
}

// Outcomes of a renewal.
const (
	OutcomeRenewed = "renewed"
	OutcomeLapsed  = "lapsed"
	OutcomeEnded   = "ended"
	// OutcomeGone: the subscription is not the one the workflow renews any more (resubscribed after a
	// lapse, say); the workflow stops without touching it.
	OutcomeGone = "gone"
)

// Renew ends the period that ends at periodEnd: a cancelled subscription ends (tier standard), an
// active one is charged for the next period (club.renewed) or, when the credits cannot pay, lapses
// (tier standard, club.lapsed). Retrying it after it committed answers the same outcome without a
// second charge. It answers the outcome and the subscription as it is after.
func (s *Store) Renew(ctx context.Context, accountID string, generation int, periodEnd time.Time) (string, *Subscription, error) {
	cur, err := s.Get(ctx, accountID)
	if err != nil {
		return "", nil, err
	}
	if cur == nil || cur.Generation != generation {
		return OutcomeGone, cur, nil
	}
	if !cur.PeriodEnd.Equal(periodEnd) {
		// An earlier attempt renewed, lapsed or ended this period already.
		switch {
		case cur.PeriodEnd.After(periodEnd):
			return OutcomeRenewed, cur, nil
		case cur.Status == StatusLapsed:
			return OutcomeLapsed, cur, nil
		}
		return OutcomeEnded, cur, nil
	}
	switch cur.Status {
	case StatusLapsed:
		return OutcomeLapsed, cur, nil
	case StatusEnded:
		return OutcomeEnded, cur, nil
	case StatusCancelled:
		err := s.end(ctx, cur, StatusEnded, "")
		return OutcomeEnded, cur, err
	}
	next := cur.PeriodNumber + 1
	err = ledger.New(s.db).Charge(ctx, accountID, Price(cur.Period), Reference(accountID, generation, next))
	if svcerr.Is(err, svcerr.InsufficientCredits) {
		err := s.end(ctx, cur, StatusLapsed, EventLapsed)
		return OutcomeLapsed, cur, err
	}
	if err != nil {
		return "", nil, fmt.Errorf("charge club renewal: %w", err)
	}
	if s.afterCharge != nil {
		s.afterCharge(ctx)
	}
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*Subscription)(nil)).
			Set("period_start = period_end, period_end = ?, period_number = ?, updated_at = now()", Next(cur.Period, cur.PeriodEnd), next).
			Where("account_id = ? AND generation = ? AND period_end = ? AND status = ?", accountID, generation, periodEnd, StatusActive).Exec(ctx)
		if err != nil {
			return fmt.Errorf("record club renewal: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		after := *cur
		after.PeriodStart, after.PeriodEnd, after.PeriodNumber = cur.PeriodEnd, Next(cur.Period, cur.PeriodEnd), next
		return outbox.Emit(ctx, tx, outbox.Event{AccountID: accountID, Type: EventRenewed,
			Subject: Reference(accountID, generation, next), Data: ToWire(&after, schema.TierClub)})
	})
	if err != nil {
		return "", nil, err
	}
	cur, err = s.Get(ctx, accountID)
	return OutcomeRenewed, cur, err
}

// end closes the subscription with status (ended or lapsed), returns the account to standard and, with
// event set, emits it; all in one transaction, conditional on the period still being the one ending.
func (s *Store) end(ctx context.Context, cur *Subscription, status, event string) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*Subscription)(nil)).Set("status = ?, updated_at = now()", status).
			Where("account_id = ? AND generation = ? AND period_end = ? AND status IN (?, ?)", cur.AccountID, cur.Generation, cur.PeriodEnd,
				StatusActive, StatusCancelled).Exec(ctx)
		if err != nil {
			return fmt.Errorf("end club subscription: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		if err := file.SetTier(ctx, tx, cur.AccountID, schema.TierStandard); err != nil {
			return err
		}
		if event == "" {
			return nil
		}
		after := *cur
		after.Status = status
		return outbox.Emit(ctx, tx, outbox.Event{AccountID: cur.AccountID, Type: event,
			Subject: Reference(cur.AccountID, cur.Generation, cur.PeriodNumber+1), Data: ToWire(&after, schema.TierStandard)})
	})
}

// ToWire is the subscription as the API shows it, with the account's tier.
func ToWire(sub *Subscription, tier string) client.ClubStatus {
	out := client.ClubStatus{Tier: tier, Member: tier == schema.TierClub}
	if sub == nil {
		out.Status = "none"
		return out
	}
	out.Status, out.Period, out.PeriodStart = sub.Status, sub.Period, ptrTime(sub.PeriodStart)
	switch sub.Status {
	case StatusActive:
		out.RenewsAt = ptrTime(sub.PeriodEnd)
		out.PriceCredits = ledger.FormatCredits(Price(sub.Period))
	default:
		out.EndsAt = ptrTime(sub.PeriodEnd)
	}
	return out
}

func ptrTime(t time.Time) *time.Time {
	u := t.UTC()
	return &u
}

// Tier answers the account's tier.
func (s *Store) Tier(ctx context.Context, accountID string) (string, error) {
	var tier string
	if err := s.db.NewRaw("SELECT tier FROM accounts WHERE id = ?", accountID).Scan(ctx, &tier); err != nil {
		return "", fmt.Errorf("read tier: %w", err)
	}
	return tier, nil
}

// Engine starts workflows (the Temporal client).
type Engine interface {
	ExecuteWorkflow(ctx context.Context, options sdkclient.StartWorkflowOptions, workflow any, args ...any) (sdkclient.WorkflowRun, error)
	SignalWorkflow(ctx context.Context, workflowID, runID, signalName string, arg any) error
}

// Notify wakes the account's renewal workflow to read its subscription again (after a cancel); a
// workflow that is not running has nothing to read.
func Notify(ctx context.Context, engine Engine, accountID string) error {
	err := engine.SignalWorkflow(ctx, workflows.ClubWorkflowID(accountID), "", workflows.ClubChangedSignal, nil)
	var missing *serviceerror.NotFound
	if err != nil && !errors.As(err, &missing) {
		return fmt.Errorf("notify club renewals of %s: %w", accountID, err)
	}
	return nil
}

// Start starts the account's renewal workflow club/<accountId>, or leaves the running one: a workflow
// still waiting for a cancelled period's end finds the resumed subscription itself.
func Start(ctx context.Context, engine Engine, accountID string) error {
	opts := sdkclient.StartWorkflowOptions{
		ID: workflows.ClubWorkflowID(accountID), TaskQueue: workflows.TaskQueue,
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}
	if _, err := engine.ExecuteWorkflow(ctx, opts, workflows.ClubWorkflowName, workflows.ClubParams{AccountID: accountID}); err != nil {
		return fmt.Errorf("start club renewals of %s: %w", accountID, err)
	}
	return nil
}
