package temporal

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"time"

	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	uioptions "github.com/temporalio/ui-server/v2/server/server_options"
)

// uiServer is a running Temporal Web UI.
type uiServer struct {
	addr   string
	server *uiserver.Server
}

// startUI starts the Web UI unless it is disabled, and waits until it
// serves its health endpoint.
func (d *DevServer) startUI(ctx context.Context) error {
	if d.cfg.UIPort < 0 {
		return nil
	}
	addr := net.JoinHostPort(d.cfg.IP, strconv.Itoa(d.cfg.UIPort))
	// The UI server exits the whole process when it cannot listen, so make
	// sure the port is free first.
	if err := checkPortFree(addr); err != nil {
		return err
	}
	ui := &uiServer{addr: addr, server: uiserver.NewServer(uioptions.WithConfigProvider(d.uiConfig()))}
	go func() {
		if err := ui.server.Start(); err != nil {
			d.cfg.Logger.Error("temporal web ui stopped", "error", err)
		}
	}()
	if err := ui.waitHealthy(ctx); err != nil {
		ui.stop()
		return err
	}
	d.ui = ui
	return nil
}

// uiConfig returns the Web UI configuration.
func (d *DevServer) uiConfig() *uiconfig.Config {
	return &uiconfig.Config{
		Host:                d.cfg.IP,
		Port:                d.cfg.UIPort,
		TemporalGRPCAddress: d.FrontendAddress(),
		EnableUI:            true,
		DefaultNamespace:    d.cfg.Namespace,
		CORS:                uiconfig.CORS{CookieInsecure: true},
		HideLogs:            true,
		DisableNewsFetch:    true,
	}
}

// stop closes the UI's listener and connections.
func (u *uiServer) stop() {
	u.server.Stop()
}

// waitHealthy polls the UI's /healthz endpoint until it answers 200.
func (u *uiServer) waitHealthy(ctx context.Context) error {
	url := "http://" + u.addr + "/healthz"
	for {
		err := getOK(ctx, url)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("temporal web ui not ready: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// getOK issues a GET to url and fails unless it answers 200.
func getOK(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("build request for %s: %w", url, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("get %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("get %s: status %s", url, resp.Status)
	}
	return nil
}

// checkPortFree fails when addr cannot be listened on.
func checkPortFree(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("temporal web ui address %s unavailable: %w", addr, err)
	}
	return l.Close()
}
