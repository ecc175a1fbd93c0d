package api

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"

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
