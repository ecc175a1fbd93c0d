package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/strictjson"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/testdb"
)

// TestDecodingErrorsNameNoGoTypes: encoding/json's type errors that reach Huma are answered naming the
// JSON field and the kind of value, not Go's struct and type names.
func TestDecodingErrorsNameNoGoTypes(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, param, msg string }{
		{"json: cannot unmarshal number 1e19 into Go struct field CreateRunRequest.approvalExpiresInSeconds of type int",
			"approvalExpiresInSeconds", "approvalExpiresInSeconds: number 1e19 does not fit: expected a whole number within range"},
		{"json: cannot unmarshal number 1e400 into Go value of type float64", "", "number 1e400 does not fit: expected a number within range"},
		{"json: cannot unmarshal string into Go struct field Limit.limits.requestsPerMinute of type int64",
			"limits.requestsPerMinute", "limits.requestsPerMinute: string does not fit: expected a whole number within range"},
		{"json: something else about main.T", "", "malformed JSON"},
	}
	for _, tc := range cases {
		e := humaError("req_1", http.StatusBadRequest, "bad", []error{&huma.ErrorDetail{Location: "body", Message: tc.in}})
		require.Equal(t, tc.param, e.ErrorEnvelope.Error.Param)
		require.Equal(t, tc.msg, e.ErrorEnvelope.Error.Message)
	}
}

// TestUnstorableIsBadRequest: a value PostgreSQL cannot store (text holding NUL) that reaches it past
// the edge is answered 400, not 500.
func TestUnstorableIsBadRequest(t *testing.T) {
	t.Parallel()
	db := testdb.New(t)
	_, err := db.NewSelect().Table("runs").Where("id = ?", "run_\x00").Exists(context.Background())
	require.Error(t, err)
	s := &Server{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ae := s.toAPIError(context.Background(), err)
	require.Equal(t, http.StatusBadRequest, ae.status)
	require.Equal(t, "invalid_request", ae.ErrorEnvelope.Error.Code)
}

// FuzzEdgeQuery feeds any raw query string and Content-Type to the edge's checks: they never panic, a
// refused query is a 400 invalid_request, and an admitted one decodes to text names and values only.
func FuzzEdgeQuery(f *testing.F) {
	for _, s := range []string{"", "serviceId=%00", "a=1&a=2", "a%zz=1", "status=%ff", "x=%E2%82%AC", ";;", "limit=1e19&cursor="} {
		f.Add(s, "application/json; charset=utf-8")
	}
	f.Add("a=b", "application/merge-patch+json")
	f.Add("a=b", "text/plain; charset=\x00")
	f.Fuzz(func(t *testing.T, raw, contentType string) {
		_ = jsonMediaType(contentType)
		err := checkQuery(raw)
		if err != nil {
			e, ok := svcerr.As(err)
			if !ok || e.Code != svcerr.InvalidRequest {
				t.Fatalf("refusal %#v", err)
			}
			return
		}
		q, perr := url.ParseQuery(raw)
		if raw != "" && perr != nil {
			t.Fatalf("admitted a query that does not parse: %q", raw)
		}
		for name, values := range q {
			if strictjson.CheckText(name) != nil {
				t.Fatalf("admitted name %q", name)
			}
			for _, v := range values {
				if strictjson.CheckText(v) != nil {
					t.Fatalf("admitted value %q", v)
				}
			}
		}
	})
}
