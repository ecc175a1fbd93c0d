package api

import (
	"context"
	"net/http"
	"time"

	"go.temporal.io/sdk/client"

	svc "github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
)

type healthOut struct {
	Status int
	Body   svc.Health
}

// health reports PostgreSQL and Temporal; 503 with status degraded when either is down.
func (s *Server) health(ctx context.Context, _ *struct{}) (*healthOut, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	checks := map[string]svc.HealthCheck{
		"postgres": check(func() error { return s.db.PingContext(ctx) }),
		"temporal": check(func() error {
			_, err := s.temporal.CheckHealth(ctx, &client.CheckHealthRequest{})
			return err
		}),
	}
	out := &healthOut{Status: http.StatusOK, Body: svc.Health{OK: true, Status: "ok", APIVersion: svc.APIVersion, Version: s.version, Checks: checks}}
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
