package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/testdb"
)

const (
	// queryRows is the benchmark table's row count.
	queryRows = 100_000
)

// lateConnector is an accountdb.Connector whose cluster is set after the environment that needs it
// exists (the cluster needs the environment's database and secret box).
type lateConnector struct{ c *accountdb.Cluster }

// Open implements accountdb.Connector.
func (l *lateConnector) Open(ctx context.Context, accountID string, role accountdb.Role) (*bun.DB, error) {
	return l.c.Open(ctx, accountID, role)
}

// BenchmarkDatabaseQueryVersusDirect provisions an account's managed database through the API, fills a
// table of 100,000 rows (integer primary key) with an action, and looks rows up by random primary key,
// `SELECT * FROM t WHERE id = $1`, from 16 concurrent clients: through POST /v1/databases/query with the
// id as a parameter (auth, scope and service checks, audit, the lexical check, a pooled connection as the
// reader role, one pipelined round trip of BEGIN READ ONLY, Parse/Describe/Bind/Execute and rollback,
// JSON rows), and with the same statement on a pgdriver/bun pool of its own as the same reader role
// (database/sql, no transaction). Both pools have the production size (accountdb.DefaultPoolSize, 4).
// Five alternating 2-second rounds each, after a 1-second warm-up of each. It reports both rates, their
// ratio and the API's p50 and p99.
// With 4 clients nothing waits for a pooled connection; with 16, requests queue for the pool's four.
func BenchmarkDatabaseQueryVersusDirect(b *testing.B) {
	for _, clients := range []int{accountdb.DefaultPoolSize, 16} {
		b.Run(fmt.Sprintf("clients-%d", clients), func(b *testing.B) { benchDatabaseQuery(b, clients) })
	}
}

func benchDatabaseQuery(b *testing.B, queryClients int) {
	app.TuneGC(os.Getenv)
	ctx := context.Background()
	// The API's pools as a production process has them (the test cluster's are tinier): a cluster of its
	// own on the same rows and box, as a second process would have.
	conn := &lateConnector{}
	env := apptest.NewWith(b, apptest.Options{DatabaseConn: conn})
	newCluster := func() *accountdb.Cluster {
		c, err := accountdb.NewCluster(env.DB, testdb.URL(), env.Box, accountdb.Options{NamePrefix: "bench_", PoolSize: accountdb.DefaultPoolSize})
		require.NoError(b, err)
		b.Cleanup(func() { _ = c.Close() })
		return c
	}
	conn.c = newCluster()

	accountID, token := env.NewAccount(b, "dbquery")
	resp := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "first-key"}})
	require.Equal(b, http.StatusCreated, resp.Status, "%s", resp.Raw)
	key := resp.Body["apiKey"].(map[string]any)["secret"].(string)

	resp = env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/databases/account", Key: key,
		Headers: map[string]string{"Idempotency-Key": "provision"}})
	require.Contains(b, []int{http.StatusOK, http.StatusAccepted}, resp.Status, "%s", resp.Raw)
	require.Eventually(b, func() bool {
		r := env.Do(b, apptest.Req{Method: http.MethodGet, Path: "/v1/databases/account", Key: key})
		return r.Status == http.StatusOK && r.Body["database"].(map[string]any)["status"] == "ready"
	}, time.Minute, 50*time.Millisecond, "the database never became ready")

	resp = env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/databases/actions", Key: key,
		Headers: map[string]string{"Idempotency-Key": "fill"}, Body: map[string]any{"action": "execute",
			"sql": fmt.Sprintf(`CREATE TABLE t (id integer PRIMARY KEY, name text NOT NULL, amount numeric(12, 2), at timestamptz NOT NULL);
INSERT INTO t SELECT g, 'customer ' || md5(g::text), (g %% 100000) / 100.0, '2026-01-01'::timestamptz + g * interval '1 second'
FROM generate_series(1, %d) g;
ANALYZE t`, queryRows)}})
	require.Equal(b, http.StatusOK, resp.Status, "%s", resp.Raw)

	const q = "SELECT * FROM t WHERE id = $1"
	viaAPI := func() *http.Request {
		body := fmt.Sprintf(`{"sql":%q,"params":[%d]}`, q, rand.IntN(queryRows)+1)
		r, _ := http.NewRequest(http.MethodPost, env.URL+"/v1/databases/query", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+key)
		r.Header.Set("Content-Type", "application/json")
		return r
	}
	reader, err := newCluster().Open(ctx, accountID, accountdb.Reader)
	require.NoError(b, err)
	direct := func(ctx context.Context) error {
		var (
			id     int64
			name   string
			amount string
			at     time.Time
		)
		return reader.DB.QueryRowContext(ctx, q, rand.IntN(queryRows)+1).Scan(&id, &name, &amount, &at)
	}

	// Both sides answer the same row.
	one := env.Do(b, apptest.Req{Method: http.MethodPost, Path: "/v1/databases/query", Key: key,
		Body: map[string]any{"sql": q, "params": []any{42}}})
	require.Equal(b, http.StatusOK, one.Status, "%s", one.Raw)
	require.Len(b, one.Body["rows"], 1)
	var name string
	require.NoError(b, reader.DB.QueryRowContext(ctx, "SELECT name FROM t WHERE id = $1", 42).Scan(&name))
	require.Equal(b, name, one.Body["rows"].([]any)[0].([]any)[1])

	for b.Loop() {
		Load(ctx, queryClients, time.Second, viaAPI)
		LoadFunc(ctx, queryClients, time.Second, direct)
		var api, base LoadResult
		for range loadRounds {
			api = api.Merge(Load(ctx, queryClients, loadRound, viaAPI))
			base = base.Merge(LoadFunc(ctx, queryClients, loadRound, direct))
		}
		require.Zero(b, api.Errors+base.Errors, "queries failed: api %d (%v), direct %d (%v)", api.Errors, api.FirstErr, base.Errors, base.FirstErr)
		report(b, "api", api)
		report(b, "direct", base)
		b.ReportMetric(float64(api.P50.Microseconds())/1000, "api-p50-ms")
		b.ReportMetric(api.RPS()/base.RPS(), "ratio")
	}
}
