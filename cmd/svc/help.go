package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/svcplatform/svc/client"
)

// globalFlagsHelp documents the flags every command accepts.
var globalFlagsHelp = `Global flags (before or after the command):
  --json              print the API's JSON envelope (success or error) instead of text
  --base-url URL      API address, host root or .../v1 (env ` + envBaseURL + `; default ` + client.DefaultBaseURL + `)
  --api-key KEY       API key (env ` + envAPIKey + `)
  --project ID        active project, sent as X-Svc-Project (env ` + envProject + `)
  --not-interactive   never prompt (env ` + envNotInteractive + `=1)
  -h, --help          show help`

// secretFlagsHelp documents how the connection commands take a secret.
var secretFlagsHelp = `  --secret S            the secret: the header value, bearer token or basic-auth password; warns,
                        since a command line may be kept in shell history
  --secret-stdin        read the secret from stdin (a trailing line break is removed), e.g.
                          pass show upstream/token | svc connections ... --secret-stdin
  (neither)             prompt for the secret on the terminal without showing it; without a
                        terminal, or with --not-interactive, give --secret-stdin or --secret`

// usages holds the help text of every command, by name ("" is the overview).
var usages = map[string]string{
	"": `svc - command-line client of the svc platform API

Usage:
  svc [global flags] <command> [flags] [arguments]

Commands:
  login                verify an API key and store it for later commands
  whoami               show the base URL, the key prefix and, when allowed, the key's id and scopes
  keys create          create an API key (a child key, or the first key with --credit-token)
  keys list            list the current key and its descendants
  keys revoke          revoke a key and all its descendants
  runs list            list runs, newest first, by status, service, operation and creation time
  runs create          start a durable run, optionally waiting until it finishes
  runs get             show a run, optionally waiting until it finishes
  runs watch           follow a run's status until it finishes
  runs cancel          request a run's cancellation
  projects list        list projects
  projects create      create a project
  projects get         show a project
  projects update      change a project's name or description
  projects archive     archive a project (it stays readable)
  usage                show requests and charged credits by day, project and operation
  audit                list audit events (one per authenticated request), newest first
  credits balance      show the account's available and held credits
  credits top-up       buy credits with a USDC payment (x402) signed with a local key
  connections list     list protected connections (upstream credentials; secrets are never shown)
  connections create   store an upstream credential
  connections get      show a connection
  connections rotate   replace a connection's secret
  connections disable  stop using a connection (its secret is kept)
  connections enable   resume using a disabled connection
  connections rename   change a connection's name
  connections delete   delete a connection
  services list        list the managed services the key may use
  services invoke      call an operation of an external managed service
  capabilities [ID]    list the operations of the services the key may use, or of one service
  pricing              show the public price of every operation in credits
  artifacts list       list the files and outputs runs produced
  artifacts download   download an artifact, verified against its SHA-256
  approvals list       list approvals, by status, service and run
  approvals approve    approve a pending approval: its run continues
  approvals reject     reject a pending approval: its run fails
  approvals request    ask for approval of a service action
  webhooks list        list webhook endpoints (never with their secrets)
  webhooks create      register an endpoint for signed event deliveries; prints its secret once
  webhooks update      change an endpoint's URL, events or description, or enable or disable it
  webhooks rotate-secret
                       give an endpoint a new signing secret, printed once
  webhooks delete      disable an endpoint
  webhooks verify      verify a saved delivery offline against a secret
  webhooks listen      receive, verify and print (or forward) deliveries locally, in development
  webhooks deliveries  list deliveries with their latest attempt
  webhooks replay      deliver a delivery's event again (same webhook-id, new signature)
  help [cmd]           show help for a command

` + globalFlagsHelp + `

Settings come from flags, then the environment, then the config file written by "svc login"
($XDG_CONFIG_HOME/svc/config.json or ~/.config/svc/config.json, mode 0600), then defaults.

Exit codes: 0 success, 1 API error (or a failed run, or an invoked service answering 4xx/5xx),
2 usage error (a mistyped command or flag names the nearest one).
API errors print "error: <code>: <message> (param) [requestId]" to stderr; the param (the request
field at fault) only when the message does not already name it.`,

	"login": `Usage: svc login [--api-key KEY] [--base-url URL] [--project ID]

Verifies an API key and stores it, with the base URL (and project, if given), in the config file
($XDG_CONFIG_HOME/svc/config.json or ~/.config/svc/config.json, mode 0600, directory 0700).

The key comes from --api-key, else ` + envAPIKey + `, else a prompt on the terminal (never with
--not-interactive or ` + envNotInteractive + `=1). It is checked with GET /v1/api-keys, then GET /v1/services:
a rejected key (401) is not stored; a key that authenticates but lacks both api_keys:manage and
services:read (403) is stored with a warning.

` + globalFlagsHelp,

	"whoami": `Usage: svc whoami

Shows the base URL, where the API key comes from and its prefix (never the whole secret), and, when the
key holds api_keys:manage, its id, name, scopes, services and limits.

` + globalFlagsHelp,

	"keys": `Usage: svc keys <create|list|revoke> [flags]

  keys create    create an API key (a child key, or the first key with --credit-token)
  keys list      list the current key and its descendants
  keys revoke    revoke a key and all its descendants

Run "svc keys <command> --help" for details.`,

	"keys create": `Usage: svc keys create [--name N] [--scope S]... [--service S]... [--limit OP=N/min|OP=N/day]...
                       [--project P] [--credit-token T] [--idempotency-key K] [--login]

Creates an API key and prints its secret once. With the current API key (scope api_keys:manage) the new
key is a child that may only narrow its parent; with --credit-token (or ` + envCreditToken + `) it is the
account's first key and no API key is sent. Every field is optional.

  --name N              a label for people
  --scope S             a scope of the new key; repeatable or comma-separated (default: the parent's)
  --service S           a service id the new key may use; repeatable or comma-separated
  --limit OP=N/min      at most N requests per minute for operation OP (e.g. runs.create=10/min, *=100/min)
  --limit OP=N/day      at most N credits per day (services.invoke, runs.create, ... only)
  --project P           bind the new key to project P (here --project is not the global flag)
  --credit-token T      first-key credit token from "svcd accounts create"
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely
  --login               also store the new key as the CLI's credentials

` + globalFlagsHelp,

	"keys list": `Usage: svc keys list [--limit N] [--cursor C] [--all]

Lists the current key and its descendants, newest first (scope api_keys:manage).

  --limit N    page size 1..200 (default 50)
  --cursor C   the nextCursor of the previous page
  --all        follow nextCursor through every page

` + globalFlagsHelp,

	"keys revoke": `Usage: svc keys revoke ID [--idempotency-key K]

Revokes the key ID and all its descendants (scope api_keys:manage).

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp,

	"runs": `Usage: svc runs <list|create|get|watch|cancel> [flags]

  runs list      list runs, newest first, by status, service, operation and creation time
  runs create    start a durable run, optionally waiting until it finishes
  runs get       show a run, optionally waiting until it finishes
  runs watch     follow a run's status until it finishes
  runs cancel    request a run's cancellation

Run "svc runs <command> --help" for details.`,

	"runs create": `Usage: svc runs create --service S --operation O [--input JSON | --input-file F] [--wait]
                      [--interval D] [--require-approval [--approval-expires-in D]] [--idempotency-key K]

Starts a durable run (scope runs:write and access to the service), e.g.
  svc runs create --service managed-workflows --operation echo --input '{"message":"hi"}' --wait

A run created with --require-approval (or whose operation the catalog marks as needing approval) waits in
awaiting_approval until a key holding approvals:write approves it; svc then prints a line naming the
approval and the command to approve it, "svc approvals approve APPROVAL_ID" (to stderr with --json).
Rejected, the run fails with approval_rejected; left undecided until it expires, with approval_expired.

  --service S           service id (required)
  --operation O         operation id (required)
  --input JSON          the input, a JSON object (default {})
  --input-file F        read the input from file F (- for stdin)
  --wait                follow the run until it finishes, printing each status change;
                        a failed or cancelled run then exits 1
  --interval D          poll interval with --wait (default 1s)
  --require-approval    wait for an approval before running
  --approval-expires-in D
                        how long the approval waits: a duration such as 90m or 48h, or whole
                        seconds such as 3600 (default 24h, at most 168h = 7 days)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp,

	"runs get": `Usage: svc runs get ID [--wait] [--interval D]

Shows a run (scope runs:read). Runs created with a project selected are visible only with that project.

  --wait         follow the run until it finishes, printing each status change;
                 a failed or cancelled run then exits 1
  --interval D   poll interval with --wait (default 1s)

` + globalFlagsHelp,

	"runs list": `Usage: svc runs list [--status S] [--service ID] [--operation ID] [--from TIME] [--to TIME]
                     [--limit N] [--cursor C] [--all]

Lists runs, newest first (scope runs:read). With a project selected only that project's runs are shown,
without one only the runs made outside any project; runs of services the key may not use are left out.

  --status S       only runs in status S: queued, running, awaiting_approval, succeeded, failed or
                   cancelled
  --service ID     only runs of this service, e.g. managed-workflows
  --operation ID   only runs of this operation, e.g. sleep
  --from TIME      runs created at or after TIME: RFC 3339 in whole seconds (2026-01-02T15:04:05Z), or a
                   day (2026-01-02, midnight UTC)
  --to TIME        runs created before TIME (exclusive), same forms as --from
  --limit N        page size 1..200 (default 50)
  --cursor C       the nextCursor of the previous page (repeat the same filters)
  --all            follow nextCursor through every page

` + globalFlagsHelp,

	"runs watch": `Usage: svc runs watch ID [--interval D]

Follows the run ID (scope runs:read) until it finishes: one line per status change as it happens, then
the finished run (with --json, the changes go to stderr and the final envelope to stdout). Stopping the
command (Ctrl-C) does not affect the run.

  --interval D   poll interval (default 1s)

Exit status: 0 when the run succeeded; 1 when it failed or was cancelled (the reason goes to stderr), or
when the API refused the call; 2 for a usage error.

` + globalFlagsHelp,

	"runs cancel": `Usage: svc runs cancel ID [--idempotency-key K]

Requests the cancellation of the run ID (scope runs:write and access to its service) and shows the run.
It usually still shows running: its workflow stops the operation and ends it cancelled moments later,
which "svc runs watch ID" follows. A run that has already finished cannot be cancelled (conflict, exit 1).

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp,

	"projects": `Usage: svc projects <list|create|get|update|archive> [flags]

  projects list      list projects
  projects create    create a project
  projects get       show a project
  projects update    change a project's name or description
  projects archive   archive a project (it stays readable)

Run "svc projects <command> --help" for details.`,

	"projects list": `Usage: svc projects list [--status active|archived] [--limit N] [--cursor C] [--all]

Lists the account's projects, newest first (scope projects:read). A key bound to a project sees only
that project.

  --status S   only projects in status S: active or archived (default: both)
  --limit N    page size 1..200 (default 50)
  --cursor C   the nextCursor of the previous page
  --all        follow nextCursor through every page

` + globalFlagsHelp,

	"projects create": `Usage: svc projects create --name N [--description D] [--idempotency-key K]

Creates an active project (scope projects:write; not with a key bound to a project). Select it for later
commands with --project ID or ` + envProject + `.

  --name N              the project's name, 1..200 characters (required)
  --description D       a description, at most 2000 characters
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp,

	"projects get": `Usage: svc projects get ID

Shows the project ID (scope projects:read).

` + globalFlagsHelp,

	"projects update": `Usage: svc projects update ID [--name N] [--description D] [--idempotency-key K]

Changes an active project's name, description or both (scope projects:write); give at least one.
An archived project refuses changes (conflict).

  --name N              the new name, 1..200 characters
  --description D       the new description, at most 2000 characters (--description "" clears it)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp,

	"projects archive": `Usage: svc projects archive ID [--idempotency-key K]

Archives the project ID (scope projects:write). An archived project can still be read but refuses
changes; archiving it again answers it unchanged.

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp,

	"usage": `Usage: svc usage [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--operation OP]

Shows requests and charged credits by UTC day, project and operation, with totals (scope usage:read).
With a project selected (--project, ` + envProject + `, or a key bound to a project) only that project
counts. PROJECT "-" is requests made outside any project. The counts come from audit events, which are
written in batches, so the latest requests may count only after a moment.

  --from DAY       first UTC day included (default: 29 days before --to)
  --to DAY         last UTC day included (default: today)
  --operation OP   only this operation id, e.g. runs.create

One query covers at most 366 days.

` + globalFlagsHelp,

	"audit": `Usage: svc audit [--operation OP] [--key KEY_ID] [--status N] [--from TIME] [--to TIME]
                 [--limit N] [--cursor C] [--all]

Lists audit events, newest first (scope audit:read): one per authenticated request, denials included,
never a secret or a body. With a project selected only that project's events are shown. Events are
written in batches, so the latest requests may appear after a moment. KEY "-" is a first-key credit
token.

  --operation OP   only this operation id, e.g. runs.create
  --key KEY_ID     only requests made with this key
  --status N       only answers with this HTTP status (100..599)
  --from TIME      events at or after TIME: RFC 3339 in whole seconds (2026-01-02T15:04:05Z), or a
                   day (2026-01-02, midnight UTC)
  --to TIME        events before TIME (exclusive), same forms as --from
  --limit N        page size 1..200 (default 50)
  --cursor C       the nextCursor of the previous page (repeat the same filters)
  --all            follow nextCursor through every page

` + globalFlagsHelp,

	"credits": `Usage: svc credits <balance|top-up> [flags]

  credits balance   show the account's available and held credits
  credits top-up    buy credits with a USDC payment (x402) signed with a local key

Run "svc credits <command> --help" for details.`,

	"credits balance": `Usage: svc credits balance

Shows the account's credits (scope credits:read): those available to spend and those held for calls
in progress.

` + globalFlagsHelp,

	"connections": `Usage: svc connections <list|create|get|rotate|disable|enable|rename|delete> [flags]

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

Run "svc connections <command> --help" for details.`,

	"connections list": `Usage: svc connections list [--limit N] [--cursor C] [--all]

Lists the connections of the selected project (or of none), newest first (scope connections:read).
Secrets are never shown.

  --limit N    page size 1..200 (default 50)
  --cursor C   the nextCursor of the previous page
  --all        follow nextCursor through every page

` + globalFlagsHelp,

	"connections create": `Usage: svc connections create --name N --auth-type header|bearer|basic [--header-name H]
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

` + globalFlagsHelp,

	"connections get": `Usage: svc connections get ID

Shows the connection ID (scope connections:read): its name, auth type, status and dates, never its
secret.

` + globalFlagsHelp,

	"connections rotate": `Usage: svc connections rotate ID [--secret S | --secret-stdin] [--username U] [--idempotency-key K]

Replaces the secret of the connection ID (scope connections:write); for a basic-auth connection
--username also replaces the user (otherwise it is kept). The new secret is never shown either.

` + secretFlagsHelp + `
  --username U          a new basic-auth user, without colons (basic connections only)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp,

	"connections disable": `Usage: svc connections disable ID [--idempotency-key K]

Disables the connection ID (scope connections:write): calls to services that need it are refused until
it is enabled again. The secret is kept.

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp,

	"connections enable": `Usage: svc connections enable ID [--idempotency-key K]

Enables the disabled connection ID again (scope connections:write).

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp,

	"connections rename": `Usage: svc connections rename ID --name N [--idempotency-key K]

Renames the connection ID (scope connections:write). Services refer to connections by name, so a service
that used the old name no longer finds it.

  --name N              the new name, 1..100 characters, unique in its project (required)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp,

	"connections delete": `Usage: svc connections delete ID [--idempotency-key K]

Deletes the connection ID and its secret (scope connections:write).

  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp,

	"services": `Usage: svc services <list|invoke> [flags]

  services list     list the managed services the key may use
  services invoke   call an operation of an external managed service

Run "svc services <command> --help" for details.`,

	"services invoke": `Usage: svc services invoke SERVICE_ID --operation OP [--input JSON | --input-file F]
                           [--idempotency-key K]

Calls the operation OP of the external managed service SERVICE_ID (scope services:invoke and access to
the service), e.g.
  svc services invoke weather --operation forecast --input '{"city":"Oslo"}'

Prints the status the service answered, the credits it charged, its request id (when it gave one) and
its result as indented JSON; with --json, the API's envelope as received.

  --operation OP        operation id (required)
  --input JSON          the input, a JSON object (default {})
  --input-file F        read the input from file F (- for stdin)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

Exit status: 0 when the service answered below 400; 1 when it answered 4xx or 5xx (the call itself
succeeded, the result is still printed and "error: service answered <status>" goes to stderr) or when
the API refused the call; 2 for a usage error.

` + globalFlagsHelp,

	"help": `Usage: svc help [command]

Shows help for a command, e.g. "svc help runs create".`,
}

// printUsage writes the help text of a command.
func (a *app) printUsage(w io.Writer, cmd string) {
	text, ok := usages[cmd]
	if !ok {
		text = usages[""]
	}
	fmt.Fprintln(w, strings.TrimRight(text, "\n"))
}
