package main

import (
	"slices"
	"strings"
)

// command is one entry of the CLI's command table: a command ("keys create", "usage") or a group's own
// entry ("keys"), whose commands are the entries named "<group> <command>". Each resource file declares
// its entries, with the help text of each command beside the function that runs it.
type command struct {
	name  string                          // the words that name it: "keys create", "usage", "keys"
	args  string                          // its arguments as the overview shows them after the name, e.g. "[ID]"
	brief string                          // its line in the overview ("svc help"); "" for a group's entry
	help  string                          // the text of "svc help <name>" and "svc <name> --help"
	run   func(a *app, args []string) int // runs it with the arguments after its name; nil for a group
}

// commands is the command table, in the order of the overview: the resource files' entries one after
// the other (the overview lists a group's commands together, where the table first names the group).
func commands() []command {
	return slices.Concat(authCommands(), keysCommands(), runsCommands(), automationsCommands(), projectsCommands(), usageCommands(),
		auditCommands(), creditsCommands(), topUpCommands(), connectionsCommands(), catalogCommands(),
		gatewayCommands(), artifactsCommands(), filesCommands(), dbCommands(), walletsCommands(), walletSignCommands(), approvalsCommands(), webhooksCommands(), webhooksListenCommands(),
		webhooksDeliveriesCommands(), helpCommands(), walletRootCommands(), launchCommands(), feesCommands(), transfersCommands(), tradeCommands(),
		handoffCommands(), skillsCommands(), mcpToolsCommands(), mcpCommands(), llmCommands(), agentCommands(), envCommands(), clubCommands(),
		appsCommands(), appRunsCommands(), appFrontCommands(), updateCommands(), tokensCommands())
}

// findCommand returns the entry named name.
func findCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// groupOf is the group of a command's name, its first word: "keys" for "keys create" and for "keys".
func groupOf(name string) string {
	group, _, _ := strings.Cut(name, " ")
	return group
}

// dispatch runs the command named by the first of args, a group's command named by the first two, or
// reports the unknown command.
func (a *app) dispatch(args []string) int {
	name, rest := args[0], args[1:]
	c, ok := findCommand(name)
	switch {
	case !ok || strings.Contains(name, " "):
		return a.unknownCommand("", name)
	case c.run == nil:
		return a.group(name, rest)
	}
	return c.run(a, rest)
}

// group runs "<group> <command>": without a command it prints the group's help, to stdout when asked
// for (-h, --help) and as a usage error otherwise.
func (a *app) group(group string, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		w, code := a.stdout, exitOK
		if len(args) == 0 {
			w, code = a.stderr, exitUsage
		}
		a.printUsage(w, group)
		return code
	}
	sub, rest := args[0], args[1:]
	if c, ok := findCommand(group + " " + sub); ok && c.run != nil {
		return c.run(a, rest)
	}
	return a.unknownCommand(group, sub)
}
