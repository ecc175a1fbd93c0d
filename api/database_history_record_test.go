package api_test

import (
	"context"
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

// TestRecordTransferHistories re-records workflows/testdata/dbtransfer_export.json and
// dbtransfer_import.json (SVC_RECORD_HISTORIES=1): an export whose archive is then discarded, and an
// import of it in two parts, each run of dbtransfer/<id> by the production worker.
func TestRecordTransferHistories(t *testing.T) {
	if os.Getenv("SVC_RECORD_HISTORIES") != "1" {
		t.Skip("set SVC_RECORD_HISTORIES=1 to re-record workflows/testdata")
	}
	env := apptest.New(t)
	a, b := newDatabaseAccount(t, env), newDatabaseAccount(t, env)
	readyDatabase(t, env, a)
	readyDatabase(t, env, b)
	ca, cb := sdkFor(env, a), sdkFor(env, b)
	execute(t, ca, "CREATE TABLE t (id int PRIMARY KEY, v text);\nINSERT INTO t SELECT g, 'v' || g FROM generate_series(1, 100) g")
	out := filepath.Join("..", "workflows", "testdata")

	exp, archive, _ := exportArchive(t, ca)
	require.Equal(t, http.StatusAccepted, ca.CancelDatabaseTransfer(context.Background(), exp.ID).StatusCode)
	id := workflows.DatabaseTransferWorkflowID(exp.ID)
	require.Eventually(t, func() bool { return workflowClosed(env, id) }, 10*time.Second, 20*time.Millisecond)
	writeHistory(t, env, id, filepath.Join(out, "dbtransfer_export.json"))

	imp := importArchive(t, cb, archive, len(archive)/2+1, false)
	require.Equal(t, client.TransferStatusCompleted, imp.Status)
	id = workflows.DatabaseTransferWorkflowID(imp.ID)
	require.Eventually(t, func() bool { return workflowClosed(env, id) }, 10*time.Second, 20*time.Millisecond)
	writeHistory(t, env, id, filepath.Join(out, "dbtransfer_import.json"))
}
