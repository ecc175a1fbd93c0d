package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/svcplatform/svc/client"
)

// Bounds of a connection's fields, as the API documents them.
const (
	maxConnectionName = 100  // characters
	maxSecretBytes    = 8192 // bytes
	maxUsername       = 256  // bytes
	maxHeaderName     = 128  // bytes
)

// secretFlags are the ways a command takes a connection secret: --secret, --secret-stdin, or else a
// prompt on the terminal.
type secretFlags struct {
	value string
	stdin bool
}

func (s *secretFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.value, "secret", "", "the secret (may be kept in shell history; prefer --secret-stdin)")
	fs.BoolVar(&s.stdin, "secret-stdin", false, "read the secret from stdin")
}

// check validates the secret flags without reading anything; set holds the flags given. It returns a
// usage message or "".
func (s *secretFlags) check(a *app, set map[string]bool) string {
	switch {
	case set["secret"] && s.stdin:
		return "use --secret or --secret-stdin, not both"
	case set["secret"] && s.value == "":
		return "--secret is empty"
	case !set["secret"] && !s.stdin && !a.interactive():
		return "give the secret with --secret-stdin (or --secret) when svc cannot prompt"
	}
	return ""
}

// read returns the secret from --secret, stdin or the prompt, or a usage message. It never quotes the
// secret in a message. --secret draws a warning, since a command line may be kept in shell history.
func (s *secretFlags) read(a *app) (secret, msg string) {
	switch {
	case s.value != "":
		fmt.Fprintln(a.stderr, "warning: a secret given with --secret may be kept in your shell history and be "+
			"visible to other users in the process list; prefer --secret-stdin or the prompt")
		secret = s.value
	case s.stdin:
		b, err := io.ReadAll(io.LimitReader(a.stdin, maxSecretBytes+3))
		if err != nil {
			return "", "--secret-stdin: read stdin: " + err.Error()
		}
		secret = strings.TrimRight(string(b), "\r\n")
		if secret == "" {
			return "", "--secret-stdin: stdin holds no secret"
		}
	default:
		v, err := a.promptSecret("Secret (not shown): ")
		if err != nil {
			return "", "read the secret: " + err.Error()
		}
		if v == "" {
			return "", "no secret entered"
		}
		secret = v
	}
	switch {
	case len(secret) > maxSecretBytes:
		return "", fmt.Sprintf("the secret is longer than %d bytes", maxSecretBytes)
	case hasControl(secret) || !utf8.ValidString(secret):
		return "", "the secret must be one line of valid text without control characters"
	}
	return secret, ""
}

// hasControl reports whether s holds an ASCII control character (CR, LF, NUL, DEL...).
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// checkConnectionName checks a connection's name; it returns a usage message or "".
func checkConnectionName(name string) string {
	switch {
	case strings.TrimSpace(name) == "":
		return "--name must not be empty"
	case utf8.RuneCountInString(name) > maxConnectionName:
		return fmt.Sprintf("--name has %d characters; at most %d are allowed", utf8.RuneCountInString(name), maxConnectionName)
	case hasControl(name) || !utf8.ValidString(name):
		return "--name must be valid text without control characters"
	}
	return ""
}

// checkUsername checks a basic-auth username; it returns a usage message or "".
func checkUsername(u string) string {
	switch {
	case len(u) > maxUsername:
		return fmt.Sprintf("--username is longer than %d bytes", maxUsername)
	case strings.Contains(u, ":"):
		return "--username must not contain a colon"
	case hasControl(u) || !utf8.ValidString(u):
		return "--username must be valid text without control characters"
	}
	return ""
}

// isHeaderToken reports whether s is a valid HTTP header name (an RFC 9110 token).
func isHeaderToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// connectionsList lists the connections of the selected project (or of none).
func (a *app) connectionsList(args []string) int {
	const cmd = "connections list"
	fs := a.flagSet(cmd)
	a.g.register(fs)
	var pf pageFlags
	pf.register(fs)
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return a.usageError(cmd, "unexpected argument %q", pos[0])
	}
	if msg := pf.check(); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	conns, next, code, done := collectPages(a, pf,
		func(p client.ListParams) client.Response[client.ConnectionList] { return c.ListConnections(a.ctx, p) },
		func(l client.ConnectionList) ([]client.Connection, *string) { return l.Connections, l.NextCursor })
	if done {
		return code
	}
	if a.g.json {
		a.printJSON(client.ConnectionList{OK: true, Connections: orEmpty(conns), NextCursor: next})
		return exitOK
	}
	if len(conns) == 0 {
		fmt.Fprintln(a.stdout, "No connections.")
		return exitOK
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tAUTH\tSTATUS\tCREATED\tROTATED")
	for _, cn := range conns {
		rotated := "-"
		if cn.RotatedAt != nil {
			rotated = cn.RotatedAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cn.ID, oneLine(cn.Name, 40), authLabel(cn), cn.Status,
			cn.CreatedAt.UTC().Format(time.RFC3339), rotated)
	}
	_ = tw.Flush()
	var filters []string
	if pf.limit != 0 {
		filters = append(filters, "--limit", fmt.Sprint(pf.limit))
	}
	a.moreHint("connections", cmd, filters, next)
	return exitOK
}

// connectionsCreate stores an upstream credential.
func (a *app) connectionsCreate(args []string) int {
	const cmd = "connections create"
	fs := a.flagSet(cmd)
	a.g.register(fs)
	var (
		name, authType, headerName, username, idemKey string
		sf                                            secretFlags
	)
	fs.StringVar(&name, "name", "", "the connection's name (required)")
	fs.StringVar(&authType, "auth-type", "", "header, bearer or basic (required)")
	fs.StringVar(&headerName, "header-name", "", "the header carrying the secret (auth type header)")
	fs.StringVar(&username, "username", "", "the basic-auth user (auth type basic)")
	fs.StringVar(&idemKey, "idempotency-key", "", "Idempotency-Key to send (default: random)")
	sf.register(fs)
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		// Not quoted: a secret typed without --secret would otherwise be echoed.
		return a.usageError(cmd, "connections create takes no arguments (give the secret with --secret-stdin, --secret or the prompt)")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["name"] {
		return a.usageError(cmd, "--name is required")
	}
	if msg := checkConnectionName(name); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	switch authType {
	case "":
		return a.usageError(cmd, "--auth-type is required: header, bearer or basic")
	case client.AuthHeader, client.AuthBearer, client.AuthBasic:
	default:
		return a.usageError(cmd, "--auth-type must be header, bearer or basic, not %q", authType)
	}
	switch {
	case authType == client.AuthHeader && headerName == "":
		return a.usageError(cmd, "--header-name is required with --auth-type header (e.g. --header-name X-Api-Key)")
	case authType != client.AuthHeader && set["header-name"]:
		return a.usageError(cmd, "--header-name applies only to --auth-type header")
	case authType == client.AuthHeader && (len(headerName) > maxHeaderName || !isHeaderToken(headerName)):
		return a.usageError(cmd, "--header-name must be an HTTP header name of at most %d characters", maxHeaderName)
	case authType == client.AuthBasic && username == "":
		return a.usageError(cmd, "--username is required with --auth-type basic")
	case authType != client.AuthBasic && set["username"]:
		return a.usageError(cmd, "--username applies only to --auth-type basic")
	}
	if authType == client.AuthBasic {
		if msg := checkUsername(username); msg != "" {
			return a.usageError(cmd, "%s", msg)
		}
	}
	if msg := sf.check(a, set); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	secret, msg := sf.read(a)
	if msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	req := client.CreateConnectionRequest{Name: name, AuthType: authType, HeaderName: headerName, Username: username, Secret: secret}
	resp := c.CreateConnection(a.ctx, req, idemOpts(idemKey)...)
	if !resp.OK {
		return apiFailure(a, resp)
	}
	if a.g.json {
		a.printRaw(resp.Raw)
		return exitOK
	}
	a.printConnection("Created connection", resp.Body.Connection, resp.Replayed)
	fmt.Fprintln(a.stdout, "The secret is stored encrypted and is never shown again.")
	return exitOK
}

// connectionsGet shows a connection's metadata.
func (a *app) connectionsGet(args []string) int {
	const cmd = "connections get"
	fs := a.flagSet(cmd)
	a.g.register(fs)
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
		return a.usageError(cmd, "connections get takes exactly one connection id")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	resp := c.GetConnection(a.ctx, pos[0])
	if !resp.OK {
		return apiFailure(a, resp)
	}
	if a.g.json {
		a.printRaw(resp.Raw)
		return exitOK
	}
	a.printConnection("", resp.Body.Connection, false)
	return exitOK
}

// connectionsRotate replaces a connection's secret (and, for basic auth, optionally its username).
func (a *app) connectionsRotate(args []string) int {
	const cmd = "connections rotate"
	fs := a.flagSet(cmd)
	a.g.register(fs)
	var (
		username, idemKey string
		sf                secretFlags
	)
	fs.StringVar(&username, "username", "", "a new basic-auth user")
	fs.StringVar(&idemKey, "idempotency-key", "", "Idempotency-Key to send (default: random)")
	sf.register(fs)
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
		// Not quoted: a secret typed without --secret would otherwise be echoed.
		return a.usageError(cmd, "connections rotate takes exactly one connection id (give the secret with --secret-stdin, --secret or the prompt)")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var req client.UpdateConnectionRequest
	if set["username"] {
		if username == "" {
			return a.usageError(cmd, "--username must not be empty")
		}
		if msg := checkUsername(username); msg != "" {
			return a.usageError(cmd, "%s", msg)
		}
		req.Username = &username
	}
	if msg := sf.check(a, set); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	secret, msg := sf.read(a)
	if msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	req.Secret = &secret
	return a.updateConnection(c, pos[0], req, idemKey, "Rotated connection")
}

// connectionsSetDisabled disables or re-enables a connection.
func (a *app) connectionsSetDisabled(args []string, disabled bool) int {
	cmd, title := "connections enable", "Enabled connection"
	if disabled {
		cmd, title = "connections disable", "Disabled connection"
	}
	fs := a.flagSet(cmd)
	a.g.register(fs)
	var idemKey string
	fs.StringVar(&idemKey, "idempotency-key", "", "Idempotency-Key to send (default: random)")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
		return a.usageError(cmd, "%s takes exactly one connection id", cmd)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return a.updateConnection(c, pos[0], client.UpdateConnectionRequest{Disabled: &disabled}, idemKey, title)
}

// connectionsRename changes a connection's name.
func (a *app) connectionsRename(args []string) int {
	const cmd = "connections rename"
	fs := a.flagSet(cmd)
	a.g.register(fs)
	var name, idemKey string
	fs.StringVar(&name, "name", "", "the new name (required)")
	fs.StringVar(&idemKey, "idempotency-key", "", "Idempotency-Key to send (default: random)")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
		return a.usageError(cmd, "connections rename takes exactly one connection id")
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["name"] {
		return a.usageError(cmd, "--name is required")
	}
	if msg := checkConnectionName(name); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return a.updateConnection(c, pos[0], client.UpdateConnectionRequest{Name: &name}, idemKey, "Renamed connection")
}

// updateConnection sends a PATCH and shows its answer under title.
func (a *app) updateConnection(c *client.Client, id string, req client.UpdateConnectionRequest, idemKey, title string) int {
	resp := c.UpdateConnection(a.ctx, id, req, idemOpts(idemKey)...)
	if !resp.OK {
		return apiFailure(a, resp)
	}
	if a.g.json {
		a.printRaw(resp.Raw)
		return exitOK
	}
	a.printConnection(title, resp.Body.Connection, resp.Replayed)
	return exitOK
}

// connectionsDelete deletes a connection.
func (a *app) connectionsDelete(args []string) int {
	const cmd = "connections delete"
	fs := a.flagSet(cmd)
	a.g.register(fs)
	var idemKey string
	fs.StringVar(&idemKey, "idempotency-key", "", "Idempotency-Key to send (default: random)")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
		return a.usageError(cmd, "connections delete takes exactly one connection id")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	resp := c.DeleteConnection(a.ctx, pos[0], idemOpts(idemKey)...)
	if !resp.OK {
		return apiFailure(a, resp)
	}
	if a.g.json {
		a.printRaw(resp.Raw)
		return exitOK
	}
	cn := resp.Body.Connection
	line := "Deleted connection " + cn.ID
	if cn.Name != "" {
		line += " (" + oneLine(cn.Name, 0) + ")"
	}
	if resp.Replayed {
		line += " [replayed answer]"
	}
	fmt.Fprintln(a.stdout, line+".")
	return exitOK
}

// authLabel shows a connection's auth type, with its header name for auth type header.
func authLabel(c client.Connection) string {
	if c.AuthType == client.AuthHeader && c.HeaderName != "" {
		return c.AuthType + " (" + c.HeaderName + ")"
	}
	return c.AuthType
}

// printConnection shows a connection's metadata (never a secret) as aligned lines, after an optional
// title line.
func (a *app) printConnection(title string, c client.Connection, replayed bool) {
	if title != "" {
		line := title + " " + c.ID
		if c.Name != "" {
			line += " (" + oneLine(c.Name, 0) + ")"
		}
		if replayed {
			line += " [replayed answer]"
		}
		fmt.Fprintln(a.stdout, line)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "ID:\t%s\n", c.ID)
	fmt.Fprintf(tw, "Name:\t%s\n", oneLine(c.Name, 0))
	fmt.Fprintf(tw, "Auth:\t%s\n", authLabel(c))
	fmt.Fprintf(tw, "Status:\t%s\n", c.Status)
	fmt.Fprintf(tw, "Created:\t%s\n", c.CreatedAt.UTC().Format(time.RFC3339))
	fmt.Fprintf(tw, "Updated:\t%s\n", c.UpdatedAt.UTC().Format(time.RFC3339))
	rotated := "never"
	if c.RotatedAt != nil {
		rotated = c.RotatedAt.UTC().Format(time.RFC3339)
	}
	fmt.Fprintf(tw, "Rotated:\t%s\n", rotated)
	_ = tw.Flush()
}
