package main

import (
	"fmt"
	"time"

	"github.com/svcplatform/svc/client"
)

// clubHelp is the help of "svc club".
const clubHelp = `Usage: svc club <subscribe|status|cancel> [flags]

Club (seed 002): 20 USD a month or 198 USD a year, paid from credits (100 credits per USD) and renewed at
the end of each period; it raises the account's tier limits. It needs an embedded (managed) wallet.

  club subscribe   subscribe for a month or a year
  club status      show the membership
  club cancel      stop the renewal at the end of the current period

Run "svc club <command> --help" for details.`

// clubCommands are the commands of Club, "svc club ...".
func clubCommands() []command {
	return []command{
		{name: "club", help: clubHelp},
		{name: "club subscribe", run: (*app).clubSubscribe, help: clubSubscribeHelp, brief: "subscribe to Club, paid from credits"},
		{name: "club status", run: (*app).clubStatus, help: clubStatusHelp, brief: "show the account's Club membership"},
		{name: "club cancel", run: (*app).clubCancel, help: clubCancelHelp, brief: "stop the Club renewal at the period's end"},
	}
}

const clubSubscribeHelp = `Usage: svc club subscribe [--period month|year] [--idempotency-key K]

Subscribes the account to Club (scope runs:write, service managed-agents), charging the first period
from credits now.

  --period P   month (20 USD, the default) or year (198 USD)

` + globalFlagsHelp

const clubStatusHelp = `Usage: svc club status

Shows the account's Club membership: status, tier, period and when it renews or ends.

` + globalFlagsHelp

const clubCancelHelp = `Usage: svc club cancel [--idempotency-key K]

Stops the Club renewal: the account stays a member until the end of the period it paid for.

` + globalFlagsHelp

// printClub shows a membership.
func (a *app) printClub(r client.Response[client.ClubEnvelope]) {
	c := r.Body.Club
	fmt.Fprintf(a.stdout, "Club: %s (tier %s)\n", c.Status, c.Tier)
	if c.Period != "" {
		fmt.Fprintf(a.stdout, "Period: %s\n", c.Period)
	}
	if c.RenewsAt != nil {
		fmt.Fprintf(a.stdout, "Renews: %s for %s credits\n", c.RenewsAt.UTC().Format(time.RFC3339), c.PriceCredits)
	}
	if c.EndsAt != nil {
		fmt.Fprintf(a.stdout, "Ends: %s\n", c.EndsAt.UTC().Format(time.RFC3339))
	}
}

func (a *app) clubSubscribe(args []string) int {
	const cmd = "club subscribe"
	var period, idemKey string
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&period, "period", "month", "month or year")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	if period != "month" && period != "year" {
		return a.usageError(cmd, "--period must be month or year, not %q", period)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.SubscribeClub(a.ctx, client.SubscribeClubRequest{Period: period}, idemOpts(idemKey)...), a.printClub)
}

func (a *app) clubStatus(args []string) int {
	const cmd = "club status"
	fs := a.commandFlags(cmd, nil)
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.GetClub(a.ctx), a.printClub)
}

func (a *app) clubCancel(args []string) int {
	const cmd = "club cancel"
	var idemKey string
	fs := a.commandFlags(cmd, &idemKey)
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.CancelClub(a.ctx, idemOpts(idemKey)...), a.printClub)
}
