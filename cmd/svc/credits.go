package main

import (
	"fmt"
	"time"

	"github.com/svcplatform/svc/client"
)

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
