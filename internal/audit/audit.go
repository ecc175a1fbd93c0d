// Package audit records one event per authenticated request (who, which operation, outcome; never a
// secret or a body). Events are written in batches by a background writer so auditing stays off the
// request's critical path; Close flushes what is buffered.
package audit

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/schema"
)

// Options tune a Writer.
type Options struct {
	// Buffer is how many events may wait for the writer; Record blocks when it is full (default 4096).
	Buffer int
	// Batch is the most events written in one INSERT (default 256).
	Batch int
	// Interval is the longest an event waits before it is written (default 50 ms).
	Interval time.Duration
}

// Writer writes audit events in batches.
type Writer struct {
	db     *bun.DB
	log    *slog.Logger
	opts   Options
	events chan schema.AuditEvent
	done   chan struct{}
	// mu guards closed: senders hold it shared, Close exclusively, so no event is sent on a closed channel.
	mu     sync.RWMutex
	closed bool
}

// NewWriter starts a Writer; call Close to flush and stop it.
func NewWriter(db *bun.DB, log *slog.Logger, opts Options) *Writer {
	if opts.Buffer <= 0 {
		opts.Buffer = 4096
	}
	if opts.Batch <= 0 {
		opts.Batch = 256
	}
	if opts.Interval <= 0 {
		opts.Interval = 50 * time.Millisecond
	}
	w := &Writer{db: db, log: log, opts: opts, events: make(chan schema.AuditEvent, opts.Buffer), done: make(chan struct{})}
	go w.loop()
	return w
}

// Record queues an event; after Close it writes the event directly.
func (w *Writer) Record(ev schema.AuditEvent) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		w.flush([]schema.AuditEvent{ev})
		return
	}
	w.events <- ev
}

// Close writes every queued event and stops the writer.
func (w *Writer) Close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.events)
	}
	w.mu.Unlock()
	<-w.done
}

func (w *Writer) loop() {
	defer close(w.done)
	ticker := time.NewTicker(w.opts.Interval)
	defer ticker.Stop()
	batch := make([]schema.AuditEvent, 0, w.opts.Batch)
	for {
		select {
		case ev, ok := <-w.events:
			if !ok {
				w.flush(batch)
				return
			}
			batch = append(batch, ev)
			if len(batch) >= w.opts.Batch {
				w.flush(batch)
				batch = batch[:0]
			}
		case <-ticker.C:
			if len(batch) > 0 {
				w.flush(batch)
				batch = batch[:0]
			}
		}
	}
}

// flushRetries are the pauses before each further attempt to write a batch.
var flushRetries = []time.Duration{100 * time.Millisecond, time.Second, 5 * time.Second}

// flush writes a batch, retrying through a short database outage; a batch that still fails is logged
// with its size (never its contents).
func (w *Writer) flush(batch []schema.AuditEvent) {
	if len(batch) == 0 {
		return
	}
	var err error
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = Insert(ctx, w.db, batch)
		cancel()
		if err == nil || attempt == len(flushRetries) {
			break
		}
		time.Sleep(flushRetries[attempt])
	}
	if err != nil {
		w.log.Error("audit: events lost after retries", "events", len(batch), "err", err)
	}
}

// copyColumns are the columns Insert copies, in the order encodeRow writes them.
const copyColumns = "id, account_id, project_id, key_id, operation, method, path, status, request_id, client_ip, created_at, charged_millicredits"

// Insert writes events at once with COPY, which costs PostgreSQL far less than an INSERT per batch.
func Insert(ctx context.Context, db *bun.DB, events []schema.AuditEvent) error {
	var buf bytes.Buffer
	for i := range events {
		encodeRow(&buf, &events[i])
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("audit: get connection: %w", err)
	}
	defer conn.Close()
	if _, err := pgdriver.CopyFrom(ctx, conn, &buf, "COPY audit_events ("+copyColumns+") FROM STDIN"); err != nil {
		return fmt.Errorf("copy audit events: %w", err)
	}
	return nil
}

// encodeRow writes one row in COPY's text format.
func encodeRow(buf *bytes.Buffer, ev *schema.AuditEvent) {
	fields := []*string{&ev.ID, &ev.AccountID, ev.ProjectID, ev.KeyID, &ev.Operation, &ev.Method, &ev.Path}
	for _, f := range fields {
		writeField(buf, f)
		buf.WriteByte('\t')
	}
	buf.WriteString(strconv.Itoa(ev.Status))
	buf.WriteByte('\t')
	writeField(buf, &ev.RequestID)
	buf.WriteByte('\t')
	writeField(buf, &ev.ClientIP)
	buf.WriteByte('\t')
	buf.WriteString(ev.CreatedAt.UTC().Format(time.RFC3339Nano))
	buf.WriteByte('\t')
	buf.WriteString(strconv.FormatInt(ev.ChargedMillicredits, 10))
	buf.WriteByte('\n')
}

var copyEscaper = strings.NewReplacer("\\", "\\\\", "\t", "\\t", "\n", "\\n", "\r", "\\r")

func writeField(buf *bytes.Buffer, v *string) {
	if v == nil {
		buf.WriteString("\\N")
		return
	}
	copyEscaper.WriteString(buf, *v) //nolint:errcheck // bytes.Buffer never fails
}
