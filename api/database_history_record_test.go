package api_test

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/workflows"
)

// TestRecordDatabaseHistories re-records workflows/testdata/database_provision.json and
// database_deprovision.json (SVC_RECORD_HISTORIES=1, make record-histories): a provision through the API,
// then a deprovision, each run of database/<accountId> by the production worker.
func TestRecordDatabaseHistories(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.New(t)
	acme := newDatabaseAccount(t, env)
	out := filepath.Join("..", "workflows", "testdata")

	first := databaseCall(t, env, acme.key, http.MethodPost, "p1", nil)
	require.Equal(t, http.StatusAccepted, first.Status, "%s", first.Raw)
	waitDatabase(t, env, acme.key, client.DatabaseStatusReady)
	require.Eventually(t, func() bool { return workflowClosed(env, workflows.DatabaseWorkflowID(acme.id)) }, 10*time.Second, 20*time.Millisecond)
	writeHistory(t, env, workflows.DatabaseWorkflowID(acme.id), filepath.Join(out, "database_provision.json"))

	del := databaseCall(t, env, acme.key, http.MethodDelete, "d1", map[string]any{"confirmation": client.ConfirmDeprovisionDatabase})
	require.Equal(t, http.StatusAccepted, del.Status, "%s", del.Raw)
	waitDatabase(t, env, acme.key, client.DatabaseStatusDeleted)
	require.Eventually(t, func() bool { return workflowClosed(env, workflows.DatabaseWorkflowID(acme.id)) }, 10*time.Second, 20*time.Millisecond)
	writeHistory(t, env, workflows.DatabaseWorkflowID(acme.id), filepath.Join(out, "database_deprovision.json"))
}
