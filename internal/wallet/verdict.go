package wallet

import (
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Decisions of a policy verdict.
const (
	Allowed       = "allowed"
	NeedsApproval = "needs_approval"
	Refused       = "refused"
)

// Rules a verdict names.
const (
	RulePaused         = "paused"
	RuleContractCalls  = "disableContractCalls"
	RuleRecipients     = "permittedRecipients"
	RuleCooldown       = "permittedRecipients.cooldownHours"
	RulePerTransaction = "perTransactionLimitUsd"
	RuleDaily          = "dailyLimitUsd"
	RuleApprovalAbove  = "approvalAboveUsd"
	RuleNoPrice        = "price"
)

// Verdict is what a wallet's policy says of one outbound transaction.
type Verdict struct {
	Decision string `json:"decision"`
	// Rule names the rule that decided (empty when allowed).
	Rule string `json:"rule,omitempty"`
	// Message says why, with the amounts, the limit and what was spent, or the cooldown left.
	Message string `json:"message,omitempty"`
}

// Outbound is a transaction as the policy sees it.
type Outbound struct {
	From common.Address
	To   common.Address
	// USDCents is its USD value in cents, nil when no price is known.
	USDCents *int64
	// ContractCall is true for anything but a native or known-token transfer.
	ContractCall bool
	// SpentCents is what the wallet sent (or holds reserved) in the last 24 hours.
	SpentCents int64
}

// Evaluate judges o under p at now. The rules, in order: a paused wallet sends nothing; contract calls
// are refused when disabled; with permitted recipients on, the recipient must be listed and past its
// cooldown (the wallet's own address always passes); with a USD limit on, a transaction without a price
// is refused; above approvalAboveUsd a transaction waits for an approval (even past a limit: the approver
// decides); otherwise one above the per-transaction limit, or one that would take the rolling 24-hour
// spend past the daily limit, is refused.
func (p Policy) Evaluate(o Outbound, now time.Time) Verdict {
	if v, done := p.gates(o, now); done {
		return v
	}
	limited := p.PerTxLimitCents != nil || p.DailyLimitCents != nil || p.ApprovalAboveCents != nil
	if o.USDCents == nil {
		if limited {
			return Verdict{Decision: Refused, Rule: RuleNoPrice, Message: "no USD price is known for this asset, and the wallet has a USD limit on"}
		}
		return Verdict{Decision: Allowed}
	}
	usd := *o.USDCents
	if p.ApprovalAboveCents != nil && usd > *p.ApprovalAboveCents {
		return Verdict{Decision: NeedsApproval, Rule: RuleApprovalAbove,
			Message: fmt.Sprintf("%s is above the approval threshold of %s", dollars(usd), dollars(*p.ApprovalAboveCents))}
	}
	if p.PerTxLimitCents != nil && usd > *p.PerTxLimitCents {
		return Verdict{Decision: Refused, Rule: RulePerTransaction,
			Message: fmt.Sprintf("%s is above the per-transaction limit of %s", dollars(usd), dollars(*p.PerTxLimitCents))}
	}
	if p.DailyLimitCents != nil && o.SpentCents+usd > *p.DailyLimitCents {
		return Verdict{Decision: Refused, Rule: RuleDaily,
			Message: fmt.Sprintf("%s spent in the last 24 hours plus this %s is above the daily limit of %s",
				dollars(o.SpentCents), dollars(usd), dollars(*p.DailyLimitCents))}
	}
	return Verdict{Decision: Allowed}
}

// gates are the rules that do not depend on the amount.
func (p Policy) gates(o Outbound, now time.Time) (Verdict, bool) {
	if p.Paused {
		return Verdict{Decision: Refused, Rule: RulePaused, Message: "the wallet is paused: it sends and signs nothing"}, true
	}
	if p.DisableContractCalls && o.ContractCall {
		return Verdict{Decision: Refused, Rule: RuleContractCalls,
			Message: "contract calls are disabled on this wallet: only native and known-token transfers are allowed"}, true
	}
	if !p.Recipients.Enabled || o.To == o.From {
		return Verdict{}, false
	}
	for _, e := range p.Recipients.Entries {
		if e.Address != o.To {
			continue
		}
		usable := e.AddedAt.Add(time.Duration(p.Recipients.CooldownHours) * time.Hour)
		if now.Before(usable) {
			return Verdict{Decision: Refused, Rule: RuleCooldown, Message: fmt.Sprintf("%s was added %s ago; it may receive in %s (at %s)",
				o.To.Hex(), roundDur(now.Sub(e.AddedAt)), roundDur(usable.Sub(now)), usable.UTC().Format(time.RFC3339))}, true
		}
		return Verdict{}, false
	}
	return Verdict{Decision: Refused, Rule: RuleRecipients, Message: o.To.Hex() + " is not among the wallet's permitted recipients"}, true
}

// dollars writes cents as USD ("$12.50").
func dollars(cents int64) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s$%d.%02d", sign, cents/100, cents%100)
}

// roundDur rounds d to the minute for messages (to the second under a minute).
func roundDur(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(time.Minute)
}
