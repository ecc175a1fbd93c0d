package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Preflight paths of the generation-service contract.
const (
	PathHealth = "/health"
	PathModels = "/v1/models"
)

const (
	maxPreflightBytes = 1 << 20
	maxModelIDs       = 1000
)

// PreflightResult is what a service's preflight found.
type PreflightResult struct {
	ServiceID string `json:"serviceId"`
	Contract  string `json:"contract,omitempty"`
	// Checked is false for services without a preflight contract; nothing was called then.
	Checked bool `json:"checked"`
	// OK is true when both calls answered 2xx.
	OK     bool  `json:"ok"`
	Health Check `json:"health"`
	Models Check `json:"models"`
	// ModelIDs are the model ids listed by /v1/models, or nil when its answer has no recognisable list.
	ModelIDs []string `json:"modelIds"`
}

// Check is the outcome of one preflight call.
type Check struct {
	Path      string `json:"path"`
	OK        bool   `json:"ok"`
	Status    int    `json:"status,omitempty"`
	ErrorCode string `json:"errorCode,omitempty"`
	Error     string `json:"error,omitempty"`
	LatencyMs int64  `json:"latencyMs"`
}

// Preflight calls the service's /health and /v1/models (with the credential, when given) concurrently,
// each within the preflight timeout, and reports both and the listed model ids. Only services with
// contract: generation (and a base URL) are called.
func (inv *Invoker) Preflight(ctx context.Context, svc Service, cred Credential) PreflightResult {
	res := PreflightResult{ServiceID: svc.ID, Contract: svc.Contract}
	if svc.Contract != ContractGeneration {
		return res
	}
	if svc.BaseURL == nil {
		return res
	}
	res.Checked = true
	var wg sync.WaitGroup
	var models []byte
	wg.Go(func() { res.Health, _ = inv.check(ctx, svc, PathHealth, cred) })
	wg.Go(func() { res.Models, models = inv.check(ctx, svc, PathModels, cred) })
	wg.Wait()
	res.OK = res.Health.OK && res.Models.OK
	if res.Models.OK {
		res.ModelIDs = ModelIDs(models)
	}
	return res
}

// check makes one GET and returns its outcome and body.
func (inv *Invoker) check(ctx context.Context, svc Service, path string, cred Credential) (Check, []byte) {
	timeout := min(inv.opts.PreflightTimeout, timeoutOf(svc))
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	u := *svc.BaseURL
	u.Path = strings.TrimSuffix(u.Path, "/") + path
	u.RawPath = ""
	started := time.Now()
	ex, err := inv.exchange(callCtx, svc, outbound{method: http.MethodGet, url: u.String(), cred: cred}, maxPreflightBytes)
	c := Check{Path: path, LatencyMs: time.Since(started).Milliseconds()}
	if err != nil {
		err = failure(ctx, callCtx, svc, err)
		c.ErrorCode, c.Error = svcerr.Internal, "the check was cancelled"
		if e, ok := svcerr.As(err); ok {
			c.ErrorCode, c.Error = e.Code, e.Message
		}
		return c, nil
	}
	c.Status, c.OK = ex.status, ex.status >= 200 && ex.status < 300
	return c, ex.body
}

// ModelIDs extracts model ids from a models answer: {"data":[{"id":...}]}, {"models":[...]} or a bare
// list, whose items are strings or objects with "id" (or "name"). It returns nil when there is no
// recognisable list, and at most 1000 ids.
func ModelIDs(body []byte) []string {
	list, ok := modelList(body)
	if !ok {
		return nil
	}
	ids := make([]string, 0, min(len(list), maxModelIDs))
	for _, item := range list {
		if id := modelID(item); id != "" && len(ids) < maxModelIDs {
			ids = append(ids, id)
		}
	}
	return ids
}

// modelList finds the list of models in an answer.
func modelList(body []byte) ([]json.RawMessage, bool) {
	var list []json.RawMessage
	if json.Unmarshal(body, &list) == nil && list != nil {
		return list, true
	}
	var obj struct {
		Data   []json.RawMessage `json:"data"`
		Models []json.RawMessage `json:"models"`
	}
	if json.Unmarshal(body, &obj) != nil {
		return nil, false
	}
	if obj.Data != nil {
		return obj.Data, true
	}
	return obj.Models, obj.Models != nil
}

// modelID is a list item's id: the string itself, or the object's id, else its name.
func modelID(item json.RawMessage) string {
	var s string
	if json.Unmarshal(item, &s) == nil {
		return s
	}
	var o struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	if json.Unmarshal(item, &o) != nil {
		return ""
	}
	if o.ID != "" {
		return o.ID
	}
	return o.Name
}

// PreflightToWire is a preflight's result as the API shows it.
func PreflightToWire(r PreflightResult) *client.Preflight {
	check := func(c Check) client.PreflightCheck {
		return client.PreflightCheck{Path: c.Path, OK: c.OK, Status: c.Status, ErrorCode: c.ErrorCode, LatencyMs: c.LatencyMs}
	}
	return &client.Preflight{OK: r.OK, Health: check(r.Health), Models: check(r.Models), ModelIDs: r.ModelIDs}
}
