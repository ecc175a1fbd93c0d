package automation

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Limits are a tier's automation limits (seed 002's table of tiers).
type Limits struct {
	// Active caps the account's automations that are active or paused.
	Active int64
	// Executions caps the runs one automation starts in its life.
	Executions int64
	// PerDay caps the runs one automation starts in a UTC day.
	PerDay int64
}

// TierLimits are the limits of each tier.
var TierLimits = map[string]Limits{
	schema.TierStandard: {Active: 5, Executions: 100, PerDay: 24},
	schema.TierClub:     {Active: 20, Executions: 1000, PerDay: 100},
}

// limitsOf are the limits of tier (standard's for an unknown one).
func limitsOf(tier string) Limits {
	if l, ok := TierLimits[tier]; ok {
		return l
	}
	return TierLimits[schema.TierStandard]
}

// Store keeps automations' rows.
type Store struct {
	db *bun.DB
}

// NewStore returns a Store on db.
func NewStore(db *bun.DB) *Store { return &Store{db: db} }

// DB is the store's database.
func (s *Store) DB() *bun.DB { return s.db }

// Insert records a new automation under the account's lock, refusing one past the tier's count of
// automations that are active or paused (429 limit_exceeded naming automations.active). A replayed
// request (the same id) answers the row recorded before; created says whether this call made it, and
// limits are the account's tier's, read under the lock.
func (s *Store) Insert(ctx context.Context, a *schema.Automation) (row *schema.Automation, limits Limits, created bool, err error) {
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var tier string
		if err := tx.NewSelect().Model((*schema.Account)(nil)).Column("tier").Where("id = ?", a.AccountID).For("UPDATE").
			Scan(ctx, &tier); err != nil {
			return fmt.Errorf("lock account %s: %w", a.AccountID, err)
		}
		limits = limitsOf(tier)
		existing := new(schema.Automation)
		err := tx.NewSelect().Model(existing).Where("id = ?", a.ID).Scan(ctx)
		if err == nil {
			row = existing
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read automation %s: %w", a.ID, err)
		}
		live, err := tx.NewSelect().Model((*schema.Automation)(nil)).Where("account_id = ?", a.AccountID).
			Where("status IN (?, ?) AND deleted_at IS NULL", schema.AutomationActive, schema.AutomationPaused).Count(ctx)
		if err != nil {
			return fmt.Errorf("count automations: %w", err)
		}
		if int64(live) >= limits.Active {
			return svcerr.New(svcerr.LimitExceeded, "the %s tier allows %d active automations, and this account has %d: cancel or delete one first",
				tier, limits.Active, live).WithDetails("operation", "automations.active").WithDetails("limit", limits.Active)
		}
		if _, err := tx.NewInsert().Model(a).Returning("*").Exec(ctx); err != nil {
			return fmt.Errorf("record automation: %w", err)
		}
		row, created = a, true
		return nil
	})
	return row, limits, created, err
}

// Remove deletes a row Insert made whose schedule could not be created, as if it never was.
func (s *Store) Remove(ctx context.Context, id string) error {
	_, err := s.db.NewDelete().Model((*schema.Automation)(nil)).Where("id = ?", id).Exec(ctx)
	return err
}

// errNotFound answers an automation the caller's scope does not have.
func errNotFound(id string) error { return svcerr.NotFoundf("automation %s not found", id) }

// Get reads the scope's automation id; a deleted one, or another scope's, is not found.
func (s *Store) Get(ctx context.Context, scope tenant.Scope, id string) (*schema.Automation, error) {
	a := new(schema.Automation)
	err := scope.Where(s.db.NewSelect().Model(a)).Where("id = ? AND deleted_at IS NULL", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("read automation %s: %w", id, err)
	}
	return a, nil
}

// List answers the scope's automations (of these statuses, when any), newest first, a page at a time.
func (s *Store) List(ctx context.Context, scope tenant.Scope, statuses []string, p page.Params) ([]schema.Automation, *string, error) {
	out := []schema.Automation{}
	q := scope.Where(s.db.NewSelect().Model(&out)).Where("deleted_at IS NULL")
	if len(statuses) > 0 {
		q = q.Where("status IN (?)", bun.List(statuses))
	}
	if p.After != nil {
		q = q.Where("(created_at, id) < (?, ?)", p.After.CreatedAt, p.After.ID)
	}
	if err := q.OrderExpr("created_at DESC, id DESC").Limit(int64(p.Limit + 1)).Scan(ctx); err != nil {
		return nil, nil, fmt.Errorf("list automations: %w", err)
	}
	out, next := page.Next(p, out, func(a schema.Automation) page.Cursor { return page.Cursor{CreatedAt: a.CreatedAt, ID: a.ID} })
	return out, next, nil
}

// Save writes the columns of a that changed (status, note, definition fields), bumping updated_at.
func (s *Store) Save(ctx context.Context, a *schema.Automation, columns ...string) error {
	a.UpdatedAt = time.Now().UTC()
	_, err := s.db.NewUpdate().Model(a).Column(append(columns, "updated_at")...).WherePK().Exec(ctx)
	if err != nil {
		return fmt.Errorf("update automation %s: %w", a.ID, err)
	}
	return nil
}

// SetStatus moves a to status with note, recording automation.paused when it pauses.
func (s *Store) SetStatus(ctx context.Context, a *schema.Automation, status, note string) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		was := a.Status
		a.Status, a.Note, a.UpdatedAt = status, note, time.Now().UTC()
		if _, err := tx.NewUpdate().Model(a).Column("status", "note", "updated_at").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("update automation %s: %w", a.ID, err)
		}
		if status != schema.AutomationPaused || was == schema.AutomationPaused {
			return nil
		}
		tier, err := tierOf(ctx, tx, a.AccountID)
		if err != nil {
			return err
		}
		return outbox.Emit(ctx, tx, pausedEvent(a, limitsOf(tier)))
	})
}

// pausedEvent is automation.paused for a pause of a (under the tier's limits l): one per pause (its
// subject names the time).
func pausedEvent(a *schema.Automation, l Limits) outbox.Event {
	return outbox.Event{AccountID: a.AccountID, ProjectID: a.ProjectID, Type: outbox.AutomationPaused,
		Subject: a.ID + "@" + a.UpdatedAt.Format(time.RFC3339Nano), Data: ToWire(a, l, Extra{Counts: rowCounts(a)})}
}

// rowCounts are the counts the row itself holds (runs started and skipped), without a query.
func rowCounts(a *schema.Automation) client.AutomationCounts {
	return client.AutomationCounts{RunsStarted: a.Executions, RunsSkipped: a.Skipped}
}

// Counts answers the run counts of automation id: runs started, failed, and the runs of today.
func (s *Store) counts(ctx context.Context, a *schema.Automation) (client.AutomationCounts, error) {
	c := rowCounts(a)
	today := time.Now().UTC().Truncate(24 * time.Hour)
	if a.Day != nil && a.Day.UTC().Equal(today) {
		c.RunsToday = int64(a.DayRuns)
	}
	n, err := s.db.NewSelect().Model((*schema.Run)(nil)).Where("automation_id = ? AND status = ?", a.ID, client.RunFailed).Count(ctx)
	if err != nil {
		return c, fmt.Errorf("count the failed runs of automation %s: %w", a.ID, err)
	}
	c.RunsFailed = int64(n)
	return c, nil
}

// recentRuns answers the automation's latest runs, newest first.
func (s *Store) recentRuns(ctx context.Context, id string, n int) ([]client.AutomationRun, error) {
	var rows []schema.Run
	if err := s.db.NewSelect().Model(&rows).Column("id", "status", "scheduled_at", "created_at").Where("automation_id = ?", id).
		OrderExpr("created_at DESC, id DESC").Limit(int64(n)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("list the runs of automation %s: %w", id, err)
	}
	out := make([]client.AutomationRun, 0, len(rows))
	for _, r := range rows {
		ar := client.AutomationRun{RunID: r.ID, Status: r.Status, CreatedAt: r.CreatedAt.UTC()}
		if r.ScheduledAt != nil {
			ar.ScheduledAt = r.ScheduledAt.UTC()
		}
		out = append(out, ar)
	}
	return out, nil
}

// tierOf answers the account's tier.
func tierOf(ctx context.Context, db bun.IDB, accountID string) (string, error) {
	var tier string
	if err := db.NewSelect().Model((*schema.Account)(nil)).Column("tier").Where("id = ?", accountID).Scan(ctx, &tier); err != nil {
		return "", fmt.Errorf("read the tier of %s: %w", accountID, err)
	}
	return tier, nil
}

// Extra is what an answer adds to a row: counts, next fire times and recent runs.
type Extra struct {
	Counts        client.AutomationCounts
	NextFireTimes []time.Time
	RecentRuns    []client.AutomationRun
}

// ToWire is the automation as the API shows it.
func ToWire(a *schema.Automation, l Limits, x Extra) client.Automation {
	out := client.Automation{ID: a.ID, Name: a.Name, Cron: a.Cron, Timezone: a.Timezone, Overlap: a.Overlap, Status: a.Status,
		Note: a.Note, StartAt: a.StartAt, EndAt: a.EndAt, ProjectID: a.ProjectID, ScheduleID: workflows.AutomationScheduleID(a.ID),
		Action: client.AutomationAction{ServiceID: a.ServiceID, OperationID: a.OperationID, Input: map[string]any{}},
		Counts: x.Counts, Limits: client.AutomationLimits{Executions: l.Executions, RunsPerDay: l.PerDay},
		LastFireAt: a.LastFireAt, NextFireTimes: x.NextFireTimes, RecentRuns: x.RecentRuns,
		CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC()}
	_ = json.Unmarshal(a.Input, &out.Action.Input)
	out.App = appScriptInput(a).App
	if out.NextFireTimes == nil {
		out.NextFireTimes = []time.Time{}
	}
	return out
}
