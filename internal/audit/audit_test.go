package audit

import (
	"context"
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
