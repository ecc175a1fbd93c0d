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

// usages holds the help text of every command, by name ("" is the overview).
var usages = map[string]string{
	"": `svc - command-line client of the svc platform API

Usage:
  svc [global flags] <command> [flags] [arguments]

Commands:
  login          verify an API key and store it for later commands
  whoami         show the base URL, the key prefix and, when allowed, the key's id and scopes
  keys create    create an API key (a child key, or the first key with --credit-token)
  keys list      list the current key and its descendants
  keys revoke    revoke a key and all its descendants
  runs create    start a durable run, optionally waiting until it finishes
  runs get       show a run, optionally waiting until it finishes
  help [cmd]     show help for a command

` + globalFlagsHelp + `

Settings come from flags, then the environment, then the config file written by "svc login"
($XDG_CONFIG_HOME/svc/config.json or ~/.config/svc/config.json, mode 0600), then defaults.

Exit codes: 0 success, 1 API error (or a failed run), 2 usage error.
API errors print "error: <code>: <message> (param) [requestId]" to stderr.`,

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

	"runs": `Usage: svc runs <create|get> [flags]

  runs create    start a durable run, optionally waiting until it finishes
  runs get       show a run, optionally waiting until it finishes

Run "svc runs <command> --help" for details.`,

	"runs create": `Usage: svc runs create --service S --operation O [--input JSON | --input-file F] [--wait]
                      [--interval D] [--idempotency-key K]

Starts a durable run (scope runs:write and access to the service), e.g.
  svc runs create --service managed-workflows --operation echo --input '{"message":"hi"}' --wait

  --service S           service id (required)
  --operation O         operation id (required)
  --input JSON          the input, a JSON object (default {})
  --input-file F        read the input from file F (- for stdin)
  --wait                follow the run until it finishes, printing each status change;
                        a failed or cancelled run then exits 1
  --interval D          poll interval with --wait (default 1s)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely

` + globalFlagsHelp,

	"runs get": `Usage: svc runs get ID [--wait] [--interval D]

Shows a run (scope runs:read). Runs created with a project selected are visible only with that project.

  --wait         follow the run until it finishes, printing each status change;
                 a failed or cancelled run then exits 1
  --interval D   poll interval with --wait (default 1s)

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
