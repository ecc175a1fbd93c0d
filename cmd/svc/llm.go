package main

import (
	"fmt"
	"slices"

	"github.com/svcplatform/svc/client"
)

// llmHelp is the help of "svc llm".
const llmHelp = `Usage: svc llm credits [add USD | auto ...]

  llm credits        show the credits that pay for the LLM gateway (<host>/llm/v1)
  llm credits add    buy credits with a USDC payment (x402), as "svc credits top-up"
  llm credits auto   enable, disable or show the credits' auto top-up from launch fees

Point any OpenAI client at <host>/llm/v1 with an API key that has service access managed-agents
(create one with "svc keys create --llm"). The llm commands use the LLM gateway's key when one is set
(` + envLLMKey + `, else the llmKey stored by "svc login --llm-key"), else the API key; --api-key overrides both. Run "svc llm credits <command> --help" for details.`

// llmCommands are the LLM gateway's commands, "svc llm ...".
func llmCommands() []command {
	return []command{
		{name: "llm", help: llmHelp},
		{name: "llm credits", run: (*app).llmCredits, help: llmCreditsHelp,
			brief: "show the credits that pay for the LLM gateway; add USD buys more (x402)"},
	}
}

// llmCreditsHelp is the help of "svc llm credits".
const llmCreditsHelp = `Usage: svc llm credits
       svc llm credits add USD [--private-key-env VAR] [--idempotency-key K] [--json]
       svc llm credits auto [--enable --below CREDITS --target CREDITS | --disable]

Without a command, shows the account's credits (scope credits:read), which pay for the LLM gateway's
completions: those available and those held for calls in progress.

"add USD" buys credits for USD US dollars with an x402 payment in USDC, exactly as "svc credits top-up"
(see its help). The payer's key is read from the environment variable --private-key-env names, by
default ` + envPrivateKey + ` (seed 002's variable); it is never taken on the command line.

"auto" shows or changes the auto top-up from launch fees (see "svc llm credits auto --help").

` + globalFlagsHelp

// llmCredits shows the balance, as "svc credits balance", or with "add" buys credits.
func (a *app) llmCredits(args []string) int {
	a.llm = true
	if len(args) == 0 || args[0] != "auto" {
		if slices.ContainsFunc(args, isHelpFlag) {
			fmt.Fprintln(a.stdout, llmCreditsHelp)
			return exitOK
		}
	}
	if len(args) > 0 && args[0] == "add" {
		return a.llmCreditsAdd(args[1:])
	}
	if len(args) > 0 && args[0] == "auto" {
		if slices.ContainsFunc(args[1:], isHelpFlag) {
			fmt.Fprintln(a.stdout, llmCreditsAutoHelp)
			return exitOK
		}
		return a.llmCreditsAuto(args[1:])
	}
	return a.creditsBalance(args)
}

// isHelpFlag reports -h, -help or --help.
func isHelpFlag(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

// llmCreditsAdd is "svc credits top-up" with the payer's key in SVC_PRIVATE_KEY by default.
func (a *app) llmCreditsAdd(args []string) int {
	if !hasFlag(args, "private-key-env") {
		args = append([]string{"--private-key-env", envPrivateKey}, args...)
	}
	return a.creditsTopUp(args)
}

// hasFlag reports whether args set the flag name (-name, --name, with or without =value).
func hasFlag(args []string, name string) bool {
	return slices.ContainsFunc(args, func(arg string) bool {
		for _, p := range []string{"-" + name, "--" + name} {
			if arg == p || len(arg) > len(p) && arg[:len(p)+1] == p+"=" {
				return true
			}
		}
		return false
	})
}

// cliKeyServices is the service list of a key the CLI creates without --service: seed 002's new CLI
// key defaults, which leave the agent API and the LLM gateway (service access managed-agents) off
// unless --agent-api or --llm asks for them. available are the services the key could have (its
// parent's, or the catalog's for a key made through a web session).
func cliKeyServices(available []string, agents bool) []string {
	out := []string{}
	for _, s := range available {
		if s == client.ServiceManagedAgents && !agents || s == client.ServicePlatformAPI || slices.Contains(out, s) {
			continue
		}
		out = append(out, s)
	}
	if agents && !slices.Contains(out, client.ServiceManagedAgents) {
		out = append(out, client.ServiceManagedAgents)
	}
	return out
}
