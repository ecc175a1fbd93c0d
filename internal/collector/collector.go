// Package collector is the local HTTP face of a machine's vault transfers (seed 001's collector API):
// GET /health reports capabilities.fileTransfers, GET /transfers lists the inbox of an identity on this
// machine, POST /transfers sends local files, POST /transfers/ack acknowledges for this machine. It also
// publishes the machine's card under <vault>/.svc-machines/ for the handoff planner, refreshed
// periodically. It binds to loopback unless told otherwise, and then requires a bearer token.
package collector

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/internal/vault"
)

// Defaults of Config.
const (
	// DefaultListen is where the collector listens unless told otherwise.
	DefaultListen = "127.0.0.1:8790"
	// DefaultCardInterval is how often the machine card is rewritten.
	DefaultCardInterval = time.Minute
	// MinTokenLength is the shortest bearer token accepted.
	MinTokenLength = 16
)

// Config configures a Collector.
type Config struct {
	// Vault is this machine's copy of the synced vault.
	Vault *vault.Vault
	// MachineID is this machine's durable id (required).
	MachineID string
	// Host is this machine's host name (default os.Hostname, set by the caller).
	Host string
	// Runtimes are the runtimes on the machine card.
	Runtimes []string
	// Agents are the agents, with their worker classes, on the machine card.
	Agents []vault.AgentCard
	// Listen is the address to listen on (default DefaultListen).
	Listen string
	// Token, when set, is the bearer token every request must carry; it is required when Listen is not
	// a loopback address.
	Token string
	// CardInterval is how often the machine card is rewritten (default DefaultCardInterval).
	CardInterval time.Duration
	// Logger receives start, stop and card-publishing failures (default slog.Default()); it never sees
	// request bodies or notes.
	Logger *slog.Logger
}

// Collector serves the collector API for one machine.
type Collector struct {
	cfg    Config
	engine *gin.Engine
}

// New checks cfg and returns a Collector.
func New(cfg Config) (*Collector, error) {
	if cfg.Vault == nil {
		return nil, errors.New("collector: no vault")
	}
	if cfg.MachineID == "" {
		return nil, errors.New("collector: no machine id (--machine-id)")
	}
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.CardInterval <= 0 {
		cfg.CardInterval = DefaultCardInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if err := CheckListen(cfg.Listen, cfg.Token); err != nil {
		return nil, err
	}
	c := &Collector{cfg: cfg}
	c.engine = c.routes()
	return c, nil
}

// CheckListen refuses a non-loopback listen address without a bearer token, and a token that is too
// short.
func CheckListen(listen, token string) error {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return fmt.Errorf("collector: listen address %q: %w", listen, err)
	}
	if token != "" && len(token) < MinTokenLength {
		return fmt.Errorf("collector: the bearer token must be at least %d characters", MinTokenLength)
	}
	if !loopback(host) && token == "" {
		return fmt.Errorf("collector: listening on %q (not loopback) needs a bearer token (--token or SVC_COLLECTOR_TOKEN)", listen)
	}
	return nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Handler is the collector's HTTP handler.
func (c *Collector) Handler() http.Handler { return c.engine }

// Run listens on cfg.Listen and serves until ctx ends.
func (c *Collector) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", c.cfg.Listen)
	if err != nil {
		return fmt.Errorf("collector: listen: %w", err)
	}
	return c.Serve(ctx, ln)
}

// Serve publishes the machine card, then serves on ln until ctx ends, refreshing the card every
// CardInterval; it shuts down gracefully.
func (c *Collector) Serve(ctx context.Context, ln net.Listener) error {
	if err := c.PublishCard(); err != nil {
		_ = ln.Close()
		return err
	}
	srv := &http.Server{Handler: c.engine, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	c.cfg.Logger.Info("collector listening", "addr", ln.Addr().String(), "machineId", c.cfg.MachineID,
		"vault", c.cfg.Vault.Root())
	ticker := time.NewTicker(c.cfg.CardInterval)
	defer ticker.Stop()
	for {
		select {
		case err := <-done:
			return fmt.Errorf("collector: serve: %w", err)
		case <-ticker.C:
			if err := c.PublishCard(); err != nil {
				c.cfg.Logger.Warn("collector: machine card not refreshed", "error", err)
			}
		case <-ctx.Done():
			shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := srv.Shutdown(shutdownCtx); err != nil {
				return fmt.Errorf("collector: shutdown: %w", err)
			}
			return nil
		}
	}
}

// PublishCard writes this machine's card to the vault.
func (c *Collector) PublishCard() error {
	_, err := c.cfg.Vault.PublishMachine(vault.MachineCard{MachineID: c.cfg.MachineID, Host: c.cfg.Host,
		Runtimes: c.cfg.Runtimes, Agents: c.cfg.Agents, Capabilities: vault.Capabilities{FileTransfers: true}})
	if err != nil {
		return fmt.Errorf("collector: %w", err)
	}
	return nil
}

// authorized checks the bearer token in constant time when one is configured.
func (c *Collector) authorized(r *http.Request) bool {
	if c.cfg.Token == "" {
		return true
	}
	const prefix = "Bearer "
	h := r.Header.Get("Authorization")
	if len(h) <= len(prefix) || h[:len(prefix)] != prefix {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(h[len(prefix):]), []byte(c.cfg.Token)) == 1
}
