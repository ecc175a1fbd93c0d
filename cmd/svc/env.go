package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// maxEnvValueBytes is the largest variable value the API takes.
const maxEnvValueBytes = 16 << 10

// envHelp is the help of "svc env".
const envHelp = `Usage: svc env <set|list|delete> [flags]

The agent's secure environment variables (seed 002): values are stored encrypted per account and are
never shown again, by the API or by svc; tools receive them by name when they run. Names match
^[A-Z_][A-Z0-9_]*$ (at most 128 characters) without a reserved prefix (SVC_, AWS_, GOOGLE_, GCP_, AZURE_,
ALIBABA_, OCI_, IBM_, DO_, ... see docs/API.md), or are BROWSER_CREDENTIAL_<SITE>_<FIELD> with FIELD
EMAIL, USERNAME, PASSWORD or ALLOWED_ORIGINS.

  env set      set (create or replace) a variable
  env list     list the variables' names
  env delete   delete a variable

Run "svc env <command> --help" for details.`

// envCommands are the commands of the agent's environment variables, "svc env ...".
func envCommands() []command {
	return []command{
		{name: "env", help: envHelp},
		{name: "env set", run: (*app).envSet, help: envSetHelp, brief: "set an agent environment variable (the value is never shown again)"},
		{name: "env list", run: (*app).envList, help: envListHelp, brief: "list the agent's environment variables (names only)"},
		{name: "env delete", run: (*app).envDelete, help: envDeleteHelp, brief: "delete an agent environment variable"},
	}
}

// envSetHelp is the help of "svc env set".
const envSetHelp = `Usage: svc env set KEY [VALUE | --value-stdin]

Sets the agent's environment variable KEY (scope runs:write, service managed-agents), replacing its
value if it exists. Without VALUE and --value-stdin, svc prompts for it without showing it.

  --value-stdin   read the value from stdin (a trailing line break is removed), e.g.
                    pass show openai | svc env set OPENAI_API_KEY --value-stdin

A VALUE given on the command line may be kept in your shell history; prefer --value-stdin or the prompt.

` + globalFlagsHelp

// envSet sets one variable.
func (a *app) envSet(args []string) int {
	const cmd = "env set"
	var stdin bool
	fs := a.commandFlags(cmd, nil)
	fs.BoolVar(&stdin, "value-stdin", false, "read the value from stdin")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) == 0 || len(pos) > 2 {
		// Never quote the arguments: one may be the value.
		return a.usageError(cmd, "env set takes KEY and, unless --value-stdin, VALUE")
	}
	key := pos[0]
	if key == "" {
		return a.usageError(cmd, "KEY is empty")
	}
	if len(pos) == 2 && stdin {
		return a.usageError(cmd, "give VALUE or --value-stdin, not both")
	}
	if len(pos) == 1 && !stdin && !a.interactive() {
		return a.usageError(cmd, "give the value with --value-stdin (or as VALUE) when svc cannot prompt")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	var value string
	switch {
	case len(pos) == 2:
		fmt.Fprintln(a.stderr, "warning: a value given on the command line may be kept in your shell history; prefer --value-stdin or the prompt")
		value = pos[1]
	case stdin:
		b, err := io.ReadAll(io.LimitReader(a.stdin, maxEnvValueBytes+3))
		if err != nil {
			return a.usageError(cmd, "--value-stdin: read stdin: %s", err)
		}
		value = strings.TrimRight(string(b), "\r\n")
	default:
		v, err := a.promptSecret("Value of " + key + " (not shown): ")
		if err != nil {
			return a.usageError(cmd, "read the value: %s", err)
		}
		value = v
	}
	if value == "" {
		return a.usageError(cmd, "the value is empty")
	}
	if len(value) > maxEnvValueBytes {
		return a.usageError(cmd, "the value is longer than %d bytes", maxEnvValueBytes)
	}
	return answer(a, c.SetEnv(a.ctx, client.SetEnvRequest{Key: key, Value: value}), func(r client.Response[client.EnvVarEnvelope]) {
		fmt.Fprintf(a.stdout, "Set %s (%s). The value is stored encrypted and is never shown again.\n", r.Body.Env.Key, r.Body.Env.ID)
	})
}

// envListHelp is the help of "svc env list".
const envListHelp = `Usage: svc env list

Lists the agent's environment variables by name (scope runs:read); values are never shown.

` + globalFlagsHelp

// envList lists the variables.
func (a *app) envList(args []string) int {
	const cmd = "env list"
	fs := a.commandFlags(cmd, nil)
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.ListEnv(a.ctx), func(r client.Response[client.EnvVarList]) {
		if len(r.Body.Env) == 0 {
			fmt.Fprintln(a.stdout, "No environment variables.")
			return
		}
		tw := a.table()
		fmt.Fprintln(tw, "KEY\tID\tUPDATED")
		for _, v := range r.Body.Env {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", v.Key, v.ID, v.UpdatedAt.UTC().Format(time.RFC3339))
		}
		_ = tw.Flush()
	})
}

// envDeleteHelp is the help of "svc env delete".
const envDeleteHelp = `Usage: svc env delete KEY

Deletes the agent's environment variable KEY (scope runs:write).

` + globalFlagsHelp

// envDelete deletes one variable.
func (a *app) envDelete(args []string) int {
	return oneID(a, idSpec{cmd: "env delete", what: "variable"}, args,
		func(c *client.Client, key string, _ []client.CallOption) client.Response[client.EnvVarEnvelope] {
			return c.DeleteEnv(a.ctx, key)
		},
		func(r client.Response[client.EnvVarEnvelope]) { fmt.Fprintf(a.stdout, "Deleted %s.\n", r.Body.Env.Key) })
}
