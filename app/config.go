// Package app wires svc's processes together: configuration from the environment, and one Run function
// per mode (dev, api, worker, migrate) that main calls. Constructors take explicit dependencies; nothing
// here is global.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/codeproof"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/handles"
	"github.com/svcplatform/svc/internal/llm"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
	svctemporal "github.com/svcplatform/svc/temporal"
)

// Config is everything a process reads from its environment. Every variable is documented in README.md.
type Config struct {
	// HTTPAddr is where the API listens (SVC_HTTP_ADDR, default 127.0.0.1:8080).
	HTTPAddr string
	// DatabaseURL is the PostgreSQL URL (DATABASE_URL). In dev mode it is discovered when empty.
	DatabaseURL string
	// DBMaxConns caps the pool (SVC_DB_MAX_CONNS, default 20).
	DBMaxConns int
	// DataDir holds dev-mode state: keys, the Temporal SQLite file, a private PostgreSQL (SVC_DATA_DIR, default .data).
	DataDir string
	// EncryptionKey is the base64 master key (SVC_ENCRYPTION_KEY). Dev mode generates DataDir/keys/master.key.
	EncryptionKey string
	// Temporal is how to reach Temporal (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TLS_CERT,
	// TEMPORAL_TLS_KEY, TEMPORAL_TLS_CA, TEMPORAL_TLS_SERVER_NAME, TEMPORAL_API_KEY).
	Temporal svctemporal.ClientConfig
	// TemporalPort and TemporalUIPort are the dev server's frontend and Web UI ports
	// (SVC_TEMPORAL_PORT default 7233, SVC_TEMPORAL_UI_PORT default 8233; -1 disables the UI).
	TemporalPort   int
	TemporalUIPort int
	// TemporalUIURL is the Temporal Web UI's root (SVC_TEMPORAL_UI_URL; svcd dev: its own UI), for the
	// run links the MCP tools answer; "" for none.
	TemporalUIURL string
	// LogLevel is debug, info, warn or error (SVC_LOG_LEVEL, default info); LogFormat is text or json (SVC_LOG_FORMAT).
	LogLevel  string
	LogFormat string
	// ServicesFile is the services.yaml of external managed services (SVC_SERVICES_FILE; default
	// ./services.yaml when it exists).
	ServicesFile string
	// LLMFile is the LLM gateway's catalog of providers and models (SVC_LLM_FILE; default ./llm.yaml
	// when it exists, else the built-in llm.DefaultCatalog, whose provider is SVC_LLM_BASE_URL with the
	// key SVC_LLM_API_KEY).
	LLMFile string
	// LLM is the catalog loaded from LLMFile, its providers' URLs and keys read from the environment.
	LLM *llm.Catalog
	// TrustedProxies are the reverse proxies (addresses or CIDRs, comma-separated in SVC_TRUSTED_PROXIES)
	// whose X-Forwarded-For gives the client IP recorded in audit events; none by default.
	TrustedProxies []string
	// SIWEDomain is the domain (host[:port]) sign-in-with-Ethereum messages must name (SVC_SIWE_DOMAIN);
	// default the host and port of HTTPAddr (localhost for an unspecified host).
	SIWEDomain string
	// SMTPURL is the SMTP server sign-in codes are mailed through (SVC_SMTP_URL: smtp://user:pass@host:port
	// with STARTTLS when offered, port 587 by default, or smtps://… with implicit TLS, port 465 by default).
	// Unset, mail goes to the dev mailbox in PostgreSQL, which `svcd dev mail` prints.
	SMTPURL string
	// MailFrom is the sender of sign-in mail (SVC_MAIL_FROM; default "svc <no-reply@localhost>").
	MailFrom string
	// BlobURL is the platform's one blob store (SVC_BLOB_URL): file:///dir, s3://bucket?region=...,
	// gs://bucket (see blob.Open); default file://DataDir/blobs, made absolute. Every API and worker
	// process must reach the same store.
	BlobURL string
	// ArtifactDir, when set (SVC_ARTIFACT_DIR, kept for installations that set it), is a local directory
	// that holds the artifact blobs instead of "artifacts/" of the blob store.
	ArtifactDir string
	// ArtifactMaxBytes caps one artifact (SVC_ARTIFACT_MAX_BYTES, default 100 MiB).
	ArtifactMaxBytes int64
	// FileTiers are the storage rules of each account tier: seed 002's defaults (file.DefaultTiers),
	// each overridden by SVC_FILE_LIMITS_STANDARD and SVC_FILE_LIMITS_CLUB (file.ParseLimits).
	FileTiers file.Tiers
	// FilePurgeAfter is how long a soft-deleted file waits before its purge removes it for good
	// (SVC_FILE_PURGE_AFTER, a Go duration such as 24h or 90s; default file.DefaultPurgeAfter, 24 h).
	FilePurgeAfter time.Duration
	// DatabaseClusterURL is the PostgreSQL cluster that holds the accounts' managed databases, reached as
	// an admin role with CREATEDB and CREATEROLE, or a superuser (SVC_DATABASE_CLUSTER_URL, default
	// DATABASE_URL; svcd dev uses its own database's server).
	DatabaseClusterURL string
	// Databases tune the managed databases: SVC_DATABASE_NAME_PREFIX (default svcdb_),
	// SVC_DATABASE_CONNECTION_LIMIT per role (default 10), SVC_DATABASE_STATEMENT_TIMEOUT (default 10s),
	// SVC_DATABASE_IDLE_TIMEOUT (idle in transaction, default 60s), SVC_DATABASE_POOL_SIZE per account and
	// role in each process (default 4).
	Databases accountdb.Options
	// Chain is where x402 top-ups are paid (SVC_CHAIN_RPC_URL and friends; see ChainConfig).
	Chain ChainConfig
	// Fees is where token-launch fees are read and indexed (SVC_FEES_MANAGER_ADDRESS and friends; see FeeConfig).
	Fees FeeConfig
	// NativeUSDPrice is the chain's native asset in USD, for wallets' USD limits (SVC_NATIVE_USD_PRICE,
	// a decimal; svcd dev defaults it to DevNativeUSDPrice; otherwise unknown, and sends of the native
	// asset are refused while a USD limit is on).
	NativeUSDPrice float64
	// WalletScreening configures the screening step of wallet sends: SVC_WALLET_DENYLIST (a file of
	// addresses, read again when it changes), SVC_WALLET_FIRST_RECIPIENT_APPROVAL_USD (whole USD; 0 off;
	// default 250), SVC_WALLET_BURST_SENDS (0 off; default 100) within SVC_WALLET_BURST_WINDOW (a Go
	// duration; default 1m). See wallet.ScreeningOptions.
	WalletScreening wallet.ScreeningOptions
	// Handles is the handle resolver (POST /wallet/transfer's to, token launches' feeRecipient): the
	// ENS-style names of SVC_WALLET_NAMES ("alice.eth=0x…,bob.eth=0x…"; none by default) and the YAML
	// file SVC_HANDLE_RESOLVER_FILE (x, farcaster and ens names; read again when it changes; none by
	// default). See handles.New.
	Handles *handles.Resolver
	// Launch configures token launches (SVC_LAUNCH_SEED_WEI, SVC_GAS_SPONSOR_KEY, …; see LaunchConfig).
	Launch LaunchConfig
	// Trading configures managed trading's venue (SVC_TRADING_ROUTER, SVC_TRADING_TOKENS_FILE; see
	// TradingConfig).
	Trading TradingConfig
	// Vault is the platform's synced vault directory (SVC_VAULT): the handoff planner reads its machine
	// cards and the worker writes handoffs' transfers into it. Empty: handoffs answer 503.
	Vault string
	// CodeProof configures the code-proof routes: SVC_CODEPROOF_CLI (the CLI's name or path, default
	// codeproof), SVC_CODEPROOF_NODE_URL (the node; none by default), SVC_CODEPROOF_DIR (the identities'
	// private folder, default $XDG_CONFIG_HOME/svc/codeproof).
	CodeProof codeproof.Config
	// ProjectsFile is the code-project registry without a vault (SVC_PROJECTS_FILE, default
	// $XDG_CONFIG_HOME/svc/projects.json).
	ProjectsFile string
	// DevRecord is where svcd dev records its database and key for admin commands (SVC_DEV_RECORD,
	// default $XDG_CONFIG_HOME/svc/dev.json or ~/.config/svc/dev.json; see DevRecordPath).
	DevRecord string
	// WebhooksAllowLoopback lets a worker's webhook deliveries reach http:// endpoints on loopback
	// addresses (SVC_WEBHOOKS_ALLOW_LOOPBACK=1; development and tests; svcd dev always allows them).
	WebhooksAllowLoopback bool
	// AppInlineRuns lets the API execute an app script run that makes no platform call in the request
	// itself, without its workflow (SVC_APP_INLINE_RUNS=1; off by default: every run is a workflow).
	AppInlineRuns bool
	// Version is the build, set by main.
	Version string
}

// FromEnv reads the configuration through getenv (os.Getenv in main, a map in tests).
func FromEnv(getenv func(string) string) (Config, error) {
	cfg := Config{
		HTTPAddr:      or(getenv("SVC_HTTP_ADDR"), "127.0.0.1:8080"),
		DatabaseURL:   getenv("DATABASE_URL"),
		DataDir:       or(getenv("SVC_DATA_DIR"), ".data"),
		EncryptionKey: getenv("SVC_ENCRYPTION_KEY"),
		Temporal: svctemporal.ClientConfig{
			Address: getenv("TEMPORAL_ADDRESS"), Namespace: getenv("TEMPORAL_NAMESPACE"),
			TLSCertFile: getenv("TEMPORAL_TLS_CERT"), TLSKeyFile: getenv("TEMPORAL_TLS_KEY"),
			TLSCAFile: getenv("TEMPORAL_TLS_CA"), TLSServerName: getenv("TEMPORAL_TLS_SERVER_NAME"),
			APIKey: getenv("TEMPORAL_API_KEY"),
		},
		TrustedProxies: splitList(getenv("SVC_TRUSTED_PROXIES")),
		SIWEDomain:     getenv("SVC_SIWE_DOMAIN"),
		SMTPURL:        getenv("SVC_SMTP_URL"),
		MailFrom:       getenv("SVC_MAIL_FROM"),
		ServicesFile:   getenv("SVC_SERVICES_FILE"),
		LogLevel:       or(getenv("SVC_LOG_LEVEL"), "info"),
		LogFormat:      or(getenv("SVC_LOG_FORMAT"), "text"),
		DevRecord:      DevRecordPath(getenv),
		Vault:          getenv("SVC_VAULT"),
		CodeProof: codeproof.Config{CLI: getenv("SVC_CODEPROOF_CLI"), NodeURL: getenv("SVC_CODEPROOF_NODE_URL"),
			DataDir: getenv("SVC_CODEPROOF_DIR")},
		ProjectsFile:          getenv("SVC_PROJECTS_FILE"),
		WebhooksAllowLoopback: getenv("SVC_WEBHOOKS_ALLOW_LOOPBACK") == "1",
		AppInlineRuns:         getenv("SVC_APP_INLINE_RUNS") == "1",
	}
	var err error
	if cfg.DBMaxConns, err = intVar(getenv, "SVC_DB_MAX_CONNS", 20); err != nil {
		return Config{}, err
	}
	if cfg.TemporalPort, err = intVar(getenv, "SVC_TEMPORAL_PORT", svctemporal.DefaultDevFrontendPort); err != nil {
		return Config{}, err
	}
	if cfg.TemporalUIPort, err = intVar(getenv, "SVC_TEMPORAL_UI_PORT", svctemporal.DefaultDevUIPort); err != nil {
		return Config{}, err
	}
	cfg.TemporalUIURL = strings.TrimRight(strings.TrimSpace(getenv("SVC_TEMPORAL_UI_URL")), "/")
	if cfg.BlobURL, err = blobURL(getenv, cfg.DataDir); err != nil {
		return Config{}, err
	}
	cfg.ArtifactDir = getenv("SVC_ARTIFACT_DIR")
	maxBytes, err := intVar(getenv, "SVC_ARTIFACT_MAX_BYTES", int(artifact.DefaultMaxBytes))
	if err != nil {
		return Config{}, err
	}
	if maxBytes <= 0 {
		return Config{}, fmt.Errorf("SVC_ARTIFACT_MAX_BYTES must be positive, got %d", maxBytes)
	}
	cfg.ArtifactMaxBytes = int64(maxBytes)
	if cfg.FileTiers, err = fileTiers(getenv); err != nil {
		return Config{}, err
	}
	if cfg.FilePurgeAfter, err = positiveDuration(getenv, "SVC_FILE_PURGE_AFTER", file.DefaultPurgeAfter); err != nil {
		return Config{}, err
	}
	if cfg.Chain, err = chainFromEnv(getenv); err != nil {
		return Config{}, err
	}
	if cfg.Fees, err = feesFromEnv(getenv); err != nil {
		return Config{}, err
	}
	cfg.LLMFile = getenv("SVC_LLM_FILE")
	if cfg.LLM, err = loadLLM(cfg.LLMFile, getenv); err != nil {
		return Config{}, err
	}
	cfg.DatabaseClusterURL = or(getenv("SVC_DATABASE_CLUSTER_URL"), cfg.DatabaseURL)
	if cfg.Databases, err = databaseOptions(getenv); err != nil {
		return Config{}, err
	}
	if v := getenv("SVC_NATIVE_USD_PRICE"); v != "" {
		if cfg.NativeUSDPrice, err = strconv.ParseFloat(v, 64); err != nil || cfg.NativeUSDPrice <= 0 || cfg.NativeUSDPrice > 1e9 {
			return Config{}, fmt.Errorf("SVC_NATIVE_USD_PRICE must be a positive decimal USD price, got %q", v)
		}
	}
	if cfg.WalletScreening, err = walletScreening(getenv); err != nil {
		return Config{}, err
	}
	names, err := handles.ParseNames(getenv("SVC_WALLET_NAMES"))
	if err != nil {
		return Config{}, fmt.Errorf("SVC_WALLET_NAMES: %w", err)
	}
	if cfg.Handles, err = handles.New(getenv("SVC_HANDLE_RESOLVER_FILE"), names); err != nil {
		return Config{}, fmt.Errorf("SVC_HANDLE_RESOLVER_FILE: %w", err)
	}
	cfg.Launch = launchFromEnv(getenv)
	cfg.Trading = tradingFromEnv(getenv)
	if _, err := cfg.Trading.Trading(); err != nil {
		return Config{}, err
	}
	if _, err := cfg.Launch.Launch(); err != nil {
		return Config{}, err
	}
	if _, err := cfg.Launch.sponsorKey(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// walletScreening reads the screening step's settings (see Config.WalletScreening).
func walletScreening(getenv func(string) string) (wallet.ScreeningOptions, error) {
	o := wallet.DefaultScreening()
	o.DenylistPath = getenv("SVC_WALLET_DENYLIST")
	usd, err := intVar(getenv, "SVC_WALLET_FIRST_RECIPIENT_APPROVAL_USD", int(o.FirstRecipientApprovalCents/100))
	if err != nil {
		return o, err
	}
	if usd < 0 {
		return o, fmt.Errorf("SVC_WALLET_FIRST_RECIPIENT_APPROVAL_USD must be 0 or more, got %d", usd)
	}
	o.FirstRecipientApprovalCents = int64(usd) * 100
	if o.BurstSends, err = intVar(getenv, "SVC_WALLET_BURST_SENDS", o.BurstSends); err != nil {
		return o, err
	}
	if o.BurstSends < 0 {
		return o, fmt.Errorf("SVC_WALLET_BURST_SENDS must be 0 or more, got %d", o.BurstSends)
	}
	if o.BurstWindow, err = positiveDuration(getenv, "SVC_WALLET_BURST_WINDOW", o.BurstWindow); err != nil {
		return o, err
	}
	return o, nil
}

// DevNativeUSDPrice is the dev chain's native asset in USD unless SVC_NATIVE_USD_PRICE says otherwise.
const DevNativeUSDPrice = 3000

// databaseOptions read the managed databases' settings (see Config.Databases).
func databaseOptions(getenv func(string) string) (accountdb.Options, error) {
	o := accountdb.Options{NamePrefix: or(getenv("SVC_DATABASE_NAME_PREFIX"), accountdb.DefaultNamePrefix)}
	if err := accountdb.ValidateNamePrefix(o.NamePrefix); err != nil {
		return o, fmt.Errorf("SVC_DATABASE_NAME_PREFIX: %w", err)
	}
	var err error
	if o.ConnectionLimit, err = positiveInt(getenv, "SVC_DATABASE_CONNECTION_LIMIT", accountdb.DefaultConnectionLimit); err != nil {
		return o, err
	}
	if o.PoolSize, err = positiveInt(getenv, "SVC_DATABASE_POOL_SIZE", accountdb.DefaultPoolSize); err != nil {
		return o, err
	}
	if o.StatementTimeout, err = positiveDuration(getenv, "SVC_DATABASE_STATEMENT_TIMEOUT", accountdb.DefaultStatementTimeout); err != nil {
		return o, err
	}
	if o.IdleInTransactionTimeout, err = positiveDuration(getenv, "SVC_DATABASE_IDLE_TIMEOUT", accountdb.DefaultIdleInTransactionTimeout); err != nil {
		return o, err
	}
	return o, nil
}

// positiveInt reads a whole number above zero, def when unset.
func positiveInt(getenv func(string) string, name string, def int) (int, error) {
	n, err := intVar(getenv, name, def)
	if err == nil && n <= 0 {
		err = fmt.Errorf("%s must be positive, got %d", name, n)
	}
	return n, err
}

// DatabaseCluster is the cluster of the accounts' managed databases (DatabaseClusterURL), its rows in db
// and its roles' passwords sealed by box; nil when no cluster URL is configured.
func (c Config) DatabaseCluster(db *bun.DB, box *secretbox.Box, log *slog.Logger) (*accountdb.Cluster, error) {
	if c.DatabaseClusterURL == "" {
		return nil, nil
	}
	opts := c.Databases
	opts.Log = log
	cl, err := accountdb.NewCluster(db, c.DatabaseClusterURL, box, opts)
	if err != nil {
		return nil, fmt.Errorf("managed databases (SVC_DATABASE_*): %w", err)
	}
	return cl, nil
}

// FileOptions are the files' storage rules and purge delay of the configuration.
func (c Config) FileOptions() file.Options {
	return file.Options{Tiers: c.FileTiers, PurgeAfter: c.FilePurgeAfter}
}

// fileTiers are the default storage rules with the overrides of SVC_FILE_LIMITS_<TIER>.
func fileTiers(getenv func(string) string) (file.Tiers, error) {
	tiers := file.DefaultTiers()
	for _, tier := range []string{schema.TierStandard, schema.TierClub} {
		name := "SVC_FILE_LIMITS_" + strings.ToUpper(tier)
		l, err := file.ParseLimits(getenv(name), tiers[tier])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		tiers[tier] = l
	}
	return tiers, nil
}

// blobURL is SVC_BLOB_URL, or a file store in dataDir/blobs.
func blobURL(getenv func(string) string, dataDir string) (string, error) {
	if v := getenv("SVC_BLOB_URL"); v != "" {
		return v, nil
	}
	dir, err := filepath.Abs(filepath.Join(dataDir, "blobs"))
	if err != nil {
		return "", fmt.Errorf("SVC_BLOB_URL default: %w", err)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}).String(), nil
}

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func splitList(v string) []string {
	var out []string
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func intVar(getenv func(string) string, name string, def int) (int, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("%s must be a whole number, got %q", name, v)
	}
	return n, nil
}

// positiveDuration reads a Go duration (e.g. 24h, 90s), def when unset; zero or negative is refused.
func positiveDuration(getenv func(string) string, name string, def time.Duration) (time.Duration, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s must be a positive Go duration such as 24h or 90s, got %q", name, v)
	}
	return d, nil
}

// Logger builds the process logger.
func (c Config) Logger() *slog.Logger {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: level}
	if strings.EqualFold(c.LogFormat, "json") {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}

// KeyMode says where a process may take its master key from when SVC_ENCRYPTION_KEY is unset.
type KeyMode int

const (
	// KeyRequired: only SVC_ENCRYPTION_KEY (svcd api: every replica must share one key).
	KeyRequired KeyMode = iota
	// KeyFileOrCreate: DataDir/keys/master.key, created on first use (svcd dev). Admin commands read the
	// key file the running svcd dev records (DevRecord).
	KeyFileOrCreate
)

// Box returns the secret box for SVC_ENCRYPTION_KEY, or, as mode allows, for the dev key file.
func (c Config) Box(mode KeyMode) (*secretbox.Box, error) {
	path := devKeyFile(c.DataDir)
	var key []byte
	var err error
	switch {
	case c.EncryptionKey != "":
		key, err = secretbox.ParseKey(c.EncryptionKey)
	case mode == KeyFileOrCreate:
		key, err = secretbox.LoadOrCreateKeyFile(path)
	default:
		return nil, errors.New("SVC_ENCRYPTION_KEY is required (32 bytes, base64; e.g. `openssl rand -base64 32`)")
	}
	if err != nil {
		return nil, fmt.Errorf("encryption key: %w", err)
	}
	return secretbox.New(key)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// DefaultGCPercent is the garbage collector target svcd uses unless GOGC is set: the API allocates
// briefly per request, memory is plentiful and CPU is not, so collecting less often buys throughput.
const DefaultGCPercent = 400

// TuneGC applies DefaultGCPercent when the operator has not set GOGC.
func TuneGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(DefaultGCPercent)
	}
}

// Blobs opens the blob store of BlobURL, once per process: every capability keeps its bytes in it.
func (c Config) Blobs(ctx context.Context) (blob.Store, error) {
	s, err := blob.Open(ctx, c.BlobURL)
	if err != nil {
		return nil, fmt.Errorf("SVC_BLOB_URL: %w", err)
	}
	return s, nil
}

// DefaultBlobDir is the local blob store of a process built without configuration (the default
// SVC_BLOB_URL is DataDir/blobs, which is this for the default DataDir).
const DefaultBlobDir = ".data/blobs"

// ArtifactPrefix is the part of the blob store that holds run artifacts.
const ArtifactPrefix = "artifacts/"

// FilePrefix is the part of the blob store that holds files' bytes.
const FilePrefix = "files/"

// Artifacts returns the artifact store on db: blobs below ArtifactPrefix of blobs (or in ArtifactDir when
// set), at most ArtifactMaxBytes each. The API reads from it and the worker saves into it.
func (c Config) Artifacts(db bun.IDB, blobs blob.Store) *artifact.Store {
	var b blob.Store = blob.WithPrefix(blobs, ArtifactPrefix)
	if c.ArtifactDir != "" {
		b = blob.NewLocal(c.ArtifactDir)
	}
	return artifact.NewStore(db, b, artifact.Options{MaxBytes: c.ArtifactMaxBytes})
}

// loadLLM loads the LLM gateway's catalog: path, or ./llm.yaml when it exists, or the built-in one.
func loadLLM(path string, getenv func(string) string) (*llm.Catalog, error) {
	if path == "" && fileExists("llm.yaml") {
		path = "llm.yaml"
	}
	c, err := llm.LoadCatalog(path, getenv)
	if err != nil {
		return nil, fmt.Errorf("SVC_LLM_FILE: %w", err)
	}
	return c, nil
}

// Services loads the external services: ServicesFile, or ./services.yaml when it exists, or none.
func (c Config) Services() (*gateway.Catalog, error) {
	path := c.ServicesFile
	if path == "" {
		if !fileExists("services.yaml") {
			return nil, nil
		}
		path = "services.yaml"
	}
	return gateway.Load(path)
}

// moveOldArtifacts moves the run artifacts an earlier svcd dev kept in DataDir/artifacts into the blob
// store's directory, where they are now looked up, so a restart keeps them. It does so only for the
// default store (SVC_BLOB_URL unset, no SVC_ARTIFACT_DIR) and only when nothing is there yet.
func moveOldArtifacts(cfg Config, progress io.Writer) error {
	if cfg.ArtifactDir != "" {
		return nil
	}
	def, err := blobURL(func(string) string { return "" }, cfg.DataDir)
	if err != nil || def != cfg.BlobURL {
		return nil
	}
	old := filepath.Join(cfg.DataDir, "artifacts")
	dest := filepath.Join(cfg.DataDir, "blobs", strings.TrimSuffix(ArtifactPrefix, "/"))
	if !dirExists(old) || dirExists(dest) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("move artifacts to the blob store: %w", err)
	}
	if err := os.Rename(old, dest); err != nil {
		return fmt.Errorf("move artifacts to the blob store: %w", err)
	}
	fmt.Fprintf(progress, "blobs: moved the run artifacts of %s to %s\n", old, dest)
	return nil
}

// dirExists reports whether path is a directory.
func dirExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}
