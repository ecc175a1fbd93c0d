package collector

import (
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"

	"github.com/gin-gonic/gin"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/strictjson"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/vault"
)

// HealthResponse is the answer of GET /health.
type HealthResponse struct {
	// OK is true.
	OK bool `json:"ok"`
	// Status is "ok".
	Status string `json:"status"`
	// MachineID is the collector's machine.
	MachineID string `json:"machineId"`
	// Host is the collector's host name.
	Host string `json:"host,omitempty"`
	// Capabilities has FileTransfers true.
	Capabilities vault.Capabilities `json:"capabilities"`
}

// InboxResponse is the answer of GET /transfers.
type InboxResponse struct {
	// OK is true.
	OK bool `json:"ok"`
	// Transfers are the whole transfers for the identity asked about, oldest first.
	Transfers []vault.Transfer `json:"transfers"`
}

// SendBody is the body of POST /transfers.
type SendBody struct {
	// Files are absolute local paths.
	Files []string `json:"files"`
	// Note is optional context.
	Note string `json:"note"`
	// From is the sender (default: this machine).
	From *vault.Identity `json:"from"`
	// To is the target; it needs machineId or host.
	To *vault.Identity `json:"to"`
}

// SendResponse is the answer of POST /transfers (201).
type SendResponse struct {
	// OK is true.
	OK bool `json:"ok"`
	// Transfer is the manifest written.
	Transfer *vault.Manifest `json:"transfer"`
}

// AckBody is the body of POST /transfers/ack.
type AckBody struct {
	// ID is the transfer id.
	ID string `json:"id"`
	// MachineID must be this machine's id when given.
	MachineID string `json:"machineId"`
	// Runtime is the acknowledging runtime, if any.
	Runtime string `json:"runtime"`
	// AgentID is the acknowledging agent, if any.
	AgentID string `json:"agentId"`
}

// AckResponse is the answer of POST /transfers/ack.
type AckResponse struct {
	// OK is true.
	OK bool `json:"ok"`
	// Ack is the ack file's content.
	Ack *vault.Ack `json:"ack"`
}

// maxBody bounds a request body.
const maxBody = 1 << 20

func (c *Collector) routes() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.Use(gin.Recovery(), c.requestID, c.auth)
	e.NoRoute(func(ctx *gin.Context) {
		fail(ctx, svcerr.NotFoundf("no route %s %s", ctx.Request.Method, ctx.Request.URL.Path))
	})
	e.GET("/health", c.health)
	e.GET("/transfers", c.inbox)
	e.POST("/transfers", c.send)
	e.POST("/transfers/ack", c.ack)
	return e
}

func (c *Collector) requestID(ctx *gin.Context) {
	ctx.Header("X-Request-Id", ids.New("req"))
	ctx.Next()
}

func (c *Collector) auth(ctx *gin.Context) {
	if !c.authorized(ctx.Request) {
		ctx.Header("WWW-Authenticate", `Bearer realm="svc-collector"`)
		fail(ctx, svcerr.New(svcerr.Unauthenticated, "send the collector's token as Authorization: Bearer <token>"))
		return
	}
	ctx.Next()
}

func (c *Collector) health(ctx *gin.Context) {
	ctx.JSON(http.StatusOK, HealthResponse{OK: true, Status: "ok", MachineID: c.cfg.MachineID, Host: c.cfg.Host,
		Capabilities: vault.Capabilities{FileTransfers: true}})
}

// inboxParams are the query parameters of GET /transfers.
var inboxParams = map[string]bool{"machineId": true, "host": true, "runtime": true, "agentId": true, "all": true}

func (c *Collector) inbox(ctx *gin.Context) {
	q, err := parseInboxQuery(ctx.Request.URL.RawQuery)
	if err != nil {
		fail(ctx, err)
		return
	}
	if q.Receiver.MachineID == "" {
		q.Receiver.MachineID = c.cfg.MachineID
	}
	if q.Receiver.Host == "" {
		q.Receiver.Host = c.cfg.Host
	}
	transfers, err := c.cfg.Vault.Inbox(ctx.Request.Context(), q)
	if err != nil {
		fail(ctx, err)
		return
	}
	ctx.JSON(http.StatusOK, InboxResponse{OK: true, Transfers: transfers})
}

// parseInboxQuery reads the query strictly: known names, each at most once, text values, all=true|false.
func parseInboxQuery(raw string) (vault.InboxQuery, error) {
	var q vault.InboxQuery
	values, err := url.ParseQuery(raw)
	if err != nil {
		return q, svcerr.Invalid("", "the query string is malformed")
	}
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		vs := values[name]
		switch {
		case !inboxParams[name]:
			return q, svcerr.Invalid(name, "unknown query parameter %q (known: machineId, host, runtime, agentId, all)", name)
		case len(vs) != 1:
			return q, svcerr.Invalid(name, "query parameter %s is given more than once", name)
		case strictjson.CheckText(vs[0]) != nil:
			return q, svcerr.Invalid(name, "query parameter %s must be text without control characters", name)
		}
	}
	q.Receiver = vault.Identity{MachineID: values.Get("machineId"), Host: values.Get("host"),
		Runtime: values.Get("runtime"), AgentID: values.Get("agentId")}
	switch values.Get("all") {
	case "", "false":
	case "true":
		q.All = true
	default:
		return q, svcerr.Invalid("all", "query parameter all must be true or false")
	}
	return q, nil
}

func (c *Collector) send(ctx *gin.Context) {
	var body SendBody
	if err := decodeBody(ctx, &body, "note"); err != nil {
		fail(ctx, err)
		return
	}
	if body.To == nil {
		fail(ctx, svcerr.Invalid("to", "to is required: the target machine (machineId or host), runtime and agentId"))
		return
	}
	for i, f := range body.Files {
		if !filepath.IsAbs(f) {
			fail(ctx, svcerr.Invalid(fmt.Sprintf("files[%d]", i), "files[%d] must be an absolute path", i))
			return
		}
	}
	from := c.defaultSender(body.From)
	m, err := c.cfg.Vault.Send(ctx.Request.Context(), vault.SendRequest{Files: body.Files, Note: body.Note,
		From: &from, To: *body.To})
	if err != nil {
		fail(ctx, err)
		return
	}
	ctx.JSON(http.StatusCreated, SendResponse{OK: true, Transfer: m})
}

// defaultSender fills the sender's machine from this collector when the request leaves it out.
func (c *Collector) defaultSender(from *vault.Identity) vault.Identity {
	var out vault.Identity
	if from != nil {
		out = *from
	}
	if out.MachineID == "" && out.Host == "" {
		out.MachineID, out.Host = c.cfg.MachineID, c.cfg.Host
	}
	return out
}

func (c *Collector) ack(ctx *gin.Context) {
	var body AckBody
	if err := decodeBody(ctx, &body); err != nil {
		fail(ctx, err)
		return
	}
	if body.ID == "" {
		fail(ctx, svcerr.Invalid("id", "id is required: the transfer id"))
		return
	}
	if body.MachineID != "" && body.MachineID != c.cfg.MachineID {
		fail(ctx, &svcerr.Error{Code: svcerr.Forbidden, Param: "machineId",
			Message: "this collector acknowledges only for its own machine " + c.cfg.MachineID})
		return
	}
	receiver := vault.Identity{MachineID: c.cfg.MachineID, Host: c.cfg.Host, Runtime: body.Runtime, AgentID: body.AgentID}
	a, err := c.cfg.Vault.Ack(ctx.Request.Context(), body.ID, receiver)
	if err != nil {
		fail(ctx, err)
		return
	}
	ctx.JSON(http.StatusOK, AckResponse{OK: true, Ack: a})
}

// fail answers the platform's error envelope; errors that are not *svcerr.Error are internal and their
// text is not shown.
func fail(ctx *gin.Context, err error) {
	e, ok := svcerr.As(err)
	if !ok {
		e = svcerr.New(svcerr.Internal, "the collector failed; see its log")
		_ = ctx.Error(err)
	}
	body := client.ErrorEnvelope{Error: client.Error{Code: e.Code, Message: e.Message, Param: e.Param,
		RequestID: ctx.Writer.Header().Get("X-Request-Id")}}
	ctx.AbortWithStatusJSON(svcerr.Status(e.Code), body)
}
