package bench

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

const approvals = 200

// BenchmarkApprovalDecisionToResume measures, over 200 approvals, the time from sending
// POST /v1/approvals/{id} (approve) to the gated run being marked running by its workflow (its
// started_at, from PostgreSQL's clock on the same machine), and reports p50 and p99.
func BenchmarkApprovalDecisionToResume(b *testing.B) {
	env := apptest.New(b)
	key := env.FirstKey(b)
	approver := approverKey(b, env, key)
	ctx := context.Background()
	for b.Loop() {
		var runIDs, approvalIDs []string
		for i := range approvals {
			r := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key,
				Body:    map[string]any{"serviceId": "managed-workflows", "operationId": "echo", "requireApproval": true},
				Headers: map[string]string{"Idempotency-Key": fmt.Sprintf("gated-%d-%d", b.N, i)}})
			require.Equal(b, http.StatusCreated, r.Status, "%s", r.Raw)
			run := r.Body["run"].(map[string]any)
			runIDs, approvalIDs = append(runIDs, run["id"].(string)), append(approvalIDs, run["approvalId"].(string))
		}
		latencies := make([]time.Duration, 0, approvals)
		for i, aprID := range approvalIDs {
			var t0 time.Time
			require.NoError(b, env.DB.NewRaw("SELECT clock_timestamp()").Scan(ctx, &t0))
			d := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/approvals/" + aprID, Key: approver,
				Body: map[string]any{"decision": "approve"}, Headers: map[string]string{"Idempotency-Key": "d-" + aprID}})
			require.Equal(b, http.StatusOK, d.Status, "%s", d.Raw)
			var started *time.Time
			require.Eventually(b, func() bool {
				err := env.DB.NewRaw("SELECT started_at FROM runs WHERE id = ?", runIDs[i]).Scan(ctx, &started)
				return err == nil && started != nil
			}, 10*time.Second, time.Millisecond)
			latencies = append(latencies, started.Sub(t0))
		}
		sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
		p50, p99 := latencies[len(latencies)/2], latencies[len(latencies)*99/100]
		b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
		b.Logf("decision → run resumed over %d approvals: p50 %v, p99 %v", approvals, p50, p99)
	}
}

// approverKey is a second key of the account holding approvals:write: the asking key cannot approve.
func approverKey(b *testing.B, env *apptest.Env, root string) string {
	r := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: root,
		Body: map[string]any{"name": "approver", "scopes": []string{"approvals:write"}}, Headers: map[string]string{"Idempotency-Key": "approver"}})
	require.Equal(b, http.StatusCreated, r.Status, "%s", r.Raw)
	return r.Body["apiKey"].(map[string]any)["secret"].(string)
}
