package temporal

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
)

// Default connection settings used when ClientConfig leaves them empty.
const (
	// DefaultAddress is the frontend address of a local Temporal server.
	DefaultAddress = "127.0.0.1:7233"
	// DefaultNamespace is the namespace used when none is configured.
	DefaultNamespace = "default"
)

// ClientConfig describes how to reach a Temporal frontend.
type ClientConfig struct {
	// Address is the frontend host:port. Defaults to DefaultAddress
	// (127.0.0.1:7233).
	Address string
	// Namespace is the namespace the client works in. Defaults to
	// DefaultNamespace ("default").
	Namespace string
	// TLSCertFile and TLSKeyFile are a PEM client certificate and key for
	// mTLS. Both must be set together. Setting them enables TLS.
	TLSCertFile string
	// TLSKeyFile is the PEM private key matching TLSCertFile.
	TLSKeyFile string
	// TLSCAFile is a PEM bundle used to verify the server instead of the
	// system roots. Setting it enables TLS.
	TLSCAFile string
	// TLSServerName overrides the server name checked against the server
	// certificate. Setting it enables TLS.
	TLSServerName string
	// APIKey, when set, authenticates every call with a bearer API key (as
	// Temporal Cloud expects). It enables TLS, verified against the system
	// roots unless TLSCAFile is given.
	APIKey string
	// Logger receives the SDK's logs. Defaults to slog.Default().
	Logger *slog.Logger
}

// Dial connects an SDK client to the cluster described by cfg. The returned
// client has already passed the SDK's connection health check; the caller
// must Close it.
func Dial(ctx context.Context, cfg ClientConfig) (client.Client, error) {
	opts, err := cfg.clientOptions()
	if err != nil {
		return nil, err
	}
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("dial temporal at %s (namespace %q): %w", opts.HostPort, opts.Namespace, err)
	}
	return c, nil
}

// clientOptions turns cfg into SDK client options, applying defaults.
func (cfg ClientConfig) clientOptions() (client.Options, error) {
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	opts := client.Options{
		HostPort:  valueOr(cfg.Address, DefaultAddress),
		Namespace: valueOr(cfg.Namespace, DefaultNamespace),
		Logger:    sdklog.NewStructuredLogger(logger),
	}
	tlsCfg, err := cfg.tlsConfig()
	if err != nil {
		return client.Options{}, err
	}
	opts.ConnectionOptions.TLS = tlsCfg
	if cfg.APIKey != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(cfg.APIKey)
	}
	return opts, nil
}

// tlsConfig builds the client TLS configuration, or nil when TLS is off.
func (cfg ClientConfig) tlsConfig() (*tls.Config, error) {
	if !cfg.wantsTLS() {
		return nil, nil
	}
	tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: cfg.TLSServerName}
	if cfg.TLSCertFile != "" || cfg.TLSKeyFile != "" {
		if cfg.TLSCertFile == "" || cfg.TLSKeyFile == "" {
			return nil, errors.New("temporal tls: both TLSCertFile and TLSKeyFile must be set")
		}
		cert, err := tls.LoadX509KeyPair(cfg.TLSCertFile, cfg.TLSKeyFile)
		if err != nil {
			return nil, fmt.Errorf("temporal tls: load client certificate: %w", err)
		}
		tlsCfg.Certificates = []tls.Certificate{cert}
	}
	if cfg.TLSCAFile != "" {
		pool, err := loadCertPool(cfg.TLSCAFile)
		if err != nil {
			return nil, err
		}
		tlsCfg.RootCAs = pool
	}
	return tlsCfg, nil
}

// wantsTLS reports whether any setting implies a TLS connection.
func (cfg ClientConfig) wantsTLS() bool {
	return cfg.TLSCertFile != "" || cfg.TLSKeyFile != "" || cfg.TLSCAFile != "" ||
		cfg.TLSServerName != "" || cfg.APIKey != ""
}

// loadCertPool reads a PEM CA bundle into a certificate pool.
func loadCertPool(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("temporal tls: read CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("temporal tls: no PEM certificates in CA file %s", path)
	}
	return pool, nil
}

// valueOr returns v, or def when v is empty.
func valueOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
