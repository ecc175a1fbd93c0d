package agentenv

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/textproto"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/gateway"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Limits of user MCP servers.
const (
	// ServerIDPrefix starts MCP servers' ids (mcps_...).
	ServerIDPrefix = "mcps"
	// MaxServers is how many MCP servers one account may keep (issue 25).
	MaxServers = 20
	// MaxHeaders is how many headers one server may carry.
	MaxHeaders = 20
	// MaxHeaderValueLength is the longest header value, in bytes.
	MaxHeaderValueLength = 4096
	// MaxURLLength is the longest server URL.
	MaxURLLength = 2048
)

// Transports of MCP servers: the streamable HTTP transport and the older HTTP+SSE one.
const (
	TransportHTTP = "http"
	TransportSSE  = "sse"
)

// serverNamePattern is a server's name: a slug, since tools are offered as <name>__<tool>.
var serverNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,47}$`)

// headerNamePattern is an HTTP token.
var headerNamePattern = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")

// forbiddenHeaders are set by the transport and may not be overridden.
var forbiddenHeaders = []string{"Host", "Content-Length", "Content-Type", "Transfer-Encoding", "Connection", "Upgrade",
	"Accept", "Accept-Encoding", "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-Id", "Te", "Trailer", "Keep-Alive", "Proxy-Authorization"}

// Server is a user MCP server. Headers holds the decrypted headers only where Servers answers them (for
// the agent's connections); everywhere else it is nil and only HeaderNames is set.
type Server struct {
	ID          string
	AccountID   string
	Name        string
	URL         string
	Transport   string
	HeaderNames []string
	Headers     map[string]string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// String keeps headers out of prints.
func (s Server) String() string { return "mcp server " + s.ID + " (" + s.Name + ")" }

// NewServer is what POST /v1/agent/mcp-servers asks for.
type NewServer struct {
	ID        string
	Name      string
	URL       string
	Transport string
	Headers   map[string]string
}

// URLGuard is the outbound guard of MCP servers (the platform's, gateway.ClassifyAddr): a URL must be
// https (http with AllowHTTP) and its host must resolve to public addresses only, unless AllowPrivate
// or AllowLoopback admits more; connections are checked again at dial time, whatever DNS answers then.
type URLGuard struct {
	AllowHTTP     bool
	AllowPrivate  bool
	AllowLoopback bool
	// Resolve looks up host names; nil means the system resolver.
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

// Check validates raw as an MCP server URL; errors name the field url.
func (g URLGuard) Check(ctx context.Context, raw string) error {
	if raw == "" {
		return svcerr.Invalid("url", "url is required")
	}
	if len(raw) > MaxURLLength {
		return svcerr.Invalid("url", "url is longer than %d characters", MaxURLLength)
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return svcerr.Invalid("url", "url must be an absolute https URL")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && g.AllowHTTP:
	default:
		return svcerr.Invalid("url", "url must use https, not %q", u.Scheme)
	}
	if u.User != nil {
		return svcerr.Invalid("url", "url must not carry a user name or password (use headers)")
	}
	if u.Fragment != "" {
		return svcerr.Invalid("url", "url must not carry a fragment")
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a.WithZone("")}
	} else {
		resolve := g.Resolve
		if resolve == nil {
			resolve = func(ctx context.Context, h string) ([]netip.Addr, error) {
				return net.DefaultResolver.LookupNetIP(ctx, "ip", h)
			}
		}
		addrs, err = resolve(ctx, host)
		if err != nil || len(addrs) == 0 {
			return svcerr.Invalid("url", "url host %s does not resolve", host)
		}
	}
	for _, a := range addrs {
		if class := gateway.ClassifyAddr(a); !gateway.Admits(class, g.AllowPrivate, g.AllowLoopback) {
			return svcerr.Invalid("url", "url host %s resolves to a %s address (%s), which MCP servers may not use", host, class, a.Unmap())
		}
	}
	return nil
}

// mcpResponseHeaderTimeout bounds how long a user's MCP server may take to start answering one request
// (a tool call answered as JSON starts when it is done): a server that accepts connections and never
// answers then fails the agent's step instead of holding it until the activity's timeout.
const mcpResponseHeaderTimeout = time.Minute

// HTTPClient is an http.Client whose every connection passes the guard at dial time, that follows no
// redirect, uses no proxy (a proxy would hide the real destination from the guard) and waits at most
// mcpResponseHeaderTimeout for an answer to start.
func (g URLGuard) HTTPClient() *http.Client {
	dialer := gateway.GuardedDialer(g.AllowPrivate, g.AllowLoopback)
	return &http.Client{
		Transport: &http.Transport{Proxy: nil, DialContext: dialer.DialContext, ForceAttemptHTTP2: true,
			MaxIdleConns: 20, IdleConnTimeout: 90 * time.Second, TLSHandshakeTimeout: 10 * time.Second, MaxResponseHeaderBytes: 64 << 10,
			ResponseHeaderTimeout: mcpResponseHeaderTimeout},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// validateServer checks a new server's fields other than its URL; errors name the field.
func validateServer(n NewServer) error {
	if !serverNamePattern.MatchString(n.Name) {
		return svcerr.Invalid("name", "name must be 1 to 48 lower-case letters, digits, hyphens or underscores, starting with a letter or digit")
	}
	if strings.Contains(n.Name, "__") || strings.HasSuffix(n.Name, "_") {
		// Otherwise <name>__<tool> could name another server's tool ("a___b": server a_ or a).
		return svcerr.Invalid("name", "name must not contain \"__\" or end with \"_\": the agent offers its tools as <name>__<tool>")
	}
	if n.Transport != TransportHTTP && n.Transport != TransportSSE {
		return svcerr.Invalid("transport", "transport must be %q or %q", TransportHTTP, TransportSSE)
	}
	if len(n.Headers) > MaxHeaders {
		return svcerr.Invalid("headers", "at most %d headers", MaxHeaders)
	}
	seen := map[string]bool{}
	for k, v := range n.Headers {
		if !headerNamePattern.MatchString(k) {
			return svcerr.Invalid("headers", "header name %q is not a valid HTTP header name", k)
		}
		canon := textproto.CanonicalMIMEHeaderKey(k)
		if slices.Contains(forbiddenHeaders, canon) {
			return svcerr.Invalid("headers", "header %s is set by the transport and may not be given", canon)
		}
		if seen[canon] {
			return svcerr.Invalid("headers", "header %s is given twice", canon)
		}
		seen[canon] = true
		if len(v) > MaxHeaderValueLength || strings.ContainsAny(v, "\r\n\x00") {
			// The value is never quoted: it is a secret.
			return svcerr.Invalid("headers", "header %s's value must be at most %d bytes, without line breaks or NUL", canon, MaxHeaderValueLength)
		}
	}
	return nil
}

// serverRow is the agent_mcp_servers table; it never leaves this package.
type serverRow struct {
	bun.BaseModel `bun:"table:agent_mcp_servers"`

	ID            string    `bun:"id,pk"`
	AccountID     string    `bun:"account_id"`
	Name          string    `bun:"name"`
	URL           string    `bun:"url"`
	Transport     string    `bun:"transport"`
	HeaderNames   []string  `bun:"header_names,array"`
	HeadersSealed []byte    `bun:"headers_sealed"`
	CreatedAt     time.Time `bun:"created_at,nullzero,default:now()"`
	UpdatedAt     time.Time `bun:"updated_at,nullzero,default:now()"`
}

func (r *serverRow) server() Server {
	return Server{ID: r.ID, AccountID: r.AccountID, Name: r.Name, URL: r.URL, Transport: r.Transport,
		HeaderNames: append([]string{}, r.HeaderNames...), CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

// headersAAD binds sealed headers to their account and server.
func headersAAD(accountID, serverID string) []byte {
	return []byte("svc/agent-mcp-headers:" + accountID + ":" + serverID)
}

// CreateServer validates and stores an MCP server of the account: at most MaxServers per account (the
// account's row lock makes the count exact under concurrent creates), the name unique in the account, the
// URL through the guard, the headers sealed. Creating the same id again (a retried request) answers the
// first attempt's server.
func (s *Store) CreateServer(ctx context.Context, accountID string, n NewServer) (Server, error) {
	if err := validateServer(n); err != nil {
		return Server{}, err
	}
	if err := s.guard.Check(ctx, n.URL); err != nil {
		return Server{}, err
	}
	if !ids.HasPrefix(n.ID, ServerIDPrefix) {
		return Server{}, fmt.Errorf("create mcp server: id %q lacks the %s_ prefix", n.ID, ServerIDPrefix)
	}
	names := make([]string, 0, len(n.Headers))
	canon := make(map[string]string, len(n.Headers))
	for k, v := range n.Headers {
		c := textproto.CanonicalMIMEHeaderKey(k)
		names, canon[c] = append(names, c), v
	}
	slices.Sort(names)
	var out Server
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var existing serverRow
		err := tx.NewSelect().Model(&existing).Where("id = ? AND account_id = ?", n.ID, accountID).Scan(ctx)
		if err == nil {
			out = existing.server()
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read mcp server: %w", err)
		}
		b, err := s.accountBox(ctx, tx, accountID)
		if err != nil {
			return err
		}
		if _, err := tx.NewRaw("SELECT 1 FROM accounts WHERE id = ? FOR UPDATE", accountID).Exec(ctx); err != nil {
			return fmt.Errorf("lock account: %w", err)
		}
		var count int
		if err := tx.NewRaw("SELECT count(*) FROM agent_mcp_servers WHERE account_id = ?", accountID).Scan(ctx, &count); err != nil {
			return fmt.Errorf("count mcp servers: %w", err)
		}
		if count >= MaxServers {
			return svcerr.New(svcerr.InvalidRequest, "this account already has %d MCP servers, the most it may; delete one first", MaxServers).
				WithDetails("limit", MaxServers)
		}
		r := &serverRow{ID: n.ID, AccountID: accountID, Name: n.Name, URL: n.URL, Transport: n.Transport, HeaderNames: names}
		if len(canon) > 0 {
			plain, err := json.Marshal(canon)
			if err != nil {
				return fmt.Errorf("encode headers: %w", err)
			}
			r.HeadersSealed = b.Seal(plain, headersAAD(accountID, n.ID))
			clear(plain)
		}
		res, err := tx.NewInsert().Model(r).On("CONFLICT (account_id, name) DO NOTHING").Returning("created_at, updated_at").Exec(ctx)
		if err != nil {
			return fmt.Errorf("insert mcp server: %w", err)
		}
		if inserted, _ := res.RowsAffected(); inserted == 0 {
			return svcerr.New(svcerr.Conflict, "an MCP server named %s already exists", n.Name).WithDetails("name", n.Name)
		}
		out = r.server()
		return nil
	})
	if err != nil {
		return Server{}, err
	}
	return out, nil
}

// ListServers answers the account's MCP servers, oldest first, without header values.
func (s *Store) ListServers(ctx context.Context, accountID string) ([]Server, error) {
	var rows []serverRow
	if err := s.db.NewSelect().Model(&rows).Where("account_id = ?", accountID).Order("created_at", "id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("list mcp servers: %w", err)
	}
	out := make([]Server, 0, len(rows))
	for i := range rows {
		out = append(out, rows[i].server())
	}
	return out, nil
}

// GetServer answers one of the account's MCP servers; another account's is not_found.
func (s *Store) GetServer(ctx context.Context, accountID, id string) (Server, error) {
	var r serverRow
	err := s.db.NewSelect().Model(&r).Where("id = ? AND account_id = ?", id, accountID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return Server{}, svcerr.NotFoundf("no MCP server %s", id)
	}
	if err != nil {
		return Server{}, fmt.Errorf("read mcp server: %w", err)
	}
	return r.server(), nil
}

// DeleteServer removes one of the account's MCP servers and answers it; another account's is not_found.
func (s *Store) DeleteServer(ctx context.Context, accountID, id string) (Server, error) {
	var r serverRow
	_, err := s.db.NewDelete().Model(&r).Where("id = ? AND account_id = ?", id, accountID).Returning("*").Exec(ctx)
	if err != nil {
		return Server{}, fmt.Errorf("delete mcp server: %w", err)
	}
	if r.ID == "" {
		return Server{}, svcerr.NotFoundf("no MCP server %s", id)
	}
	return r.server(), nil
}

// Servers answers the account's MCP servers with their headers decrypted, for the agent's connections
// at tool-execution time. The headers must go no further than the connection.
func (s *Store) Servers(ctx context.Context, accountID string) ([]Server, error) {
	var rows []serverRow
	if err := s.db.NewSelect().Model(&rows).Where("account_id = ?", accountID).Order("created_at", "id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("list mcp servers: %w", err)
	}
	out := make([]Server, 0, len(rows))
	for i := range rows {
		srv := rows[i].server()
		srv.Headers = map[string]string{}
		if len(rows[i].HeadersSealed) > 0 {
			b, err := s.accountBox(ctx, s.db, accountID)
			if err != nil {
				return nil, err
			}
			plain, err := b.Open(rows[i].HeadersSealed, headersAAD(accountID, srv.ID))
			if err != nil {
				return nil, fmt.Errorf("headers of mcp server %s do not open: %w", srv.ID, err)
			}
			err = json.Unmarshal(plain, &srv.Headers)
			clear(plain)
			if err != nil {
				return nil, fmt.Errorf("headers of mcp server %s: %w", srv.ID, err)
			}
		}
		out = append(out, srv)
	}
	return out, nil
}

// headerTransport adds a server's headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	return t.base.RoundTrip(r)
}

// Implementation is how the platform names itself to MCP servers.
var Implementation = &mcp.Implementation{Name: "svc-agent", Version: "1"}

// Connect opens an MCP client session to srv (with its decrypted headers, as Servers answers it) with the
// official Go MCP SDK, over the streamable HTTP or the SSE transport, through the guard's HTTP client.
// The caller closes the session.
func (g URLGuard) Connect(ctx context.Context, srv Server) (*mcp.ClientSession, error) {
	if err := g.Check(ctx, srv.URL); err != nil {
		return nil, fmt.Errorf("mcp server %s: %w", srv.Name, err)
	}
	hc := g.HTTPClient()
	hc.Transport = headerTransport{base: hc.Transport, headers: srv.Headers}
	var t mcp.Transport
	switch srv.Transport {
	case TransportSSE:
		t = &mcp.SSEClientTransport{Endpoint: srv.URL, HTTPClient: hc}
	default:
		t = &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}
	}
	cs, err := mcp.NewClient(Implementation, nil).Connect(ctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("connect to mcp server %s: %w", srv.Name, err)
	}
	return cs, nil
}

// Connect is URLGuard.Connect with the store's guard.
func (s *Store) Connect(ctx context.Context, srv Server) (*mcp.ClientSession, error) {
	return s.guard.Connect(ctx, srv)
}
