package main

import (
	"fmt"
	"time"

	"github.com/svcplatform/svc/client"
)

// llmCreditsAutoHelp is the help of "svc llm credits auto".
const llmCreditsAutoHelp = `Usage: svc llm credits auto [--enable --below CREDITS --target CREDITS | --disable] [--idempotency-key K]

Without flags, shows the auto top-up setting (scope credits:read). --enable turns it on (scope
credits:write): when the account's available credits fall under --below, the workflow
autotopup/<accountId> claims the account's launch fees and converts them to credits up to --target, so
fees earned from launched tokens pay for inference (seed 002). --disable turns it off and keeps the
thresholds.

  --enable            turn auto top-up on (needs --below and --target)
  --below CREDITS     whole credits, 0..1000000
  --target CREDITS    whole credits, more than --below, at most 1000000
  --disable           turn auto top-up off
  --idempotency-key K Idempotency-Key to send (default: random)

` + globalFlagsHelp

// llmCreditsAuto shows or changes the auto top-up setting.
func (a *app) llmCreditsAuto(args []string) int {
	const cmd = "llm credits auto"
	var (
		enable, disable bool
		below, target   int64
		idemKey         string
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.BoolVar(&enable, "enable", false, "turn auto top-up on")
	fs.BoolVar(&disable, "disable", false, "turn auto top-up off")
	fs.Int64Var(&below, "below", 0, "top up under this many credits")
	fs.Int64Var(&target, "target", 0, "top up to this many credits")
	if code, ok := a.parseNone(cmd, fs, args); !ok {
		return code
	}
	set := flagsGiven(fs)
	switch {
	case enable && disable:
		return a.usageError(cmd, "use --enable or --disable, not both")
	case enable && (!set["below"] || !set["target"]):
		return a.usageError(cmd, "--enable needs --below and --target")
	case !enable && (set["below"] || set["target"]):
		return a.usageError(cmd, "--below and --target go with --enable")
	case enable && (below < 0 || target <= below):
		return a.usageError(cmd, "--target must be more than --below, and --below at least 0")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	show := func(r client.Response[client.AutoTopUpEnvelope]) {
		at := r.Body.AutoTopUp
		if !at.Enabled {
			fmt.Fprintf(a.stdout, "Auto top-up is off. Available: %s credits.\n", at.Available)
			return
		}
		fmt.Fprintf(a.stdout, "Auto top-up is on: under %d credits, launch fees are claimed and converted up to %d credits. Available: %s credits.\n",
			*at.Below, *at.Target, at.Available)
		if r := at.LastRound; r != nil {
			fmt.Fprintf(a.stdout, "Last round %d (%s): %d claims, %s claimed, %s credits credited.\n",
				r.Round, r.StartedAt.Format(time.RFC3339), len(r.ClaimIDs), r.Claimed, r.Credited)
		}
	}
	if !enable && !disable {
		return answer(a, c.GetAutoTopUp(a.ctx), show)
	}
	req := client.AutoTopUpRequest{Enabled: enable}
	if enable {
		req.Below, req.Target = &below, &target
	}
	return answer(a, c.SetAutoTopUp(a.ctx, req, idemOpts(idemKey)...), show)
}
