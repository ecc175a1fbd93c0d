package api

import (
	"context"
	"net/http"
	"time"

	"go.temporal.io/sdk/client"

	svc "github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/uptrace/bun"
)

type healthOut struct {
	Status int
	Body   svc.Health
}

// health reports PostgreSQL and Temporal; 503 with status degraded when either is down.
func (h *healthAPI) health(ctx context.Context, _ *struct{}) (*healthOut, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	checks := map[string]svc.HealthCheck{
		"postgres": check(func() error { return h.db.PingContext(ctx) }),
		"temporal": check(func() error {
			_, err := h.temporal.CheckHealth(ctx, &client.CheckHealthRequest{})
			return err
		}),
	}
	out := &healthOut{Status: http.StatusOK, Body: svc.Health{OK: true, Status: "ok", APIVersion: svc.APIVersion, Version: h.version, Checks: checks,
		DatabaseArchivePublicKey: h.archiveKey}}
	for _, name := range []string{"postgres", "temporal"} {
		if checks[name].Status != "ok" {
			out.Status, out.Body.OK, out.Body.Status = http.StatusServiceUnavailable, false, "degraded"
			out.Body.Error = &svc.Error{Code: svcerr.Unavailable, Message: name + " is unreachable", RequestID: requestIDFrom(ctx)}
			break
		}
	}
	return out, nil
}

func check(f func() error) svc.HealthCheck {
	start := time.Now()
	err := f()
	c := svc.HealthCheck{Status: "ok", LatencyMs: time.Since(start).Milliseconds()}
	if err != nil {
		c.Status, c.Error = "down", "unreachable"
	}
	return c
}

// healthAPI answers the health checks of PostgreSQL and Temporal.
type healthAPI struct {
	db       *bun.DB
	temporal client.Client
	version  string
	// archiveKey is the public key that signs database archives, published for clients to pin.
	archiveKey string
}

// routes are the health routes.
func (h *healthAPI) routes() []Route {
	return []Route{
		handle(Route{Op: "health", Method: http.MethodGet, Path: "/health", Summary: "Service and API-version health", Tag: "Public"}, h.health),
		handle(Route{Op: "health.v1", Method: http.MethodGet, Path: "/v1/health", Summary: "Service and API-version health", Tag: "Public"}, h.health),
	}
}
