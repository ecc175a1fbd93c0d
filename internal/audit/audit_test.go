package audit

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

// TestWriterStoresEveryEventExactly checks batching, Close flushing, NULLs and COPY escaping.
func TestWriterStoresEveryEventExactly(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	w := NewWriter(db, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{Batch: 7, Interval: time.Hour})
	project, key := "proj_1", "key_1"
	odd := "/v1/runs/a\tb\\c\nd"
	now := time.Now().UTC().Truncate(time.Microsecond)
	for i := range 20 {
		ev := schema.AuditEvent{ID: "aud_" + string(rune('a'+i)), AccountID: "acct_1", Operation: "runs.read", Method: "GET",
			Path: odd, Status: 200 + i, RequestID: "req_x", ClientIP: "127.0.0.1", CreatedAt: now}
		if i%2 == 0 {
			ev.ProjectID, ev.KeyID = &project, &key
		}
		w.Record(ev)
	}
	w.Close() // 20 events, batches of 7: two full batches written on the way, the last 6 on Close

	var events []schema.AuditEvent
	require.NoError(t, db.NewSelect().Model(&events).Order("id").Scan(context.Background()))
	require.Len(t, events, 20)
	for i, ev := range events {
		require.Equal(t, odd, ev.Path)
		require.Equal(t, 200+i, ev.Status)
		require.True(t, now.Equal(ev.CreatedAt), "%v != %v", now, ev.CreatedAt)
		if i%2 == 0 {
			require.Equal(t, &project, ev.ProjectID)
		} else {
			require.Nil(t, ev.ProjectID)
			require.Nil(t, ev.KeyID)
		}
	}
}

// TestUnstorableBytesLoseNoEvent sends events whose text fields hold NUL bytes and invalid UTF-8 (as a
// hostile path can) among ordinary ones: every event is stored, the bad ones escaped and marked.
func TestUnstorableBytesLoseNoEvent(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	w := NewWriter(db, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{Interval: time.Hour})
	bad := "x\x00y\xffz\xe2\x82"
	project, key := "proj_"+bad, "key_"+bad
	fields := []func(ev *schema.AuditEvent){
		func(ev *schema.AuditEvent) { ev.Path = "/v1/runs/run_" + bad },
		func(ev *schema.AuditEvent) { ev.AccountID = "acct_" + bad },
		func(ev *schema.AuditEvent) { ev.ProjectID = &project },
		func(ev *schema.AuditEvent) { ev.KeyID = &key },
		func(ev *schema.AuditEvent) { ev.Operation = "runs." + bad },
		func(ev *schema.AuditEvent) { ev.Method = "G\x00T" },
		func(ev *schema.AuditEvent) { ev.RequestID = "req_" + bad },
		func(ev *schema.AuditEvent) { ev.ClientIP = "127.0.0.1\x00" },
	}
	now := time.Now().UTC()
	for i := range 40 {
		ev := schema.AuditEvent{ID: fmt.Sprintf("aud_%02d", i), AccountID: "acct_1", Operation: "runs.read", Method: "GET",
			Path: "/v1/runs/run_ok", Status: 200, RequestID: "req_x", ClientIP: "127.0.0.1", CreatedAt: now}
		if i%5 == 0 {
			fields[(i/5)%len(fields)](&ev)
		}
		w.Record(ev)
	}
	w.Close()

	var events []schema.AuditEvent
	require.NoError(t, db.NewSelect().Model(&events).Order("id").Scan(context.Background()))
	require.Len(t, events, 40)
	for i, ev := range events {
		require.Equal(t, i%5 == 0, ev.Sanitized, "event %d", i)
	}
	require.Equal(t, "/v1/runs/run_x%00y%FFz%E2%82", events[0].Path)
	require.Equal(t, "acct_x%00y%FFz%E2%82", events[5].AccountID)
	require.Equal(t, "proj_x%00y%FFz%E2%82", *events[10].ProjectID)
	require.Equal(t, "G%00T", events[25].Method)
	require.Equal(t, "127.0.0.1%00", events[35].ClientIP)
}

// TestRefusedBatchIsWrittenRowByRow makes PostgreSQL refuse one row of a batch for a reason sanitising
// cannot foresee (its id is taken): the batch is written row by row and only that row is lost.
func TestRefusedBatchIsWrittenRowByRow(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	ev := func(id string) schema.AuditEvent {
		return schema.AuditEvent{ID: id, AccountID: "acct_victim", Operation: "runs.read", Method: "GET", Path: "/v1/runs",
			Status: 200, RequestID: "req_" + id, ClientIP: "127.0.0.1", CreatedAt: time.Now().UTC()}
	}
	taken := ev("aud_taken")
	taken.AccountID = "acct_first"
	require.NoError(t, Insert(ctx, db, []schema.AuditEvent{taken}))
	w := NewWriter(db, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{Interval: time.Hour})
	for i := range 10 {
		w.Record(ev(fmt.Sprintf("aud_%02d", i)))
		if i == 4 {
			w.Record(ev("aud_taken"))
		}
	}
	done := make(chan struct{})
	go func() { w.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second): // a refused batch is not retried as if the database were down
		t.Fatal("Close did not return within 5 s")
	}
	n, err := db.NewSelect().Model((*schema.AuditEvent)(nil)).Where("account_id = 'acct_victim'").Count(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 10, n)
	var owner string
	require.NoError(t, db.NewSelect().Model((*schema.AuditEvent)(nil)).Column("account_id").Where("id = 'aud_taken'").Scan(ctx, &owner))
	require.Equal(t, "acct_first", owner)
}

// TestWriteAndStatementSanitize checks the direct paths (Write, Statement) store unstorable bytes too.
func TestWriteAndStatementSanitize(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	ctx := context.Background()
	w := NewWriter(db, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})
	defer w.Close()
	ev := schema.AuditEvent{ID: "aud_w", AccountID: "acct_1", Operation: "runs.cancel", Method: "POST",
		Path: "/v1/runs/run_\x00\xff/cancel", Status: 404, RequestID: "req_w", ClientIP: "127.0.0.1", CreatedAt: time.Now().UTC()}
	require.NoError(t, w.Write(ctx, ev))
	ev.ID = "aud_s"
	_, err := db.ExecContext(ctx, Statement(db, ev).String())
	require.NoError(t, err)
	var events []schema.AuditEvent
	require.NoError(t, db.NewSelect().Model(&events).Order("id").Scan(ctx))
	require.Len(t, events, 2)
	for _, e := range events {
		require.Equal(t, "/v1/runs/run_%00%FF/cancel", e.Path)
		require.True(t, e.Sanitized)
	}
	require.Equal(t, "/v1/runs/run_\x00\xff/cancel", ev.Path, "the caller's event is not changed")
}
