package trading

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// describeWait bounds the read of a dca order's schedule for its view.
const describeWait = 2 * time.Second

// cronFields parses the 5-field cron expressions of dca orders' every.
var cronFields = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// readEvery checks a dca order's every: a Go duration of at least MinDCAEvery, or a 5-field cron
// expression.
func (s *Service) readEvery(every string) (string, error) {
	every = strings.TrimSpace(every)
	if every == "" {
		return "", svcerr.Invalid("every", "a dca order needs every: a Go duration such as 1h, or a 5-field cron expression")
	}
	least := s.MinDCAEvery
	if least <= 0 {
		least = DefaultMinDCAEvery
	}
	if d, err := time.ParseDuration(every); err == nil {
		if d < least {
			return "", svcerr.Invalid("every", "every is at least %s, not %s", least, d)
		}
		return every, nil
	}
	if _, err := cronFields.Parse(every); err != nil {
		return "", svcerr.Invalid("every", "every is a Go duration such as 1h or a 5-field cron expression such as \"0 9 * * 1\": %v", err)
	}
	return every, nil
}

// dcaSpec is the schedule spec of dca order o's every. An interval counts from the order's creation, not
// from the Unix epoch (Temporal's default): "every 1h" placed at 10:20 fires at 11:20, 12:20, ….
func dcaSpec(o *schema.TradingOrder) sdkclient.ScheduleSpec {
	every := deref(o.Every)
	if d, err := time.ParseDuration(every); err == nil {
		offset := time.Duration(o.CreatedAt.UnixNano() % int64(d))
		return sdkclient.ScheduleSpec{Intervals: []sdkclient.ScheduleIntervalSpec{{Every: d, Offset: offset}}}
	}
	return sdkclient.ScheduleSpec{CronExpressions: []string{every}}
}

// startDCA creates dca order o's schedule order/<id>, limited to its slices; one created before is
// fine.
func (s *Service) startDCA(ctx context.Context, o *schema.TradingOrder) error {
	if s.Schedules == nil {
		return svcerr.New(svcerr.Unavailable, "this server cannot create schedules")
	}
	_, err := s.Schedules.Create(ctx, sdkclient.ScheduleOptions{
		ID:   workflows.DcaScheduleID(o.ID),
		Spec: dcaSpec(o),
		Action: &sdkclient.ScheduleWorkflowAction{ID: workflows.DcaFireWorkflowID(o.ID), Workflow: workflows.DcaFireWorkflowName,
			Args: []any{workflows.DcaFireParams{OrderID: o.ID}}, TaskQueue: workflows.TaskQueue,
			TypedSearchAttributes: workflows.ResourceAttributes(o.AccountID, o.ProjectID, client.ServiceManagedTrading, client.OpTradingOrdersCreate)},
		RemainingActions: derefInt(o.Slices),
		CatchupWindow:    time.Minute,
		Paused:           o.Paused,
		Note:             fmt.Sprintf("dca %s %s/%s every %s, %d slices (%s) from %s", o.Side, o.Base, o.Quote, deref(o.Every), derefInt(o.Slices), o.ID, o.WalletID),
	})
	if err == nil || errors.Is(err, temporal.ErrScheduleAlreadyRunning) {
		return nil
	}
	return svcerr.New(svcerr.Unavailable, "the workflow engine did not accept the order's schedule: %v", err)
}

// Pause pauses (paused true) or resumes the scope's open dca order id's schedule: no slice is placed
// while it is paused. Another account's order is not found; any other order, or one that has ended,
// is a 409.
func (s *Service) Pause(ctx context.Context, scope tenant.Scope, id string, paused bool) (client.TradingOrder, error) {
	o, err := s.scoped(ctx, scope, id)
	if err != nil {
		return client.TradingOrder{}, err
	}
	verb := pick(paused, "paused", "resumed")
	if o.Type != schema.OrderDCA {
		return client.TradingOrder{}, svcerr.New(svcerr.Conflict, "order %s is a %s order: only dca orders are %s", id, o.Type, verb)
	}
	if Final(o.Status) {
		return client.TradingOrder{}, svcerr.New(svcerr.Conflict, "order %s has ended (%s): it cannot be %s", id, o.Status, verb)
	}
	if s.Schedules == nil {
		return client.TradingOrder{}, svcerr.New(svcerr.Unavailable, "this server cannot reach the order's schedule")
	}
	h := s.Schedules.GetHandle(ctx, workflows.DcaScheduleID(id))
	note := fmt.Sprintf("order %s %s through the API", id, verb)
	if paused {
		err = h.Pause(ctx, sdkclient.SchedulePauseOptions{Note: note})
	} else {
		err = h.Unpause(ctx, sdkclient.ScheduleUnpauseOptions{Note: note})
	}
	if err != nil {
		return client.TradingOrder{}, svcerr.New(svcerr.Unavailable, "the order's schedule was not %s: %v", verb, err)
	}
	o.Paused, o.UpdatedAt = paused, time.Now().UTC()
	if _, err := s.DB.NewUpdate().Model(o).Column("paused", "updated_at").WherePK().Exec(ctx); err != nil {
		return client.TradingOrder{}, fmt.Errorf("record order %s %s: %w", id, verb, err)
	}
	return s.View(ctx, o)
}

// cancelDCA deletes dca order o's schedule and records it cancelled (event order.cancelled): slices
// placed before are kept, and one still running ends as it would.
func (s *Service) cancelDCA(ctx context.Context, o *schema.TradingOrder) error {
	if err := s.deleteSchedule(ctx, o.ID); err != nil {
		return err
	}
	return s.endParent(ctx, o, schema.OrderCancelled, "")
}

// deleteSchedule deletes dca order id's schedule (one gone already is fine).
func (s *Service) deleteSchedule(ctx context.Context, id string) error {
	if s.Schedules == nil {
		return svcerr.New(svcerr.Unavailable, "this server cannot reach the order's schedule")
	}
	err := s.Schedules.GetHandle(ctx, workflows.DcaScheduleID(id)).Delete(ctx)
	var notFound *serviceerror.NotFound
	if err != nil && !errors.As(err, &notFound) {
		return svcerr.New(svcerr.Unavailable, "the order's schedule was not deleted: %v", err)
	}
	return nil
}

// nextFire is dca order o's next fire time, nil when paused, ended or unknown.
func (s *Service) nextFire(ctx context.Context, o *schema.TradingOrder) *time.Time {
	if s.Schedules == nil || o.Paused || Final(o.Status) {
		return nil
	}
	dctx, cancel := context.WithTimeout(ctx, describeWait)
	defer cancel()
	d, err := s.Schedules.GetHandle(dctx, workflows.DcaScheduleID(o.ID)).Describe(dctx)
	if err != nil || len(d.Info.NextActionTimes) == 0 || d.Schedule.State.RemainingActions == 0 && d.Schedule.State.LimitedActions {
		return nil
	}
	t := d.Info.NextActionTimes[0].UTC()
	return &t
}
