// Package audit records one event per authenticated request (who, which operation, outcome; never a
// secret or a body).
//
// Events of reads are written in batches by a background writer (Record) so auditing stays off their
// critical path; Close flushes what is buffered. Events of requests that change something are written
// before their answer is sent, with the request's own transaction (Statement) or directly (Write), so a
// crash of the process loses none of them.
//
// Every event is sanitised before it is written: PostgreSQL cannot store a NUL byte or invalid UTF-8 in
// text, and a request path may hold both (GET /v1/runs/run_%00). Each such byte is written as %XX and
// the event's Sanitized flag is set. If a batch is refused all the same, its events are written one by
// one, so that only a row PostgreSQL refuses is lost (and logged), never the others of its batch.
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
	"unicode/utf8"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/svcplatform/svc/internal/pg"
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

// Record queues an event (sanitised) for the next batch; after Close it writes the event directly.
func (w *Writer) Record(ev schema.AuditEvent) {
	Sanitize(&ev)
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

// flush writes a batch, retrying through a short database outage. A batch PostgreSQL refuses (a row no
// sanitising foresaw), or that still fails after the retries, is written one event at a time, so that
// only the events that cannot be stored are lost; each is logged with its ids (never its contents).
func (w *Writer) flush(batch []schema.AuditEvent) {
	if len(batch) == 0 {
		return
	}
	err := w.insertBatch(batch)
	if err == nil {
		return
	}
	w.log.Warn("audit: batch refused; writing its events one by one", "events", len(batch), "err", err)
	for i := range batch {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := Insert(ctx, w.db, batch[i:i+1])
		cancel()
		if err == nil {
			continue
		}
		if !refused(err) {
			// The database is unreachable, not refusing this row: the rest would fail the same way.
			w.log.Error("audit: events lost after retries", "events", len(batch)-i, "err", err)
			return
		}
		ev := &batch[i]
		w.log.Error("audit: event refused by the database and lost", "id", ev.ID, "accountId", ev.AccountID,
			"requestId", ev.RequestID, "operation", ev.Operation, "err", err)
	}
}

// insertBatch writes a batch, retrying through a short outage but not when PostgreSQL refuses its data.
func (w *Writer) insertBatch(batch []schema.AuditEvent) error {
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := Insert(ctx, w.db, batch)
		cancel()
		if err == nil || refused(err) || attempt == len(flushRetries) {
			return err
		}
		time.Sleep(flushRetries[attempt])
	}
}

// refused reports whether PostgreSQL refused the rows themselves (a value it cannot hold, class 22 or
// 54, or a constraint violation, class 23), which no retry mends.
func refused(err error) bool {
	return pg.Unstorable(err) || pg.IntegrityViolation(err)
}

// Write stores one event (sanitised) at once, for a request whose answer must wait for its event.
func (w *Writer) Write(ctx context.Context, ev schema.AuditEvent) error {
	if _, err := Statement(w.db, ev).Exec(ctx); err != nil {
		return fmt.Errorf("write audit event: %w", err)
	}
	return nil
}

// Statement is the INSERT of one event (sanitised), to commit with the request's own transaction (see
// idempotency.Store.Complete). An event already stored under its id is left as it is.
func Statement(db bun.IDB, ev schema.AuditEvent) *bun.InsertQuery {
	Sanitize(&ev)
	return db.NewInsert().Model(&ev).On("CONFLICT (id) DO NOTHING")
}

// Sanitize makes an event's text storable: each NUL byte, and each byte of an invalid UTF-8 sequence,
// is written as %XX (its hex value), and Sanitized is set when anything was replaced.
func Sanitize(ev *schema.AuditEvent) {
	for _, f := range []*string{&ev.ID, &ev.AccountID, ev.ProjectID, ev.KeyID, &ev.Operation, &ev.Method, &ev.Path, &ev.RequestID, &ev.ClientIP} {
		if f == nil || storable(*f) {
			continue
		}
		*f = escapeUnstorable(*f)
		ev.Sanitized = true
	}
}

// storable reports whether PostgreSQL can store s in a text column.
func storable(s string) bool {
	return strings.IndexByte(s, 0) < 0 && utf8.ValidString(s)
}

func escapeUnstorable(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0 || (r == utf8.RuneError && size == 1) {
			fmt.Fprintf(&b, "%%%02X", s[i])
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// copyColumns are the columns Insert copies, in the order encodeRow writes them.
const copyColumns = "id, account_id, project_id, key_id, operation, method, path, status, request_id, client_ip, created_at, charged_millicredits, sanitized, session_address, partner_id"

// Insert writes events at once with COPY, which costs PostgreSQL far less than an INSERT per batch. The
// events must be sanitised (see Sanitize): one unstorable row fails the whole COPY.
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
	buf.WriteByte('\t')
	buf.WriteString(strconv.FormatBool(ev.Sanitized))
	buf.WriteByte('\t')
	writeField(buf, ev.SessionAddress)
	buf.WriteByte('\t')
	writeField(buf, ev.PartnerID)
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
