// Package apptest assembles the whole platform for end-to-end tests: an isolated schema in the real
// PostgreSQL, a namespace of its own on the in-process Temporal server (temporaltest) the test process
// shares, the production worker, and the API served over real HTTP on loopback.
package apptest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	sdkclient "go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"

	"github.com/svcplatform/svc/api"
	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/internal/account"
	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/agent"
	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/audit"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/codeproof"
	"github.com/svcplatform/svc/internal/delivery"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/evm/usdc"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/handles"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/internal/vault"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/internal/x402"
	"github.com/svcplatform/svc/schema"
)

// Env is a running platform.
type Env struct {
	DB       *bun.DB
	Temporal sdkclient.Client
	Server   *api.Server
	HTTP     *httptest.Server
	// URL is the host root, e.g. http://127.0.0.1:PORT.
	URL      string
	Accounts *account.Service
	Box      *secretbox.Box
	// Blobs is the platform's blob store, a local directory of the test (BlobDir).
	Blobs   blob.Store
	BlobDir string
	// Artifacts is the artifact store the API serves from, with its blobs below "artifacts/" of Blobs,
	// the directory ArtifactDir.
	Artifacts   *artifact.Store
	ArtifactDir string
	// DatabaseURL, TemporalAddress, Namespace and EncryptionKey let a process (svcd worker) join the
	// platform: the URL selects the test's schema.
	DatabaseURL     string
	TemporalAddress string
	Namespace       string
	EncryptionKey   string
	// Chain is the dev chain of an environment made with Options.Chain (in memory, on a free port), with
	// X402 the top-up configuration pointing at it; nil otherwise.
	Chain *devchain.Chain
	X402  *x402.Config
	// Databases is the cluster of the accounts' managed databases: the test PostgreSQL, with a name
	// prefix of the test's own; every database it made is dropped when the test ends.
	Databases *accountdb.Cluster
	deps      app.APIDeps
}

// Options adjust the platform a test gets.
type Options struct {
	// APITemporal, when set, wraps the Temporal client the API uses (the worker keeps the real one), to
	// inject faults between the API and Temporal.
	APITemporal func(sdkclient.Client) sdkclient.Client
	// Gateway are external services (services.yaml) the API may invoke; loopback upstreams are allowed.
	Gateway *gateway.Catalog
	// LLM is the LLM gateway's catalog (providers pointing at llmtest servers, say); nil is the built-in
	// one with no provider configured.
	LLM *llm.Catalog
	// Log receives the API's logs at debug level; nil discards them.
	Log io.Writer
	// NoWorker leaves the worker out, for tests that run workers of their own (as processes, say).
	NoWorker bool
	// AppInlineRuns lets the API execute app script runs that make no platform call in the request
	// (SVC_APP_INLINE_RUNS).
	AppInlineRuns bool
	// WebhookRetryScale shortens webhook retry waits by this factor (0 < scale < 1); 0 keeps the
	// contract's schedule.
	WebhookRetryScale float64
	// Chain starts a dev chain (with the dev USDC) and turns x402 top-ups and POST /dev/faucet on.
	Chain bool
	// TopUpWait is how long a paid top-up waits for its settlement (0: api.TopUpWait).
	TopUpWait time.Duration
	// FacilitatorURL makes the worker settle top-ups through this external x402 facilitator.
	FacilitatorURL string
	// CreditLeases tunes the API's credit leases (see ledger.LeaseOptions).
	CreditLeases ledger.LeaseOptions
	// RunSweepInterval is how often the API reconciles runs left unstarted (0: app.RunSweepInterval).
	RunSweepInterval time.Duration
	// DatabaseConn opens the managed databases of the API's accounts (accountdbtest.Connector, say); nil
	// answers the database routes 503.
	DatabaseConn accountdb.Connector
	// NoDatabases leaves the cluster of managed databases out (Env.Databases nil): their routes answer 503.
	NoDatabases bool
	// AutomationInterval, when set, makes automations' schedules fire at this interval instead of their
	// cron expressions, so a test sees fires within seconds.
	AutomationInterval time.Duration
	// Audit tunes the API's background audit writer (an Interval of an hour holds read events in memory,
	// as if the writer were stuck).
	Audit audit.Options
	// WalletScreening configures the screening of wallet sends (zero: wallet.DefaultScreening).
	WalletScreening wallet.ScreeningOptions
	// TrustedProxies are the proxies whose X-Forwarded-For the API believes (SVC_TRUSTED_PROXIES).
	TrustedProxies []string
	// WalletNames is the API's handle resolver (SVC_WALLET_NAMES).
	WalletNames handles.Names
	// FeeCacheTTL is how long the public fee routes cache their answers with Chain (0: 2 minutes;
	// negative: no cache).
	FeeCacheTTL time.Duration
	// WorkerNativeUSDPrice is the worker's SVC_NATIVE_USD_PRICE (0: unknown, so auto top-ups credit
	// nothing and the worker's orders price no native sends).
	WorkerNativeUSDPrice float64
	// HandleFile is the handle resolver's file (SVC_HANDLE_RESOLVER_FILE: x, farcaster and ens names).
	HandleFile string
	// Vault is the platform's vault directory (SVC_VAULT) for the API and the worker; "" leaves
	// handoffs answering 503.
	Vault string
	// HandoffCheckEvery is the interval between a handoff's ack checks (0: the default).
	HandoffCheckEvery time.Duration
	// CodeProof configures the code-proof routes (a test gives its CLI, node and data folder; an empty
	// DataDir is a folder of the test).
	CodeProof codeproof.Config
	// ProjectsFile is the code-project registry without a vault ("": a file of the test).
	ProjectsFile string
	// VaultWatchEvery is how often the worker's vault watcher looks for handoffs' acks (0: the default,
	// handoff.DefaultWatchEvery).
	VaultWatchEvery time.Duration
	// AgentModel is the model agent jobs call (the LLM gateway, or a scripted one); nil fails their
	// model calls.
	AgentModel agent.Model
	// SMTPURL is where sign-in codes are mailed (an smtptest server, say); "" keeps them in the dev
	// mailbox.
	SMTPURL string
	// EmailNow is the clock of sign-in codes (nil: time.Now).
	EmailNow func() time.Time
}

// workerStopTimeout bounds how long stopping a test's worker waits for its tasks in flight; a task
// still running then (a call to a hanging upstream, say) has its context cancelled.
const workerStopTimeout = 10 * time.Second

// New starts a platform for one test and stops it when the test ends.
func New(t testing.TB) *Env { return NewWith(t, Options{}) }

// NewWith is New with options.
func NewWith(t testing.TB, opts Options) *Env {
	t.Helper()
	db, schemaName := testdb.NewWithSchema(t)
	tn := newNamespace(t)
	tc := tn.Client
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	key := make([]byte, secretbox.KeySize)
	_, _ = rand.Read(key)
	box, err := secretbox.New(key)
	require.NoError(t, err)

	blobDir := t.TempDir()
	blobs := blob.NewLocal(blobDir)
	artifactDir := filepath.Join(blobDir, filepath.FromSlash(app.ArtifactPrefix))
	artifacts := artifact.NewStore(db, blob.WithPrefix(blobs, app.ArtifactPrefix), artifact.Options{})
	var databases *accountdb.Cluster
	if !opts.NoDatabases {
		databases = testCluster(t, db, box)
	}
	limitClock := midnightClock()
	var handoffVault *vault.Vault
	if opts.Vault != "" {
		handoffVault, err = vault.Open(opts.Vault, vault.Options{})
		require.NoError(t, err)
	}
	wdeps := app.WorkerDeps{Vault: handoffVault, DB: db, Gateway: opts.Gateway, Box: box, AllowLoopback: true, Artifacts: artifacts, Blobs: blobs,
		Databases: databases, LimitClock: limitClock, AgentModel: opts.AgentModel, AgentDispatch: &app.LateDispatcher{}, LLM: opts.LLM,
		NativeUSDPrice: opts.WorkerNativeUSDPrice}
	var chain *devchain.Chain
	var xc *x402.Config
	var faucet api.Faucet
	if opts.Chain {
		chain, xc, faucet = startChain(t)
		ch, err := evm.Dial(ctx, chain.RPCURL(), xc.ChainID, xc.Asset, devchain.FacilitatorKey())
		require.NoError(t, err)
		t.Cleanup(ch.Close)
		wdeps.Chain = ch
		if opts.FacilitatorURL != "" {
			wdeps.Facilitator, wdeps.X402 = &x402.HTTPFacilitator{BaseURL: opts.FacilitatorURL}, xc
		}
	}
	if !opts.NoWorker {
		// Stop waits for the tasks in flight (a run writing its output artifact, say), so nothing writes
		// into the test's directories or schema after the test has ended.
		w := app.NewWorker(tc, wdeps, sdkworker.Options{WorkerStopTimeout: workerStopTimeout})
		require.NoError(t, w.Start())
		t.Cleanup(w.Stop)
		t.Cleanup(app.StartDispatcher(tc, db, delivery.DispatcherOptions{RetryScale: opts.WebhookRetryScale}))
		t.Cleanup(app.StartVaultWatcher(tc, wdeps, opts.VaultWatchEvery, nil))
	}
	logTo := opts.Log
	if logTo == nil {
		logTo = io.Discard
	}
	log := slog.New(slog.NewTextHandler(logTo, &slog.HandlerOptions{Level: slog.LevelDebug}))
	apiTemporal := tc
	if opts.APITemporal != nil {
		apiTemporal = opts.APITemporal(tc)
	}
	e := &Env{DB: db, Temporal: tc, Accounts: account.New(db, box.Derive("credit-token")), Box: box,
		DatabaseURL: testdb.SchemaURL(schemaName), TemporalAddress: tn.HostPort, Namespace: tn.Namespace,
		EncryptionKey: base64.StdEncoding.EncodeToString(key),
		Blobs:         blobs, BlobDir: blobDir, Artifacts: artifacts, ArtifactDir: artifactDir, Chain: chain, X402: xc,
		Databases: databases,
		deps: app.APIDeps{Vault: handoffVault, HandoffCheckEvery: opts.HandoffCheckEvery, CodeProof: codeProofOf(t, opts.CodeProof),
			ProjectsFile: cmp.Or(opts.ProjectsFile, filepath.Join(t.TempDir(), "projects.json")), Databases: databases, DB: db, Temporal: apiTemporal, Box: box, Logger: log, Version: "test", Gateway: opts.Gateway, LLM: opts.LLM, AllowLoopback: true,
			Artifacts: artifacts, Blobs: blobs, X402: xc, ChainRPCURL: chainURL(chain), NativeUSDPrice: app.DevNativeUSDPrice, WalletScreening: opts.WalletScreening, DevFaucet: faucet, TopUpWait: opts.TopUpWait, CreditLeases: opts.CreditLeases,
			RunSweepInterval: opts.RunSweepInterval, Audit: opts.Audit, DatabaseConn: opts.DatabaseConn, AppInlineRuns: opts.AppInlineRuns,
			LimitClock: limitClock, Automations: automation.Options{TestInterval: opts.AutomationInterval},
			TrustedProxies: opts.TrustedProxies, Handles: resolverOf(t, opts.HandleFile, opts.WalletNames),
			SMTPURL: opts.SMTPURL, EmailNow: opts.EmailNow}}
	if opts.Chain {
		e.deps.Fees = app.DevFees(app.FeeConfig{Confirmations: -1, CacheTTL: opts.FeeCacheTTL})
	}
	e.Server, e.HTTP = e.startAPI(t)
	wdeps.AgentDispatch.(*app.LateDispatcher).Bind(e.Server)
	e.URL = e.HTTP.URL
	return e
}

// chainURL is the dev chain's RPC URL, "" without one.
func chainURL(c *devchain.Chain) string {
	if c == nil {
		return ""
	}
	return c.RPCURL()
}

// midnightClock is a running clock that reads the UTC midnight of today when it is made: limit windows
// (a minute, a day) then begin with the test, so a test that spends a limit does not see its window turn
// halfway (a test ends well within the minute).
func midnightClock() func() time.Time {
	now := time.Now().UTC()
	offset := now.Sub(now.Truncate(24 * time.Hour))
	return func() time.Time { return time.Now().Add(-offset) }
}

// testCluster is a cluster of managed databases on the test PostgreSQL with a random name prefix and
// tiny pools. It connects only when a test provisions; its cleanup, registered before the worker and
// the API start so that it runs after they stop, drops every database it made.
func testCluster(t testing.TB, db *bun.DB, box *secretbox.Box) *accountdb.Cluster {
	t.Helper()
	suffix := make([]byte, 4)
	_, _ = rand.Read(suffix)
	c, err := accountdb.NewCluster(db, testdb.URL(), box, accountdb.Options{NamePrefix: "t" + hex.EncodeToString(suffix) + "_", PoolSize: 2})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var accounts []string
		_ = db.NewSelect().Model((*schema.AccountDatabase)(nil)).Column("account_id").
			Where("status <> ?", schema.DatabaseDeleted).Scan(ctx, &accounts)
		for _, a := range accounts {
			if _, err := c.Deprovision(ctx, a); err != nil {
				t.Errorf("drop the managed database of %s: %v", a, err)
			}
		}
		_ = c.Close()
	})
	return c
}

// startChain starts an in-memory dev chain on a free port for one test.
func startChain(t testing.TB) (*devchain.Chain, *x402.Config, api.Faucet) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	chain, err := devchain.Start(ctx, devchain.Config{Addr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = chain.Close() })
	xc := &x402.Config{Network: devchain.Network, ChainID: big.NewInt(devchain.ChainID), Asset: devchain.USDCAddress,
		PayTo: devchain.PayTo, Name: usdc.DomainName, Version: usdc.DomainVersion, MaxTimeoutSeconds: 300}
	require.NoError(t, xc.Validate())
	url := chain.RPCURL()
	faucet := func(ctx context.Context, to common.Address, usdcAtomic, wei *big.Int) (api.Funded, error) {
		res, err := devchain.Fund(ctx, url, to, usdcAtomic, wei)
		return api.Funded{USDCTx: res.USDCTx, ETHTx: res.ETHTx}, err
	}
	return chain, xc, faucet
}

// startAPI serves one more API process on the environment's database and Temporal.
func (e *Env) startAPI(t testing.TB) (*api.Server, *httptest.Server) {
	proc, err := app.NewAPI(e.deps)
	require.NoError(t, err)
	bg, stop := context.WithCancel(context.Background())
	proc.Start(bg)
	hs := httptest.NewServer(proc.Server.Handler())
	t.Cleanup(func() { hs.Close(); stop(); proc.Close() })
	return proc.Server, hs
}

// SecondAPI starts another API process sharing everything with the first and returns its URL, for
// tests of what processes must agree on (limits, revocations).
func (e *Env) SecondAPI(t testing.TB) string {
	_, hs := e.startAPI(t)
	return hs.URL
}

// NewAccount creates an account and returns its id and first-key credit token.
func (e *Env) NewAccount(t testing.TB, name string) (string, string) {
	t.Helper()
	created, err := e.Accounts.Create(context.Background(), name, 0, 0)
	require.NoError(t, err)
	return created.AccountID, created.CreditToken
}

// FirstKey creates an account and its first key (every scope and service) and returns the secret.
func (e *Env) FirstKey(t testing.TB) string {
	t.Helper()
	_, token := e.NewAccount(t, "bench")
	resp := e.Do(t, Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "first-key"}})
	require.Equal(t, http.StatusCreated, resp.Status, "%s", resp.Raw)
	return resp.Body["apiKey"].(map[string]any)["secret"].(string)
}

// Response is a decoded answer.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

// ErrorCode is the error envelope's code, or "".
func (r *Response) ErrorCode() string {
	e, _ := r.Body["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code
}

// Req describes one request.
type Req struct {
	Method string
	Path   string
	// Key is sent as Authorization: Bearer.
	Key     string
	Body    any
	Headers map[string]string
	// BaseURL, when set, sends the request to another API process (see SecondAPI).
	BaseURL string
}

// Do sends a request and decodes the JSON answer.
func (e *Env) Do(t testing.TB, r Req) *Response {
	t.Helper()
	var body io.Reader
	switch b := r.Body.(type) {
	case nil:
	case string:
		body = bytes.NewBufferString(b)
	default:
		raw, err := json.Marshal(b)
		require.NoError(t, err)
		body = bytes.NewReader(raw)
	}
	base := e.URL
	if r.BaseURL != "" {
		base = r.BaseURL
	}
	req, err := http.NewRequest(r.Method, base+r.Path, body)
	require.NoError(t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.Key != "" {
		req.Header.Set("Authorization", "Bearer "+r.Key)
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if len(raw) > 0 && isJSON(resp.Header.Get("Content-Type")) {
		require.NoError(t, json.Unmarshal(raw, &out.Body), "body: %s", raw)
	}
	return out
}

// isJSON reports whether a Content-Type is JSON (or absent, as on some error paths): other bodies (an
// artifact's content) stay in Raw only.
func isJSON(contentType string) bool {
	return contentType == "" || strings.Contains(contentType, "json")
}

// codeProofOf is the test's code-proof configuration: its identities in a folder of the test.
func codeProofOf(t testing.TB, c codeproof.Config) codeproof.Config {
	if c.DataDir == "" {
		c.DataDir = filepath.Join(t.TempDir(), "codeproof")
	}
	return c
}

// resolverOf is the handle resolver of a test: its file (none when ""), its fixed ENS-style names.
func resolverOf(t testing.TB, file string, names handles.Names) *handles.Resolver {
	r, err := handles.New(file, names)
	require.NoError(t, err)
	return r
}
