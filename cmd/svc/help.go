package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/svcplatform/svc/client"
)

// globalFlagsHelp documents the flags every command accepts.
const globalFlagsHelp = `Global flags (before or after the command):
  --json              print the API's JSON envelope (success or error) instead of text
  --base-url URL      API address, host root or .../v1 (env ` + envBaseURL + `; default ` + client.DefaultBaseURL + `)
  --api-key KEY       API key (env ` + envAPIKey + `)
  --project ID        active project, sent as X-Svc-Project (env ` + envProject + `)
  --not-interactive, --ni
                      never prompt (env ` + envNotInteractive + `=1): confirmations are skipped and the command
                      proceeds as if confirmed, optional prompts stay empty, and required input that
                      would be prompted for fails at once naming the flag to pass
  -h, --help          show help`

// overviewHead starts the overview ("svc help"), before its list of commands.
const overviewHead = `svc - command-line client of the svc platform API

Usage:
  svc [global flags] <command> [flags] [arguments]

Commands:
`

// overviewTail ends the overview, after its list of commands.
const overviewTail = `
` + globalFlagsHelp + `

Settings come from flags, then the environment, then the config file written by "svc login"
($XDG_CONFIG_HOME/svc/config.json or ~/.config/svc/config.json, mode 0600), then defaults.

Exit codes: 0 success, 1 API error (or a failed run, or an invoked service answering 4xx/5xx),
2 usage error (a mistyped command or flag names the nearest one).
API errors print "error: <code>: <message> (param) [requestId]" to stderr; the param (the request
field at fault) only when the message does not already name it.`

// overviewWidth is the width of the command column of the overview; a longer name and arguments put
// the command's brief on the next line.
const overviewWidth = 20

// helpCommands is the help command itself, "svc help [cmd]".
func helpCommands() []command {
	return []command{
		{name: "help", args: "[cmd]", run: (*app).help, help: helpCommandHelp,
			brief: "show help for a command"},
	}
}

// helpCommandHelp is the help of "svc help".
const helpCommandHelp = `Usage: svc help [command]

Shows help for a command, e.g. "svc help runs create".`

// help prints the usage of a command: "svc help", "svc help keys", "svc help keys create".
func (a *app) help(args []string) int {
	if slices.ContainsFunc(args, func(arg string) bool { return strings.HasPrefix(arg, "-") }) {
		// Global flags (--json, --ni, ...) are accepted here as on every command.
		pos, code, ok := a.parse("help", a.commandFlags("help", nil), args)
		if !ok {
			return code
		}
		args = pos
	}
	name := strings.Join(args, " ")
	if _, ok := helpText(name); !ok {
		names := []string{""}
		for _, c := range commands() {
			names = append(names, c.name)
		}
		return a.usageError("", "no help for %q%s", name, didYouMean(name, names, strconv.Quote))
	}
	a.printUsage(a.stdout, name)
	return exitOK
}

// helpText returns the help of the command name, or the overview for "".
func helpText(name string) (string, bool) {
	if name == "" {
		return overview(), true
	}
	if text, ok := subcommandHelp[name]; ok {
		return text, true
	}
	c, ok := findCommand(name)
	return c.help, ok
}

// subcommandHelp is the help of the forms a command takes by its first argument, where the command
// runs itself and so is no group of the table ("svc login siwe").
var subcommandHelp = map[string]string{"login siwe": loginSIWEHelp, "login email": loginEmailHelp + "\n\n" + globalFlagsHelp, feesClaimCommand: feesClaimWalletHelp, feesClaimName: feesClaimHelp}

// printUsage writes the help text of a command, or the overview when there is no such command.
func (a *app) printUsage(w io.Writer, cmd string) {
	text, ok := helpText(cmd)
	if !ok {
		text = overview()
	}
	fmt.Fprintln(w, strings.TrimRight(text, "\n"))
}

// overview is the help of svc itself: every command with its brief, a group's commands together where
// the table first names the group, then the global flags, settings and exit codes.
func overview() string {
	var b strings.Builder
	b.WriteString(overviewHead)
	cmds := commands()
	listed := map[string]bool{}
	for _, c := range cmds {
		group := groupOf(c.name)
		if listed[group] {
			continue
		}
		listed[group] = true
		for _, sub := range cmds {
			if sub.brief != "" && groupOf(sub.name) == group {
				writeBrief(&b, sub)
			}
		}
	}
	b.WriteString(overviewTail)
	return b.String()
}

// writeBrief writes the overview's line of c: its name and arguments, then its brief.
func writeBrief(b *strings.Builder, c command) {
	label := strings.TrimSpace(c.name + " " + c.args)
	if len(label) > overviewWidth {
		fmt.Fprintf(b, "  %s\n  %*s %s\n", label, overviewWidth, "", c.brief)
		return
	}
	fmt.Fprintf(b, "  %-*s %s\n", overviewWidth, label, c.brief)
}
