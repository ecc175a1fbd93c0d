package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
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

// connectionsHelp is the help of "svc connections".
const connectionsHelp = `Usage: svc connections <list|create|get|rotate|disable|enable|rename|delete> [flags]

Connections hold the credentials the platform sends to upstream services on your behalf. They belong to
the selected project (or to none). A secret is sent once and is never shown again, by the API or by svc.

  connections list      list connections
  connections create    store an upstream credential
  connections get       show a connection
  connections rotate    replace a connection's secret (and basic-auth username)
  connections disable   stop using a connection
  connections enable    resume using a connection
  connections rename    change a connection's name
  connections delete    delete a connection

Run "svc connections <command> --help" for details.`

// connectionsCommands are the commands of protected connections, "svc connections ...".
func connectionsCommands() []command {
	return []command{
		{name: "connections", help: connectionsHelp},
		{name: "connections list", run: (*app).connectionsList, help: connectionsListHelp,
			brief: "list protected connections (upstream credentials; secrets are never shown)"},
		{name: "connections create", run: (*app).connectionsCreate, help: connectionsCreateHelp,
			brief: "store an upstream credential"},
		{name: "connections get", run: (*app).connectionsGet, help: connectionsGetHelp, brief: "show a connection"},
		{name: "connections rotate", run: (*app).connectionsRotate, help: connectionsRotateHelp,
			brief: "replace a connection's secret"},
		{name: "connections disable", run: (*app).connectionsDisable, help: connectionsDisableHelp,
			brief: "stop using a connection (its secret is kept)"},
		{name: "connections enable", run: (*app).connectionsEnable, help: connectionsEnableHelp,
			brief: "resume using a disabled connection"},
		{name: "connections rename", run: (*app).connectionsRename, help: connectionsRenameHelp,
			brief: "change a connection's name"},
		{name: "connections delete", run: (*app).connectionsDelete, help: connectionsDeleteHelp,
			brief: "delete a connection"},
	}
}

// register adds --secret and --secret-stdin to fs.
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

// client checks the secret flags (set holds the flags given), builds the authenticated client and then
// reads the secret; it reports what fails, as cmd's usage error or as localError, and returns the exit
// code with ok false.
func (s *secretFlags) client(a *app, cmd string, set map[string]bool) (c *client.Client, secret string, code int, ok bool) {
	if msg := s.check(a, set); msg != "" {
		return nil, "", a.usageError(cmd, "%s", msg), false
	}
	c, _, code, ok = a.authedClient()
	if !ok {
		return nil, "", code, false
	}
	secret, msg := s.read(a)
	if msg != "" {
		return nil, "", a.usageError(cmd, "%s", msg), false
	}
	return c, secret, 0, true
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

// connectionsListHelp is the help of "svc connections list".
const connectionsListHelp = `Usage: svc connections list [--limit N] [--cursor C] [--all]

Lists the connections of the selected project (or of none), newest first (scope connections:read).
Secrets are never shown.

  --limit N    page size 1..200 (default 50)
  --cursor C   the nextCursor of the previous page
  --all        follow nextCursor through every page

` + globalFlagsHelp

// connectionsList lists the connections of the selected project (or of none).
func (a *app) connectionsList(args []string) int {
	const cmd = "connections list"
	fs := a.commandFlags(cmd, nil)
	var pf pageFlags
	if code, ok := a.parsePaged(cmd, fs, &pf, args); !ok {
		return code
	}
	conns, next, code, done := collectPages(a, pf,
		func(c *client.Client, p client.ListParams) client.Response[client.ConnectionList] {
			return c.ListConnections(a.ctx, p)
		},
		func(l client.ConnectionList) ([]client.Connection, *string) { return l.Connections, l.NextCursor })
	if done {
		return code
	}
	if a.listShown(client.ConnectionList{OK: true, Connections: orEmpty(conns), NextCursor: next}, len(conns), "No connections.") {
		return exitOK
	}
	tw := a.table()
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

// secretFlagsHelp documents how the connection commands take a secret.
const secretFlagsHelp = `  --secret S            the secret: the header value, bearer token or basic-auth password; warns,
                        since a command line may be kept in shell history
  --secret-stdin        read the secret from stdin (a trailing line break is removed), e.g.
                          pass show upstream/token | svc connections ... --secret-stdin
  (neither)             prompt for the secret on the terminal without showing it; without a
                        terminal, or with --not-interactive, give --secret-stdin or --secret`

// connectionsCreateHelp is the help of "svc connections create".
const connectionsCreateHelp = `Usage: svc connections create --name N --auth-type header|bearer|basic [--header-name H]
                              [--username U] [--secret S | --secret-stdin] [--idempotency-key K]

Stores an upstream credential (scope connections:write) in the selected project (or in none). A service
of services.yaml refers to its connection by name. The secret is stored encrypted and never shown again.

  --name N              the connection's name, 1..100 characters, unique in its project (required)
  --auth-type T         how the secret is sent (required):
                          header   as the value of the header --header-name
                          bearer   as Authorization: Bearer <secret>
                          basic    as Authorization: Basic, with --username
  --header-name H       the header carrying the secret, e.g. X-Api-Key (--auth-type header only; required)
  --username U          the basic-auth user, without colons (--auth-type basic only; required)
` + secretFlagsHelp + `
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// connectionsCreate stores an upstream credential.
func (a *app) connectionsCreate(args []string) int {
	const cmd = "connections create"
	var (
		name, authType, headerName, username, idemKey string
		sf                                            secretFlags
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&name, "name", "", "the connection's name (required)")
	fs.StringVar(&authType, "auth-type", "", "header, bearer or basic (required)")
	fs.StringVar(&headerName, "header-name", "", "the header carrying the secret (auth type header)")
	fs.StringVar(&username, "username", "", "the basic-auth user (auth type basic)")
	sf.register(fs)
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		// Not quoted: a secret typed without --secret would otherwise be echoed.
		return a.usageError(cmd, "connections create takes no arguments (give the secret with --secret-stdin, --secret or the prompt)")
	}
	set := flagsGiven(fs)
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
	case authType == client.AuthHeader && (len(headerName) > maxHeaderName || !client.ValidHeaderName(headerName)):
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
	c, secret, code, ok := sf.client(a, cmd, set)
	if !ok {
		return code
	}
	req := client.CreateConnectionRequest{Name: name, AuthType: authType, HeaderName: headerName, Username: username, Secret: secret}
	return answer(a, c.CreateConnection(a.ctx, req, idemOpts(idemKey)...), func(r client.Response[client.ConnectionEnvelope]) {
		a.printConnection("Created connection", r.Body.Connection, r.Replayed)
		fmt.Fprintln(a.stdout, "The secret is stored encrypted and is never shown again.")
	})
}

// connectionsGetHelp is the help of "svc connections get".
const connectionsGetHelp = `Usage: svc connections get ID

Shows the connection ID (scope connections:read): its name, auth type, status and dates, never its
secret.

` + globalFlagsHelp

// connectionsGet shows a connection's metadata.
func (a *app) connectionsGet(args []string) int {
	return oneID(a, idSpec{cmd: "connections get", what: "connection"}, args,
		func(c *client.Client, id string, _ []client.CallOption) client.Response[client.ConnectionEnvelope] {
			return c.GetConnection(a.ctx, id)
		},
		func(r client.Response[client.ConnectionEnvelope]) { a.printConnection("", r.Body.Connection, false) })
}

// connectionsRotateHelp is the help of "svc connections rotate".
const connectionsRotateHelp = `Usage: svc connections rotate ID [--secret S | --secret-stdin] [--username U] [--idempotency-key K]

Replaces the secret of the connection ID (scope connections:write); for a basic-auth connection
--username also replaces the user (otherwise it is kept). The new secret is never shown either.

` + secretFlagsHelp + `
  --username U          a new basic-auth user, without colons (basic connections only)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// connectionsRotate replaces a connection's secret (and, for basic auth, optionally its username).
func (a *app) connectionsRotate(args []string) int {
	const cmd = "connections rotate"
	var (
		username, idemKey string
		sf                secretFlags
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&username, "username", "", "a new basic-auth user")
	sf.register(fs)
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 || strings.TrimSpace(pos[0]) == "" {
		// Not quoted: a secret typed without --secret would otherwise be echoed.
		return a.usageError(cmd, "connections rotate takes exactly one connection id (give the secret with --secret-stdin, --secret or the prompt)")
	}
	set := flagsGiven(fs)
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
	c, secret, code, ok := sf.client(a, cmd, set)
	if !ok {
		return code
	}
	req.Secret = &secret
	return answer(a, c.UpdateConnection(a.ctx, pos[0], req, idemOpts(idemKey)...), a.showConnection("Rotated connection"))
}

// connectionsDisableHelp is the help of "svc connections disable".
const connectionsDisableHelp = `Usage: svc connections disable ID [--idempotency-key K]

Disables the connection ID (scope connections:write): calls to services that need it are refused until
it is enabled again. The secret is kept.

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// connectionsDisable disables a connection.
func (a *app) connectionsDisable(args []string) int { return a.connectionsSetDisabled(args, true) }

// connectionsEnableHelp is the help of "svc connections enable".
const connectionsEnableHelp = `Usage: svc connections enable ID [--idempotency-key K]

Enables the disabled connection ID again (scope connections:write).

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// connectionsEnable enables a disabled connection.
func (a *app) connectionsEnable(args []string) int { return a.connectionsSetDisabled(args, false) }

// connectionsSetDisabled disables or enables a connection.
func (a *app) connectionsSetDisabled(args []string, disabled bool) int {
	cmd, title := "connections enable", "Enabled connection"
	if disabled {
		cmd, title = "connections disable", "Disabled connection"
	}
	return oneID(a, idSpec{cmd: cmd, what: "connection", idem: true}, args,
		func(c *client.Client, id string, opts []client.CallOption) client.Response[client.ConnectionEnvelope] {
			return c.UpdateConnection(a.ctx, id, client.UpdateConnectionRequest{Disabled: &disabled}, opts...)
		},
		a.showConnection(title))
}

// connectionsRenameHelp is the help of "svc connections rename".
const connectionsRenameHelp = `Usage: svc connections rename ID --name N [--idempotency-key K]

Renames the connection ID (scope connections:write). Services refer to connections by name, so a service
that used the old name no longer finds it.

  --name N              the new name, 1..100 characters, unique in its project (required)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// connectionsRename changes a connection's name.
func (a *app) connectionsRename(args []string) int {
	const cmd = "connections rename"
	var name, idemKey string
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&name, "name", "", "the new name (required)")
	id, code, ok := a.parseID(idSpec{cmd: cmd, what: "connection"}, fs, args)
	if !ok {
		return code
	}
	if !flagsGiven(fs)["name"] {
		return a.usageError(cmd, "--name is required")
	}
	if msg := checkConnectionName(name); msg != "" {
		return a.usageError(cmd, "%s", msg)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	req := client.UpdateConnectionRequest{Name: &name}
	return answer(a, c.UpdateConnection(a.ctx, id, req, idemOpts(idemKey)...), a.showConnection("Renamed connection"))
}

// showConnection returns the function that shows a connection answer under title, marked when replayed.
func (a *app) showConnection(title string) func(client.Response[client.ConnectionEnvelope]) {
	return func(r client.Response[client.ConnectionEnvelope]) {
		a.printConnection(title, r.Body.Connection, r.Replayed)
	}
}

// connectionsDeleteHelp is the help of "svc connections delete".
const connectionsDeleteHelp = `Usage: svc connections delete ID [--idempotency-key K]

Deletes the connection ID and its secret (scope connections:write).

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp

// connectionsDelete deletes a connection.
func (a *app) connectionsDelete(args []string) int {
	return oneID(a, idSpec{cmd: "connections delete", what: "connection", idem: true}, args,
		func(c *client.Client, id string, opts []client.CallOption) client.Response[client.ConnectionEnvelope] {
			return c.DeleteConnection(a.ctx, id, opts...)
		},
		func(r client.Response[client.ConnectionEnvelope]) {
			cn := r.Body.Connection
			fmt.Fprintln(a.stdout, titleLine("Deleted connection", cn.ID, oneLine(cn.Name, 0), r.Replayed)+".")
		})
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
		fmt.Fprintln(a.stdout, titleLine(title, c.ID, oneLine(c.Name, 0), replayed))
	}
	tw := a.table()
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
