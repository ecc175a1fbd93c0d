package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/schema"
)

// fixedEnv is an account's environment of fixed values.
type fixedEnv map[string]string

func (f fixedEnv) Values(_ context.Context, _ string, names []string) (map[string]string, error) {
	out := map[string]string{}
	for _, n := range names {
		if v, ok := f[n]; ok {
			out[n] = v
		}
	}
	return out, nil
}

// echoDispatcher fails or answers with the request it was given, as a careless engine might.
type echoDispatcher struct{ fail bool }

func (d echoDispatcher) Dispatch(_ context.Context, _ llm.Caller, call Call) (int, []byte, error) {
	body, _ := json.Marshal(call.Body)
	if d.fail {
		return 0, nil, fmt.Errorf("engine down while sending %s: %w", body, errors.New(string(body)))
	}
	return http.StatusBadRequest, body, nil
}

func (echoDispatcher) Allows(context.Context, llm.Caller, string, string) bool { return true }

// TestAgentSecretsScrubbed: a dispatched tool marked Env whose refusal or infrastructure error echoes
// an environment value (as written or JSON-escaped) carries [env NAME] instead; the error is not
// wrapped, so no cause recorded in a workflow history holds the value. A tool not marked Env (the
// platform's own routes) gets the reference as written.
func TestAgentSecretsScrubbed(t *testing.T) {
	const value = `tok&<"en>-0123456789abcdef`
	tool := Tool{Name: "echo", Method: http.MethodPost, Path: "/v1/echo", Env: true, Build: func(args map[string]any) (Call, error) {
		return Call{Method: http.MethodPost, Path: "/v1/echo", Body: args}, nil
	}}
	jc := jobCaller{job: &schema.AgentJob{ID: "job", AccountID: "acc"}}
	args := map[string]any{"token": "${SHOP_TOKEN}"}

	r := &Runner{Env: fixedEnv{"SHOP_TOKEN": value}, Dispatch: echoDispatcher{}}
	out, failed, err := r.run(context.Background(), jc, tool, args, "k")
	require.NoError(t, err)
	require.True(t, failed)
	require.Contains(t, out, "[env SHOP_TOKEN]")
	require.NotContains(t, out, "0123456789abcdef")

	r.Dispatch = echoDispatcher{fail: true}
	_, _, err = r.run(context.Background(), jc, tool, args, "k")
	require.Error(t, err)
	require.Contains(t, err.Error(), "[env SHOP_TOKEN]")
	for e := err; e != nil; e = errors.Unwrap(e) {
		require.NotContains(t, e.Error(), "0123456789abcdef")
	}
	require.Nil(t, errors.Unwrap(err), "no cause to record")

	tool.Env = false
	r.Dispatch = echoDispatcher{}
	out, _, err = r.run(context.Background(), jc, tool, args, "k")
	require.NoError(t, err)
	require.Contains(t, out, "${SHOP_TOKEN}", "a platform route gets the reference as written")
}
