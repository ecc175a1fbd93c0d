package delivery

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// LoopBatch is how many due deliveries one batch of an endpoint's loop claims.
const LoopBatch = 200

// LoopConcurrency bounds how many attempts of one endpoint are in flight at once: a slow endpoint holds
// at most this many of its own deliveries, and no other endpoint's.
const LoopConcurrency = 32

// Outcome is the attempt made for one claimed delivery.
type Outcome struct {
	Delivery *schema.WebhookDelivery
	Result   Result
}

// Webhook returns the endpoint with the id, whatever its scope (for the loop's activity).
func (s *Store) Webhook(ctx context.Context, id string) (*schema.Webhook, error) {
	w := new(schema.Webhook)
	if err := s.db.NewSelect().Model(w).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("load webhook %s: %w", id, err)
	}
	return w, nil
}

// Claim leases up to limit of the endpoint's deliveries that are due at now to owner until until, the
// earliest due first, and returns them. Deliveries leased to another owner are skipped until their
// lease ends; those leased to owner (the same activity retried after a crash) are taken back at once,
// before any other (they were at most limit, so a retry takes back every one of them: none is left
// leased to an activity that has finished).
func (s *Store) Claim(ctx context.Context, webhookID, owner string, now, until time.Time, limit int) ([]schema.WebhookDelivery, error) {
	var ds []schema.WebhookDelivery
	err := s.db.NewRaw(`UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?
		WHERE id IN (SELECT id FROM webhook_deliveries
			WHERE webhook_id = ? AND status = ? AND next_attempt_at IS NOT NULL AND next_attempt_at <= ?
				AND (lease_until IS NULL OR lease_until <= ? OR lease_owner = ?)
			ORDER BY lease_owner IS NOT DISTINCT FROM ? DESC, next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED)
		RETURNING *`, owner, until.UTC(), webhookID, StatusPending, now.UTC(), now.UTC(), owner, owner, limit).Scan(ctx, &ds)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("claim deliveries of webhook %s: %w", webhookID, err)
	}
	return ds, nil
}

// Release ends every lease owner still holds on the endpoint's pending deliveries (a batch that has
// recorded its outcomes holds none; this makes sure no lease outlives its batch).
func (s *Store) Release(ctx context.Context, webhookID, owner string) error {
	_, err := s.db.NewUpdate().Table("webhook_deliveries").Set("lease_owner = NULL").Set("lease_until = NULL").
		Where("webhook_id = ? AND lease_owner = ? AND status = ?", webhookID, owner, StatusPending).Exec(ctx)
	if err != nil {
		return fmt.Errorf("release the leases of %s on webhook %s: %w", owner, webhookID, err)
	}
	return nil
}

// Events returns the events with the ids, by id.
func (s *Store) Events(ctx context.Context, ids []string) (map[string]*schema.Event, error) {
	var evs []schema.Event
	if err := s.db.NewSelect().Model(&evs).Where("id IN (?)", bun.List(ids)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("load events: %w", err)
	}
	out := make(map[string]*schema.Event, len(evs))
	for i := range evs {
		out[evs[i].ID] = &evs[i]
	}
	return out, nil
}

// Waiting reports how many of the endpoint's loop deliveries are pending and how long until the
// earliest of them is due (0 when due now; a delivery leased to another activity counts from its
// lease's end).
func (s *Store) Waiting(ctx context.Context, webhookID string, now time.Time) (int, time.Duration, error) {
	var row struct {
		N    int        `bun:"n"`
		Next *time.Time `bun:"next"`
	}
	err := s.db.NewRaw(`SELECT count(*) AS n, min(GREATEST(next_attempt_at, COALESCE(lease_until, next_attempt_at))) AS next
		FROM webhook_deliveries WHERE webhook_id = ? AND status = ? AND next_attempt_at IS NOT NULL`,
		webhookID, StatusPending).Scan(ctx, &row)
	if err != nil {
		return 0, 0, fmt.Errorf("count waiting deliveries of webhook %s: %w", webhookID, err)
	}
	if row.Next == nil {
		return row.N, 0, nil
	}
	return row.N, max(0, row.Next.Sub(now)), nil
}

// FailPending ends every pending loop delivery of a disabled endpoint failed, in db.
func FailPending(ctx context.Context, db bun.IDB, webhookID string) error {
	_, err := db.NewUpdate().Table("webhook_deliveries").
		Set("status = ?", StatusFailed).Set("completed_at = now()").Set("updated_at = now()").
		Set("lease_owner = NULL").Set("lease_until = NULL").
		Where("webhook_id = ? AND status = ? AND next_attempt_at IS NOT NULL", webhookID, StatusPending).Exec(ctx)
	if err != nil {
		return fmt.Errorf("fail pending deliveries of webhook %s: %w", webhookID, err)
	}
	return nil
}

// RecordBatch records the attempts of one batch of the endpoint w in one transaction: the attempt rows
// (copied in with COPY; see recordBatch), each delivery's outcome (succeeded; failed when the schedule
// is exhausted; else pending with its next due time, RetryDelay scaled by scale, from now), and what the
// attempts teach about the endpoint (see RecordAttempt). A disabled endpoint's pending deliveries all
// end failed. It reports whether the endpoint is now disabled.
func (s *Store) RecordBatch(ctx context.Context, w *schema.Webhook, outs []Outcome, scale float64, now time.Time) (bool, error) {
	if len(outs) == 0 {
		return false, nil
	}
	if db, ok := s.db.(*bun.DB); ok {
		disabled, err := recordBatchByCopy(ctx, db, w, outs, scale, now)
		if !errors.Is(err, errAttemptRecorded) {
			return disabled, err
		}
	}
	var disabled bool
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		disabled, err = recordBatch(ctx, tx, w, outs, scale, now, upsertAttempts)
		return err
	})
	return disabled, err
}

// errAttemptRecorded is a COPY of attempts refused because one of them has a row already.
var errAttemptRecorded = errors.New("an attempt of the batch is recorded already")

// recordBatchByCopy records the batch in one transaction on one connection of db, the attempts copied
// in with COPY FROM STDIN on that connection (inside the transaction, so all or nothing is recorded).
// COPY cannot overwrite: when an attempt has a row already (two batches held the same delivery, the
// first past its lease) the transaction rolls back and it returns errAttemptRecorded, for the caller to
// record the batch again with upsertAttempts.
func recordBatchByCopy(ctx context.Context, db *bun.DB, w *schema.Webhook, outs []Outcome, scale float64, now time.Time) (bool, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return false, fmt.Errorf("take a connection to record %d attempts: %w", len(outs), err)
	}
	defer conn.Close()
	var disabled bool
	err = conn.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		disabled, err = recordBatch(ctx, tx, w, outs, scale, now, func(ctx context.Context, _ bun.Tx, outs []Outcome) error {
			return copyAttempts(ctx, conn, outs)
		})
		return err
	})
	return disabled, err
}

// recordBatch records the batch in tx, its attempts by insert.
func recordBatch(ctx context.Context, tx bun.Tx, w *schema.Webhook, outs []Outcome, scale float64, now time.Time,
	insert func(context.Context, bun.Tx, []Outcome) error) (bool, error) {
	if err := insert(ctx, tx, outs); err != nil {
		return false, err
	}
	if err := updateOutcomes(ctx, tx, outs, scale, now); err != nil {
		return false, err
	}
	disabled, err := applyToEndpoint(ctx, tx, w, outs)
	if err != nil || !disabled {
		return disabled, err
	}
	return true, FailPending(ctx, tx, w.ID)
}

// attemptColumns are the columns copyAttempts writes, in the order of encodeAttempt.
const attemptColumns = "delivery_id, number, started_at, http_status, latency_ms, error"

// copyAttempts writes the batch's attempt rows with COPY FROM STDIN on conn (in its open transaction).
func copyAttempts(ctx context.Context, conn bun.Conn, outs []Outcome) error {
	var buf bytes.Buffer
	for _, o := range outs {
		encodeAttempt(&buf, o.Delivery.ID, o.Result.Attempt)
	}
	_, err := pgdriver.CopyFrom(ctx, conn, &buf, "COPY webhook_attempts ("+attemptColumns+") FROM STDIN")
	if pg.SQLState(err) == sqlStateUniqueViolation {
		return fmt.Errorf("copy %d attempts: %w: %w", len(outs), errAttemptRecorded, err)
	}
	if err != nil {
		return fmt.Errorf("copy %d attempts: %w", len(outs), err)
	}
	return nil
}

// sqlStateUniqueViolation is PostgreSQL's unique_violation.
const sqlStateUniqueViolation = "23505"

// encodeAttempt writes one attempt row in COPY's text format: tab-separated, \N for NULL.
func encodeAttempt(buf *bytes.Buffer, deliveryID string, a Attempt) {
	status, failure := `\N`, `\N`
	if a.HTTPStatus != 0 {
		status = strconv.Itoa(a.HTTPStatus)
	}
	if a.Error != "" {
		failure = copyEscaper.Replace(a.Error)
	}
	fields := []string{copyEscaper.Replace(deliveryID), strconv.Itoa(a.Number), a.StartedAt.UTC().Format(time.RFC3339Nano),
		status, strconv.FormatInt(a.Latency.Milliseconds(), 10), failure}
	buf.WriteString(strings.Join(fields, "\t"))
	buf.WriteByte('\n')
}

// copyEscaper escapes what COPY's text format reads specially in a field.
var copyEscaper = strings.NewReplacer("\\", "\\\\", "\t", "\\t", "\n", "\\n", "\r", "\\r")

// upsertAttempts writes the batch's attempt rows in one multi-row insert; an attempt recorded before is
// overwritten.
func upsertAttempts(ctx context.Context, tx bun.Tx, outs []Outcome) error {
	rows := make([]schema.WebhookAttempt, len(outs))
	for i, o := range outs {
		a := o.Result.Attempt
		rows[i] = schema.WebhookAttempt{DeliveryID: o.Delivery.ID, Number: a.Number, StartedAt: a.StartedAt.UTC(), LatencyMs: a.Latency.Milliseconds()}
		if a.HTTPStatus != 0 {
			rows[i].HTTPStatus = &a.HTTPStatus
		}
		if a.Error != "" {
			rows[i].Error = &a.Error
		}
	}
	_, err := tx.NewInsert().Model(&rows).
		On("CONFLICT (delivery_id, number) DO UPDATE").
		Set("started_at = EXCLUDED.started_at, http_status = EXCLUDED.http_status, latency_ms = EXCLUDED.latency_ms, error = EXCLUDED.error").
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("record %d attempts: %w", len(rows), err)
	}
	return nil
}

// updateOutcomes sets each delivery's status, attempt count and next due time in one statement; a
// delivery no longer pending keeps what it has (it succeeded exactly once).
func updateOutcomes(ctx context.Context, tx bun.Tx, outs []Outcome, scale float64, now time.Time) error {
	n := len(outs)
	ids, statuses, counts, nexts := make([]string, n), make([]string, n), make([]int64, n), make([]time.Time, n)
	for i, o := range outs {
		a := o.Result.Attempt
		ids[i], counts[i], nexts[i] = o.Delivery.ID, int64(a.Number), now.UTC()
		switch {
		case a.Succeeded():
			statuses[i] = StatusSucceeded
		case a.Number > len(workflows.DeliverySchedule):
			statuses[i] = StatusFailed
		default:
			statuses[i] = StatusPending
			nexts[i] = now.Add(workflows.ScaledRetryDelay(o.Delivery.ID, a.Number, o.Result.RetryAfter, scale)).UTC()
		}
	}
	_, err := tx.NewRaw(`UPDATE webhook_deliveries AS d SET status = v.status, attempt_count = v.n, next_attempt_at = v.next,
			completed_at = CASE WHEN v.status = ? THEN NULL ELSE now() END, updated_at = now(), lease_owner = NULL, lease_until = NULL
		FROM unnest(?::text[], ?::text[], ?::bigint[], ?::timestamptz[]) AS v(id, status, n, next)
		WHERE d.id = v.id AND d.status = ?`, StatusPending,
		pgdialect.Array(ids), pgdialect.Array(statuses), pgdialect.Array(counts), pgdialect.Array(nexts), StatusPending).Exec(ctx)
	if err != nil {
		return fmt.Errorf("record %d delivery outcomes: %w", n, err)
	}
	return nil
}

// applyToEndpoint applies a batch's attempts to the endpoint as RecordAttempt does one at a time: a
// success ends the failing streak; the failures after the batch's last success continue it (from the
// earliest of them), and 410 Gone or a streak of FailingLimit disables the endpoint.
func applyToEndpoint(ctx context.Context, tx bun.Tx, w *schema.Webhook, outs []Outcome) (bool, error) {
	var lastSuccess time.Time
	var fails []Outcome
	for _, o := range outs {
		if o.Result.Succeeded() && o.Result.StartedAt.After(lastSuccess) {
			lastSuccess = o.Result.StartedAt
		}
	}
	for _, o := range outs {
		if !o.Result.Succeeded() && (o.Result.StartedAt.After(lastSuccess) || o.Result.HTTPStatus == 410) {
			fails = append(fails, o)
		}
	}
	if !lastSuccess.IsZero() {
		_, err := tx.NewUpdate().Table("webhooks").Set("failing_since = NULL").
			Where("id = ? AND failing_since IS NOT NULL", w.ID).Exec(ctx)
		if err != nil {
			return false, fmt.Errorf("reset webhook %s failing streak: %w", w.ID, err)
		}
	}
	if len(fails) == 0 {
		return false, nil
	}
	slices.SortStableFunc(fails, func(a, b Outcome) int { return a.Result.StartedAt.Compare(b.Result.StartedAt) })
	if i := slices.IndexFunc(fails, func(o Outcome) bool { return o.Result.HTTPStatus == 410 }); i >= 0 {
		return failed(ctx, tx, fails[i].Delivery, fails[i].Result.Attempt)
	}
	for _, o := range []Outcome{fails[0], fails[len(fails)-1]} {
		disabled, err := failed(ctx, tx, o.Delivery, o.Result.Attempt)
		if err != nil || disabled {
			return disabled, err
		}
	}
	return false, nil
}
