package main

import (
	"fmt"
	"time"

	"github.com/svcplatform/svc/client"
)

// creditsHelp is the help of "svc credits".
const creditsHelp = `Usage: svc credits <balance|top-up> [flags]

  credits balance   show the account's available and held credits
  credits top-up    buy credits with a USDC payment (x402) signed with a local key

Run "svc credits <command> --help" for details.`

// creditsCommands are the commands of the credit balance, "svc credits ..." (top-ups are in topup.go).
func creditsCommands() []command {
	return []command{
		{name: "credits", help: creditsHelp},
		{name: "credits balance", run: (*app).creditsBalance, help: creditsBalanceHelp,
			brief: "show the account's available and held credits"},
	}
}

// creditsBalanceHelp is the help of "svc credits balance".
const creditsBalanceHelp = `Usage: svc credits balance

Shows the account's credits (scope credits:read): those available to spend and those held for calls
in progress.

` + globalFlagsHelp

// creditsBalance shows the account's available and held credits.
func (a *app) creditsBalance(args []string) int {
	const cmd = "credits balance"
	fs := a.commandFlags(cmd, nil)
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.Balance(a.ctx), func(r client.Response[client.BalanceEnvelope]) {
		b := r.Body.Balance
		tw := a.table()
		fmt.Fprintf(tw, "Available:\t%s credits\n", formatCredits(b.Credits))
		fmt.Fprintf(tw, "Held:\t%s credits\n", formatCredits(b.HeldCredits))
		if !b.UpdatedAt.IsZero() {
			fmt.Fprintf(tw, "Updated:\t%s\n", b.UpdatedAt.UTC().Format(time.RFC3339))
		}
		_ = tw.Flush()
	})
}
