package client_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

// TestErrorNamesTheParamOnce: Error shows the param only when the message does not already name it.
func TestErrorNamesTheParamOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ msg, param, want string }{
		{"approval apr_1 is already approved", "approvalId", "conflict: approval apr_1 is already approved"},
		{"this Idempotency-Key was used with another request", "Idempotency-Key", "conflict: this Idempotency-Key was used with another request"},
		{"approvalExpiresInSeconds applies only to a run that requires approval", "approvalExpiresInSeconds",
			"conflict: approvalExpiresInSeconds applies only to a run that requires approval"},
		{"the service id is empty", "serviceId", "conflict: the service id is empty"},
		{`unknown scope "runs:fly"`, "scopes[0]", `conflict: unknown scope "runs:fly" (scopes[0])`},
		{"a connection named x exists", "name", "conflict: a connection named x exists (name)"},
		{"no run", "", "conflict: no run"},
	} {
		e := &client.Error{Code: "conflict", Message: c.msg, Param: c.param}
		require.Equal(t, c.want, e.Error())
	}
}
