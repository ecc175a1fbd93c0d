package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// idempotentService is a generation service that honours Idempotency-Key: the first call of a key does
// the work (here: waits until its caller goes away, as a killed worker does, and then counts the job as
// done), and any later call of that key answers the finished job without doing it again.
type idempotentService struct {
	reached   chan struct{}
	stop      chan struct{} // closed when the test ends, so no handler outlives it
	once      sync.Once
	calls     atomic.Int64
	performed atomic.Int64
	mu        sync.Mutex
	done      map[string]bool
}

func (s *idempotentService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.calls.Add(1)
	// Reading the body to its end lets the server notice when the caller's connection drops.
	_, _ = io.Copy(io.Discard, r.Body)
	key := r.Header.Get("Idempotency-Key")
	s.mu.Lock()
	finished := s.done[key]
	s.mu.Unlock()
	if !finished {
		s.once.Do(func() { close(s.reached) })
		select { // the caller dies mid-call; the job completes anyway
		case <-r.Context().Done():
		case <-s.stop:
			return
		}
		s.performed.Add(1)
		s.mu.Lock()
		s.done[key] = true
		s.mu.Unlock()
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Svc-Credits-Charged", "2")
	_, _ = w.Write([]byte(`{"image":"done"}`))
}

// TestWorkerKilledMidRunCompletesOnceAndChargesOnce kills the svcd worker process (SIGKILL) while a paid
// run's call is in flight, starts another, and checks that the run completes once, is charged once, and
// the service did the job once.
func TestWorkerKilledMidRunCompletesOnceAndChargesOnce(t *testing.T) {
	t.Parallel()
	svcd := svcdPath(t)
	svc := &idempotentService{reached: make(chan struct{}), stop: make(chan struct{}), done: map[string]bool{}}
	up := httptest.NewServer(svc)
	t.Cleanup(up.Close)
	t.Cleanup(func() { close(svc.stop) }) // runs before up.Close
	yaml := fmt.Sprintf(`services:
  - id: imagegen
    baseUrl: %s
    allowPrivate: true
    connection: imagegen-key
    operations:
      - id: generate
        method: POST
        path: /make
        credits: 3
`, up.URL)
	cat, err := gateway.Parse([]byte(yaml))
	require.NoError(t, err)
	env := apptest.NewWith(t, apptest.Options{Gateway: cat, NoWorker: true})
	dir := t.TempDir()
	servicesFile := filepath.Join(dir, "services.yaml")
	require.NoError(t, os.WriteFile(servicesFile, []byte(yaml), 0o600))

	first := startWorker(t, svcd, env, servicesFile, dir)
	key := fundedKey(t, env, 10)
	conn := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/connections", Key: key,
		Body:    map[string]any{"name": "imagegen-key", "authType": "bearer", "secret": "up-secret-0123456789"},
		Headers: map[string]string{"Idempotency-Key": "conn"}})
	require.Equal(t, http.StatusCreated, conn.Status, "%s", conn.Raw)
	created := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/runs", Key: key,
		Body: map[string]any{"serviceId": "imagegen", "operationId": "generate"}, Headers: map[string]string{"Idempotency-Key": "run"}})
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	runID := created.Body["run"].(map[string]any)["id"].(string)

	select {
	case <-svc.reached:
	case <-time.After(60 * time.Second):
		t.Fatalf("the run never reached the service; worker log:\n%s", first.log.String())
	}
	first.kill(t)
	second := startWorker(t, svcd, env, servicesFile, dir)

	var run map[string]any
	require.Eventually(t, func() bool {
		r := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/runs/" + runID, Key: key})
		run = r.Body["run"].(map[string]any)
		return run["status"] == "succeeded" || run["status"] == "failed"
	}, 90*time.Second, 50*time.Millisecond, "the run never finished; second worker log:\n%s", second.log.String())
	require.Equal(t, "succeeded", run["status"], "%v", run)
	require.Equal(t, map[string]any{"image": "done"}, run["output"])
	require.EqualValues(t, 2, run["chargedCredits"])
	require.EqualValues(t, 1, svc.performed.Load(), "the service did the job once")
	require.EqualValues(t, 2, svc.calls.Load(), "the killed attempt, then its retry")

	bal := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/credits/balance", Key: key}).Body["balance"].(map[string]any)
	require.EqualValues(t, 8, bal["credits"], "charged once")
	require.EqualValues(t, 0, bal["heldCredits"])
	var settles int
	require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM ledger_transactions WHERE kind = 'settle'").Scan(context.Background(), &settles))
	require.Equal(t, 1, settles)

	var accountID string
	require.NoError(t, env.DB.NewRaw("SELECT account_id FROM runs WHERE id = ?", runID).Scan(context.Background(), &accountID))
	events, err := outbox.List(context.Background(), env.DB, accountID)
	require.NoError(t, err)
	succeeded := 0
	for _, e := range events {
		if e.Type == outbox.RunSucceeded {
			succeeded++
		}
	}
	require.Equal(t, 1, succeeded, "the run completed once")
}

// svcdProcess is an svcd process a crash test started (a worker, or an API), with its output.
type svcdProcess struct {
	cmd *exec.Cmd
	log *apptest.Buffer
}

// kill ends the process with SIGKILL, as a crash would, and waits until it is gone.
func (p *svcdProcess) kill(t *testing.T) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGKILL))
	_ = p.cmd.Wait()
}

// startSvcd runs `svcd mode` against the test's database schema and Temporal server, with extra
// environment variables (NAME=value) on top; the process is killed when the test ends.
func startSvcd(t *testing.T, svcd, mode string, env *apptest.Env, extra ...string) *svcdProcess {
	t.Helper()
	log := &apptest.Buffer{}
	cmd := svcdCommand(svcd, mode, append([]string{
		"DATABASE_URL=" + env.DatabaseURL, "TEMPORAL_ADDRESS=" + env.TemporalAddress, "TEMPORAL_NAMESPACE=" + env.Namespace,
		"SVC_ENCRYPTION_KEY=" + env.EncryptionKey}, extra...)...)
	cmd.Stdout, cmd.Stderr = log, log
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return &svcdProcess{cmd: cmd, log: log}
}

// stalledAfterMinedBroadcast waits until the wallet transaction txID is broadcast, its workflow stalled in
// the broadcast activity (the worker p runs with activities.FaultStallAfterBroadcast) and the transaction
// mined, and returns its row: the moment to kill p, with the receipt not yet read by the platform.
func stalledAfterMinedBroadcast(t *testing.T, env *apptest.Env, rpc *ethclient.Client, p *svcdProcess, txID, what string) schema.WalletTransaction {
	t.Helper()
	ctx := context.Background()
	var tx schema.WalletTransaction
	require.Eventually(t, func() bool {
		require.NoError(t, env.DB.NewSelect().Model(&tx).Where("id = ?", txID).Scan(ctx))
		return tx.TxHash != nil && tx.Status == schema.WalletTxBroadcast &&
			running(t, env, workflows.WalletTxWorkflowID(txID), workflows.ActivityBroadcastWalletTx)
	}, 60*time.Second, 10*time.Millisecond, "the %s never stalled after its broadcast; worker log:\n%s", what, p.log)
	require.Eventually(t, func() bool {
		got, err := rpc.TransactionReceipt(ctx, common.HexToHash(*tx.TxHash))
		return err == nil && got != nil
	}, 30*time.Second, 10*time.Millisecond, "the %s transaction was never mined", what)
	return tx
}

// startWorker runs `svcd worker` (see startSvcd) with the services file and data directory given.
func startWorker(t *testing.T, svcd string, env *apptest.Env, servicesFile, dataDir string, extra ...string) *svcdProcess {
	t.Helper()
	return startSvcd(t, svcd, "worker", env, append([]string{"SVC_SERVICES_FILE=" + servicesFile, "SVC_DATA_DIR=" + dataDir}, extra...)...)
}

// asSvcdEnv, set to 1, makes this test binary run as svcd instead of running tests: the crash tests
// start it for their svcd processes, which spares building the command once more.
const asSvcdEnv = "SVCD_TEST_RUN_AS_SVCD"

func TestMain(m *testing.M) {
	if os.Getenv(asSvcdEnv) == "1" {
		main() // exits
	}
	os.Exit(m.Run())
}

// svcdPath returns the program the crash tests run as svcd: this test binary (see svcdCommand).
func svcdPath(t *testing.T) string {
	t.Helper()
	bin, err := os.Executable()
	require.NoError(t, err)
	return bin
}

// svcdCommand is `svcd mode` with the test's environment and extra variables (NAME=value) on top.
func svcdCommand(svcd, mode string, extra ...string) *exec.Cmd {
	cmd := exec.Command(svcd, mode)
	cmd.Env = append(append(os.Environ(), asSvcdEnv+"=1"), extra...)
	return cmd
}

// fundedKey is the first key of a new account holding credits.
func fundedKey(t *testing.T, env *apptest.Env, credits int64) string {
	t.Helper()
	created, err := env.Accounts.Create(context.Background(), "payer", credits, time.Hour)
	require.NoError(t, err)
	first := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": created.CreditToken, "Idempotency-Key": "k"}})
	require.Equal(t, http.StatusCreated, first.Status, "%s", first.Raw)
	return first.Body["apiKey"].(map[string]any)["secret"].(string)
}

// traderWallet is a client of a new account holding 10 credits, its managed wallet given eth from the
// dev chain's faucet, and an RPC client of the chain.
func traderWallet(t *testing.T, env *apptest.Env, eth float64) (*client.Client, client.Wallet, *ethclient.Client) {
	t.Helper()
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(fundedKey(t, env, 10)))
	w := c.CreateWallet(context.Background(), client.CreateWalletRequest{Name: "trader"}).Body.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 0, "eth": eth}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	rpc, err := ethclient.Dial(env.Chain.RPCURL())
	require.NoError(t, err)
	t.Cleanup(rpc.Close)
	return c, w, rpc
}
