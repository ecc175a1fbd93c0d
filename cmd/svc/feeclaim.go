package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/svcplatform/svc/client"
)

// The name of "svc fees claim", a claim with the account's managed wallet, and its help key.
const (
	feesClaim     = "claim"
	feesClaimName = "fees " + feesClaim
)

// feesClaimHelp is the help of "svc fees claim".
const feesClaimHelp = `Usage: svc fees claim TOKEN [--wallet ID] [--idempotency-key K] [--interval D] [--timeout D]

Claims a launched token's fees with the account's managed wallet, a beneficiary of the token's pool
(scope wallets:transact, POST /token-launches/{token}/fees/claim): the platform pays the gas (at most
10 sponsored transactions per wallet per day) and the claim runs as workflow feeclaim/<id>, exactly
once. Shows progress on stderr while the claim confirms (GET /v1/fee-claims/{id}), then prints its
receipt: the transaction, its block and the amounts released to the wallet (wei of the pool's token0
and token1). With --json, the claim as the API answers it.

  --wallet ID           the claiming wallet (default: the account's first wallet)
  --idempotency-key K   Idempotency-Key to send (default: random); reuse it to retry safely
  --interval D          poll interval while following (default 500ms)
  --timeout D           stop following after D (default 5m); the claim goes on

` + globalFlagsHelp

// feesClaimWithWallet claims a token's fees with a managed wallet and follows the claim.
func (a *app) feesClaimWithWallet(args []string) int {
	const cmd = feesClaimName
	var (
		req     client.FeeClaimRequest
		idemKey string
		f       launchFlags
	)
	fs := a.commandFlags(cmd, &idemKey)
	fs.StringVar(&req.WalletID, "wallet", "", "the claiming wallet")
	fs.DurationVar(&f.interval, "interval", 500*time.Millisecond, "poll interval")
	fs.DurationVar(&f.timeout, "timeout", 5*time.Minute, "how long to follow")
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	switch {
	case len(pos) == 0:
		return a.usageError(cmd, "give the token's address: svc fees claim TOKEN")
	case len(pos) > 1:
		return a.usageError(cmd, "unexpected argument %q", pos[1])
	case !isAddress(pos[0]):
		return a.usageError(cmd, "the token must be an address (0x and 40 hex digits), not %q", pos[0])
	case f.interval <= 0 || f.timeout <= 0:
		return a.usageError(cmd, "--interval and --timeout must be positive")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	sent := c.ClaimFees(a.ctx, pos[0], req, idemOpts(idemKey)...)
	if !sent.OK {
		return apiFailure(a, sent)
	}
	return a.followClaim(c, sent.Body.Claim, f)
}

// followClaim polls a claim until it is claimed or failed (or the timeout) and prints its receipt.
func (a *app) followClaim(c *client.Client, fc client.FeeClaim, f launchFlags) int {
	fmt.Fprintf(a.stderr, "Claim %s %s", fc.ID, fc.Status)
	if fc.ApprovalID != nil && fc.Status == client.FeeClaimClaiming {
		fmt.Fprintf(a.stderr, " (waiting for approval %s: svc approvals approve %s)", *fc.ApprovalID, *fc.ApprovalID)
	}
	deadline := time.Now().Add(f.timeout)
	for fc.Status == client.FeeClaimClaiming && time.Now().Before(deadline) {
		select {
		case <-a.ctx.Done():
			fmt.Fprintln(a.stderr)
			return a.localError("interrupted", "stopped following claim "+fc.ID+"; it goes on (GET /v1/fee-claims/"+fc.ID+")")
		case <-time.After(f.interval):
		}
		r := c.FeeClaim(a.ctx, fc.ID)
		if !r.OK {
			fmt.Fprintln(a.stderr)
			return apiFailure(a, r)
		}
		if r.Body.Claim.Status != fc.Status {
			fmt.Fprintf(a.stderr, " → %s", r.Body.Claim.Status)
		} else {
			fmt.Fprint(a.stderr, ".")
		}
		fc = r.Body.Claim
	}
	fmt.Fprintln(a.stderr)
	if a.g.json {
		a.printJSON(client.FeeClaimEnvelope{OK: fc.Status != client.FeeClaimFailed, Claim: fc})
	} else {
		a.printClaim(fc)
	}
	return a.claimExit(fc)
}

// claimExit is the exit code of a followed claim, saying on stderr why it is not claimed.
func (a *app) claimExit(fc client.FeeClaim) int {
	switch fc.Status {
	case client.FeeClaimClaimed:
		return exitOK
	case client.FeeClaimFailed:
		msg := "the claim failed"
		if fc.Error != nil {
			msg += ": " + fc.Error.Message
		}
		fmt.Fprintln(a.stderr, "error: "+msg)
		return exitAPI
	}
	fmt.Fprintf(a.stderr, "error: claim %s still claiming; it goes on (GET /v1/fee-claims/%s)\n", fc.ID, fc.ID)
	return exitAPI
}

// printClaim shows a claim's receipt.
func (a *app) printClaim(fc client.FeeClaim) {
	tw := a.table()
	block := ""
	if fc.BlockNumber != nil {
		block = strconv.FormatInt(*fc.BlockNumber, 10)
	}
	rows := [][2]string{{"Claim", fc.ID}, {"Status", fc.Status}, {"Token", fc.TokenAddress}, {"Pool id", fc.PoolID},
		{"Wallet", fc.Signer + " (" + fc.WalletID + ")"}, {"Transaction", fc.TransactionHash}, {"Block", block},
		{"Released token0", withUnit(fc.Amount0)}, {"Released token1", withUnit(fc.Amount1)}}
	for _, r := range rows {
		if r[1] != "" {
			fmt.Fprintf(tw, "%s:\t%s\n", r[0], r[1])
		}
	}
	_ = tw.Flush()
}

// withUnit is a wei amount with its unit, "" when there is none.
func withUnit(wei string) string {
	if wei == "" {
		return ""
	}
	return wei + " wei"
}
