package delivery

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/schema"
)

func testEvent() *schema.Event {
	return &schema.Event{ID: "evt_1", Type: "run.succeeded", Data: json.RawMessage(`{"id":"run_1"}`),
		CreatedAt: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// TestSendSignsAndClassifies: a signed envelope with the contract's headers; 2xx succeeds; a redirect is
// not followed and fails; a long answer is read only in part; Retry-After is read on 429; a slow
// endpoint times out; loopback is refused unless allowed, at dial time.
func TestSendSignsAndClassifies(t *testing.T) {
	t.Parallel()
	secret, err := client.NewWebhookSecret()
	require.NoError(t, err)
	var followed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			body, _ := io.ReadAll(r.Body)
			ev, err := client.ParseWebhook(secret, r.Header, body, client.VerifyOptions{})
			if err != nil || ev.ID != "evt_1" || r.Header.Get(client.HeaderSvcEvent) != "run.succeeded" ||
				r.Header.Get("Content-Type") != "application/json" || string(ev.Data) != `{"id":"run_1"}` {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			_, _ = w.Write([]byte(strings.Repeat("x", 1<<20)))
		case "/redirect":
			http.Redirect(w, r, "/ok", http.StatusFound)
		case "/target":
			followed.Store(true)
		case "/busy":
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
		case "/slow":
			_, _ = io.ReadAll(r.Body) // so the server notices the caller leaving
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	dev := NewSender(SenderOptions{AllowHTTP: true, AllowLoopback: true, Timeout: 300 * time.Millisecond})
	defer dev.Close()

	res := dev.Send(ctx, srv.URL+"/ok", testEvent(), []string{secret})
	require.True(t, res.Succeeded(), "%+v", res)
	require.Equal(t, http.StatusOK, res.HTTPStatus)

	res = dev.Send(ctx, srv.URL+"/redirect", testEvent(), []string{secret})
	require.False(t, res.Succeeded())
	require.Equal(t, http.StatusFound, res.HTTPStatus)
	require.False(t, followed.Load())

	res = dev.Send(ctx, srv.URL+"/busy", testEvent(), []string{secret})
	require.Equal(t, 2*time.Minute, res.RetryAfter)

	res = dev.Send(ctx, srv.URL+"/slow", testEvent(), []string{secret})
	require.Zero(t, res.HTTPStatus)
	require.Contains(t, res.Error, "no answer within")

	strict := NewSender(SenderOptions{AllowHTTP: true})
	res = strict.Send(ctx, srv.URL+"/ok", testEvent(), []string{secret})
	require.Zero(t, res.HTTPStatus)
	require.Contains(t, res.Error, "loopback")

	res = NewSender(SenderOptions{AllowLoopback: true}).Send(ctx, srv.URL+"/ok", testEvent(), []string{secret})
	require.Contains(t, res.Error, "https")
}
