package gateway

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// generationUpstream serves /health and /v1/models like a generation service, checking the credential.
func generationUpstream(t *testing.T, models string, healthStatus int) Service {
	t.Helper()
	srv, _ := upstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "k" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case PathHealth:
			w.WriteHeader(healthStatus)
		case PathModels:
			_, _ = io.WriteString(w, models)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	})
	svc := service(t, srv.URL, post)
	svc.Contract = ContractGeneration
	return svc
}

var apiKey = credFunc(func(r *http.Request) { r.Header.Set("X-Api-Key", "k") })

// TestPreflightParsesModels calls both contract paths with the credential and lists the models.
func TestPreflightParsesModels(t *testing.T) {
	t.Parallel()
	inv := devInvoker(t, Options{})
	svc := generationUpstream(t, `{"object":"list","data":[{"id":"sdxl"},{"id":"flux"}]}`, http.StatusOK)
	res := inv.Preflight(context.Background(), svc, apiKey)
	require.True(t, res.Checked)
	require.True(t, res.OK)
	require.Equal(t, Check{Path: PathHealth, OK: true, Status: 200, LatencyMs: res.Health.LatencyMs}, res.Health)
	require.True(t, res.Models.OK)
	require.Equal(t, []string{"sdxl", "flux"}, res.ModelIDs)

	svc = generationUpstream(t, `{"models":["kokoro",{"name":"piper"}]}`, http.StatusServiceUnavailable)
	res = inv.Preflight(context.Background(), svc, apiKey)
	require.False(t, res.OK)
	require.False(t, res.Health.OK)
	require.Equal(t, http.StatusServiceUnavailable, res.Health.Status)
	require.Equal(t, []string{"kokoro", "piper"}, res.ModelIDs)

	res = inv.Preflight(context.Background(), svc, nil)
	require.False(t, res.Models.OK, "without the credential the upstream refuses")
	require.Equal(t, http.StatusUnauthorized, res.Models.Status)
	require.Nil(t, res.ModelIDs)
}

// TestPreflightFailures reports a blocked address per check, and skips services without the contract.
func TestPreflightFailures(t *testing.T) {
	t.Parallel()
	svc := generationUpstream(t, `[]`, http.StatusOK)
	strict := NewInvoker(Options{})
	t.Cleanup(strict.Close)
	res := strict.Preflight(context.Background(), svc, apiKey)
	require.True(t, res.Checked)
	require.False(t, res.OK)
	require.Equal(t, CodeUpstreamBlocked, res.Health.ErrorCode)
	require.Equal(t, CodeUpstreamBlocked, res.Models.ErrorCode)
	require.Contains(t, res.Health.Error, "loopback")

	plain := svc
	plain.Contract = ""
	res = strict.Preflight(context.Background(), plain, apiKey)
	require.False(t, res.Checked)
	require.False(t, res.OK)
}

// TestModelIDs recognises the usual list shapes and nothing else.
func TestModelIDs(t *testing.T) {
	t.Parallel()
	for body, want := range map[string][]string{
		`{"data":[{"id":"a"},{"id":"b"}]}`:    {"a", "b"},
		`{"models":["a","b"]}`:                {"a", "b"},
		`{"models":[{"id":"a"},{"x":1}]}`:     {"a"},
		`["a",{"name":"b"},3]`:                {"a", "b"},
		`{"data":[]}`:                         {},
		`{"status":"ok"}`:                     nil,
		`null`:                                nil,
		`not json`:                            nil,
		`{"data":"nope","models":["a"]}`:      nil,
		`{"data":null,"models":[{"id":"m"}]}`: {"m"},
	} {
		require.Equal(t, want, ModelIDs([]byte(body)), body)
	}
}
