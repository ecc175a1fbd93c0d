package api_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/testenv"
)

// TestRecordHistories re-records the workflow histories that workflows' replay tests read. It runs only
// with SVC_RECORD_HISTORIES=1 (make record-histories): recorded files are committed under
// workflows/testdata, so a change that breaks determinism fails the replay test against old histories.
func TestRecordHistories(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := testenv.New(t)
	key, _ := firstKey(t, env)
	for name, body := range map[string]map[string]any{
		"run_echo.json":  {"serviceId": "managed-workflows", "operationId": "echo", "input": map[string]any{"hello": "world"}},
		"run_sleep.json": {"serviceId": "managed-workflows", "operationId": "sleep", "input": map[string]any{"seconds": 0.2}},
	} {
		resp := env.Do(t, testenv.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key, Body: body,
			Headers: map[string]string{"Idempotency-Key": name}})
		require.Equal(t, http.StatusCreated, resp.Status, "%s", resp.Raw)
		id := resp.Body["run"].(map[string]any)["id"].(string)
		waitRun(t, env, key, id, client.RunSucceeded)
		writeHistory(t, env, "run/"+id, filepath.Join("..", "workflows", "testdata", name))
	}
}

func writeHistory(t *testing.T, env *testenv.Env, workflowID, path string) {
	t.Helper()
	iter := env.Temporal.GetWorkflowHistory(context.Background(), workflowID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &history.History{}
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		h.Events = append(h.Events, ev)
	}
	raw, err := protojson.MarshalOptions{Indent: "  "}.Marshal(h)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, append(raw, '\n'), 0o644))
}
