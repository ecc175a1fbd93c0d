package temporal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"strconv"
	"sync"
	"time"

	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/membership/static"
	"go.temporal.io/server/common/primitives"
	servertemporal "go.temporal.io/server/temporal"
)

// Dev server defaults, used when DevServerConfig leaves a field zero.
const (
	// DefaultDevIP is the address the dev server binds to.
	DefaultDevIP = "127.0.0.1"
	// DefaultDevFrontendPort is the dev server's gRPC frontend port.
	DefaultDevFrontendPort = 7233
	// DefaultDevUIPort is the dev server's Web UI port.
	DefaultDevUIPort = 8233
	// DevNamespaceRetention is the workflow history retention of the
	// namespace the dev server creates.
	DevNamespaceRetention = 7 * 24 * time.Hour
)

// devClusterName is the (fixed) name of the dev server's cluster; it is
// stored with the namespace, so it must not change between restarts.
const devClusterName = "active"

// DevServerConfig configures StartDevServer.
type DevServerConfig struct {
	// DataDir holds the SQLite database (DataDir/temporal.db), e.g.
	// ".data/temporal". It is created if missing. Required. Only one dev
	// server at a time may use a DataDir.
	DataDir string
	// IP is the address all server ports bind to. Defaults to DefaultDevIP
	// (127.0.0.1).
	IP string
	// FrontendPort is the gRPC frontend port clients dial. Defaults to
	// DefaultDevFrontendPort (7233). The server's internal ports (history,
	// matching, worker, frontend HTTP) are picked freely at each start.
	FrontendPort int
	// UIPort is the Web UI port. 0 means DefaultDevUIPort (8233); a negative
	// value disables the UI.
	UIPort int
	// Namespace is created at first start with DevNamespaceRetention and the
	// platform's search attributes. Defaults to DefaultNamespace ("default").
	Namespace string
	// Logger receives server logs at warn level and above (muted while
	// stopping), and SDK logs of the start-up health check. Defaults to
	// slog.Default().
	Logger *slog.Logger
}

// DevServer is a running embedded Temporal server (plus optional Web UI).
type DevServer struct {
	cfg      DevServerConfig
	server   servertemporal.Server
	ui       *uiServer
	logLevel slog.LevelVar
	stopOnce sync.Once
	stopErr  error
}

// StartDevServer starts an embedded Temporal server backed by the SQLite
// file in cfg.DataDir and, unless disabled, the Web UI. It returns once the
// frontend answers for the namespace and the UI serves requests, or fails
// when ctx ends first. Call Stop to shut everything down.
func StartDevServer(ctx context.Context, cfg DevServerConfig) (*DevServer, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	d := &DevServer{cfg: cfg}
	d.logLevel.Set(serverLogLevel)
	// The UI goes first: it needs no running frontend, and a busy UI port
	// then fails the start before any server work is done.
	if err := d.startUI(ctx); err != nil {
		return nil, err
	}
	if err := d.startServer(ctx); err != nil {
		return nil, errors.Join(err, d.Stop())
	}
	if err := d.waitReady(ctx); err != nil {
		return nil, errors.Join(err, d.Stop())
	}
	return d, nil
}

// FrontendAddress returns the host:port clients dial.
func (d *DevServer) FrontendAddress() string {
	return net.JoinHostPort(d.cfg.IP, strconv.Itoa(d.cfg.FrontendPort))
}

// UIAddress returns the Web UI base URL (http://host:port), or "" when the
// UI is disabled.
func (d *DevServer) UIAddress() string {
	if d.ui == nil {
		return ""
	}
	return "http://" + d.ui.addr
}

// Namespace returns the namespace the dev server created.
func (d *DevServer) Namespace() string {
	return d.cfg.Namespace
}

// Stop shuts down the UI and the server. It is safe to call more than once.
func (d *DevServer) Stop() error {
	d.stopOnce.Do(func() {
		d.logLevel.Set(serverStopLogLevel)
		if d.ui != nil {
			d.ui.stop()
		}
		if d.server == nil {
			return
		}
		if err := d.server.Stop(); err != nil {
			d.stopErr = fmt.Errorf("stop temporal dev server: %w", err)
		}
	})
	return d.stopErr
}

// withDefaults validates cfg and fills in defaults.
func (cfg DevServerConfig) withDefaults() (DevServerConfig, error) {
	if cfg.DataDir == "" {
		return cfg, errors.New("temporal dev server: DataDir is required")
	}
	cfg.IP = valueOr(cfg.IP, DefaultDevIP)
	cfg.Namespace = valueOr(cfg.Namespace, DefaultNamespace)
	if cfg.FrontendPort == 0 {
		cfg.FrontendPort = DefaultDevFrontendPort
	}
	if cfg.UIPort == 0 {
		cfg.UIPort = DefaultDevUIPort
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return cfg, nil
}

// startServer prepares the database, builds the server and starts it.
func (d *DevServer) startServer(ctx context.Context) error {
	sqlCfg, err := prepareSQLite(d.cfg.DataDir, devClusterName, d.cfg.Namespace, DevNamespaceRetention)
	if err != nil {
		return err
	}
	opts, err := d.serverOptions(sqlCfg)
	if err != nil {
		return err
	}
	srv, err := servertemporal.NewServer(opts...)
	if err != nil {
		return fmt.Errorf("create temporal dev server: %w", err)
	}
	if err := startWithContext(ctx, srv); err != nil {
		return err
	}
	d.server = srv
	return nil
}

// startWithContext runs srv.Start, giving up when ctx ends first; the server
// is then stopped in the background as soon as its start returns.
func startWithContext(ctx context.Context, srv servertemporal.Server) error {
	done := make(chan error, 1)
	go func() { done <- srv.Start() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("start temporal dev server: %w", err)
		}
		return nil
	case <-ctx.Done():
		go func() {
			if <-done == nil {
				_ = srv.Stop()
			}
		}()
		return fmt.Errorf("start temporal dev server: %w", ctx.Err())
	}
}

// serverOptions builds the embedded server's options.
func (d *DevServer) serverOptions(sqlCfg *config.SQL) ([]servertemporal.ServerOption, error) {
	ports, err := freePorts(d.cfg.IP, 4)
	if err != nil {
		return nil, err
	}
	p := servicePorts{frontend: d.cfg.FrontendPort, frontendHTTP: ports[0], history: ports[1], matching: ports[2], worker: ports[3]}
	return []servertemporal.ServerOption{
		servertemporal.WithConfig(d.serverConfig(sqlCfg, p)),
		servertemporal.ForServices(servertemporal.DefaultServices),
		servertemporal.WithStaticHosts(d.staticHosts(p)),
		servertemporal.WithLogger(newServerLogger(d.cfg.Logger, &d.logLevel)),
		servertemporal.WithDynamicConfigClient(devDynamicConfig()),
	}, nil
}

// servicePorts are the ports of the server's services.
type servicePorts struct {
	frontend, frontendHTTP, history, matching, worker int
}

// serverConfig builds the static server configuration.
func (d *DevServer) serverConfig(sqlCfg *config.SQL, p servicePorts) *config.Config {
	const store = "sqlite"
	frontend := d.FrontendAddress()
	conf := &config.Config{}
	conf.Global.Membership = config.Membership{MaxJoinDuration: 30 * time.Second, BroadcastAddress: d.cfg.IP}
	conf.Persistence = config.Persistence{
		DefaultStore:     store,
		VisibilityStore:  store,
		NumHistoryShards: 1,
		DataStores:       map[string]config.DataStore{store: {SQL: sqlCfg}},
	}
	conf.ClusterMetadata = &cluster.Config{
		FailoverVersionIncrement: 10,
		MasterClusterName:        devClusterName,
		CurrentClusterName:       devClusterName,
		ClusterInformation: map[string]cluster.ClusterInformation{devClusterName: {
			Enabled:                true,
			InitialFailoverVersion: 1,
			RPCAddress:             frontend,
			HTTPAddress:            d.hostPort(p.frontendHTTP),
		}},
	}
	conf.DCRedirectionPolicy.Policy = "noop"
	conf.Services = map[string]config.Service{
		string(primitives.FrontendService): d.service(p.frontend, p.frontendHTTP),
		string(primitives.HistoryService):  d.service(p.history, 0),
		string(primitives.MatchingService): d.service(p.matching, 0),
		string(primitives.WorkerService):   d.service(p.worker, 0),
	}
	conf.Archival.History.State = "disabled"
	conf.Archival.Visibility.State = "disabled"
	conf.NamespaceDefaults.Archival.History.State = "disabled"
	conf.NamespaceDefaults.Archival.Visibility.State = "disabled"
	conf.PublicClient.HostPort = frontend
	return conf
}

// service returns the RPC config of one service.
func (d *DevServer) service(grpcPort, httpPort int) config.Service {
	return config.Service{RPC: config.RPC{GRPCPort: grpcPort, HTTPPort: httpPort, BindOnIP: d.cfg.IP}}
}

// staticHosts pins every service to its single local address, which avoids
// gossip-based membership and its start-up delay.
func (d *DevServer) staticHosts(p servicePorts) map[primitives.ServiceName]static.Hosts {
	return map[primitives.ServiceName]static.Hosts{
		primitives.FrontendService: static.SingleLocalHost(d.hostPort(p.frontend)),
		primitives.HistoryService:  static.SingleLocalHost(d.hostPort(p.history)),
		primitives.MatchingService: static.SingleLocalHost(d.hostPort(p.matching)),
		primitives.WorkerService:   static.SingleLocalHost(d.hostPort(p.worker)),
	}
}

// hostPort joins the server IP with port.
func (d *DevServer) hostPort(port int) string {
	return net.JoinHostPort(d.cfg.IP, strconv.Itoa(port))
}

// devDynamicConfig returns dynamic config suited to a single-user server.
func devDynamicConfig() dynamicconfig.StaticClient {
	dc := dynamicconfig.StaticClient{
		dynamicconfig.HistoryCacheHostLevelMaxSize.Key():                 8096,
		dynamicconfig.FrontendMaxNamespaceVisibilityRPSPerInstance.Key(): 100,
	}
	maps.Copy(dc, HandoffDynamicConfig())
	return dc
}

// TransferPollRPS is how many times a second the history service may read
// new transfer tasks (per shard). The server's default, 20, spaces the reads
// 50 ms apart, and a workflow task is handed to matching only by such a read:
// on a one-shard server every workflow task then waited 40-50 ms between
// WorkflowTaskScheduled and WorkflowTaskStarted. 200 bounds that wait at
// 5 ms; a read is still made only when new tasks were written.
const TransferPollRPS = 200

// ResultLongPoll bounds how long the history service holds a long poll for a
// workflow's close (a client's WorkflowRun.Get) before answering "not yet", after
// which the client asks again and sees the close. The server drops a waiter's
// notification that arrives while its one-slot channel is full, which with
// fast hand-offs happens to a few polls in a hundred: the default, 20 s, then
// delays such a Get by up to 20 s; this bound makes it at most 3 s.
const ResultLongPoll = 3 * time.Second

// HandoffDynamicConfig returns the dynamic config that makes the in-process
// servers (the dev server and the tests' temporaltest servers) hand workflow
// tasks to workers without the 50 ms transfer-queue read spacing (see
// TransferPollRPS), with result long polls bounded by ResultLongPoll.
func HandoffDynamicConfig() dynamicconfig.StaticClient {
	return dynamicconfig.StaticClient{
		dynamicconfig.TransferProcessorMaxPollRPS.Key():       TransferPollRPS,
		dynamicconfig.HistoryLongPollExpirationInterval.Key(): ResultLongPoll,
	}
}

// waitReady polls the frontend until it answers for the namespace, then
// makes sure the platform's search attributes exist (a no-op unless the
// namespace predates them).
func (d *DevServer) waitReady(ctx context.Context) error {
	ccfg := ClientConfig{Address: d.FrontendAddress(), Namespace: d.cfg.Namespace, Logger: d.cfg.Logger}
	for {
		err := d.checkFrontend(ctx, ccfg)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("temporal dev server not ready: %w", errors.Join(ctx.Err(), err))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// checkFrontend dials the frontend once and prepares the namespace.
func (d *DevServer) checkFrontend(ctx context.Context, ccfg ClientConfig) error {
	c, err := Dial(ctx, ccfg)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := EnsureNamespace(ctx, c, ccfg.Namespace, DevNamespaceRetention); err != nil {
		return err
	}
	return EnsureSearchAttributes(ctx, c, ccfg.Namespace)
}

// freePorts reserves n distinct free TCP ports on ip and releases them.
func freePorts(ip string, n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
		if err != nil {
			return nil, fmt.Errorf("find free port on %s: %w", ip, err)
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}
