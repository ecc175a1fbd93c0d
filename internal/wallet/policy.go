package wallet

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Policy is a wallet's policy as stored: seed 002's controls, USD amounts in cents (nil: off).
type Policy struct {
	Paused               bool       `json:"paused"`
	DailyLimitCents      *int64     `json:"dailyLimitCents"`
	PerTxLimitCents      *int64     `json:"perTxLimitCents"`
	ApprovalAboveCents   *int64     `json:"approvalAboveCents"`
	DisableContractCalls bool       `json:"disableContractCalls"`
	Recipients           Recipients `json:"recipients"`
}

// Recipients are the permitted recipients as stored.
type Recipients struct {
	Enabled       bool        `json:"enabled"`
	CooldownHours int         `json:"cooldownHours"`
	Entries       []Recipient `json:"entries"`
}

// Recipient is one permitted address and when it was (last) added.
type Recipient struct {
	Address common.Address `json:"address"`
	AddedAt time.Time      `json:"addedAt"`
}

// DefaultPolicy is a new wallet's policy: 500 USD a day and a transaction, recipients unrestricted
// (with a 24 h cooldown once turned on).
func DefaultPolicy() Policy {
	daily, perTx := int64(client.DefaultDailyLimitUSD*100), int64(client.DefaultPerTransactionLimitUSD*100)
	return Policy{DailyLimitCents: &daily, PerTxLimitCents: &perTx,
		Recipients: Recipients{CooldownHours: client.DefaultRecipientCooldownHours, Entries: []Recipient{}}}
}

// Apply changes p by u at now, validating every field (errors name it); p is left as it was on error.
func (p Policy) Apply(u client.UpdateWalletPolicyRequest, now time.Time) (Policy, error) {
	out := p
	out.Recipients.Entries = slices.Clone(p.Recipients.Entries)
	if u.Paused != nil {
		out.Paused = *u.Paused
	}
	if u.DisableContractCalls != nil {
		out.DisableContractCalls = *u.DisableContractCalls
	}
	for _, f := range []struct {
		name string
		in   client.NullableUSD
		dst  **int64
	}{{"dailyLimitUsd", u.DailyLimitUSD, &out.DailyLimitCents}, {"perTransactionLimitUsd", u.PerTransactionLimitUSD, &out.PerTxLimitCents},
		{"approvalAboveUsd", u.ApprovalAboveUSD, &out.ApprovalAboveCents}} {
		if !f.in.Set {
			continue
		}
		cents, err := limitCents(f.name, f.in.Value)
		if err != nil {
			return p, err
		}
		*f.dst = cents
	}
	if r := u.PermittedRecipients; r != nil {
		if err := out.Recipients.apply(r, now); err != nil {
			return p, err
		}
	}
	return out, nil
}

// limitCents reads a USD limit: null turns it off; otherwise 1..1,000,000 with at most two decimals.
func limitCents(field string, v *float64) (*int64, error) {
	if v == nil {
		return nil, nil
	}
	if *v < client.MinLimitUSD || *v > client.MaxLimitUSD || math.IsNaN(*v) {
		return nil, svcerr.Invalid(field, "%s must be between %d and %d USD, or null to turn it off (0 is refused)", field,
			client.MinLimitUSD, client.MaxLimitUSD)
	}
	cents := math.Round(*v * 100)
	if math.Abs(cents-*v*100) > 1e-6 {
		return nil, svcerr.Invalid(field, "%s has at most two decimals (cents)", field)
	}
	c := int64(cents)
	return &c, nil
}

// apply changes the recipients by u at now.
func (r *Recipients) apply(u *client.PermittedRecipientsUpdate, now time.Time) error {
	if u.Enabled != nil {
		r.Enabled = *u.Enabled
	}
	if u.CooldownHours != nil {
		if *u.CooldownHours < 0 || *u.CooldownHours > client.MaxCooldownHours {
			return svcerr.Invalid("permittedRecipients.cooldownHours", "permittedRecipients.cooldownHours must be between 0 and %d", client.MaxCooldownHours)
		}
		r.CooldownHours = *u.CooldownHours
	}
	for i, a := range u.Remove {
		addr, err := parseAddress(fmt.Sprintf("permittedRecipients.remove[%d]", i), a)
		if err != nil {
			return err
		}
		r.Entries = slices.DeleteFunc(r.Entries, func(e Recipient) bool { return e.Address == addr })
	}
	for i, a := range u.Add {
		addr, err := parseAddress(fmt.Sprintf("permittedRecipients.add[%d]", i), a)
		if err != nil {
			return err
		}
		r.Entries = slices.DeleteFunc(r.Entries, func(e Recipient) bool { return e.Address == addr })
		r.Entries = append(r.Entries, Recipient{Address: addr, AddedAt: now.UTC()}) // re-adding restarts the cooldown
	}
	return nil
}

// parseAddress reads a hex address; a mixed-case one must carry a valid EIP-55 checksum.
func parseAddress(field, s string) (common.Address, error) {
	if !common.IsHexAddress(s) || !strings.HasPrefix(s, "0x") {
		return common.Address{}, svcerr.Invalid(field, "%s is not an address (0x and 40 hex digits)", field)
	}
	addr := common.HexToAddress(s)
	body := s[2:]
	if body != strings.ToLower(body) && body != strings.ToUpper(body) && addr.Hex() != s {
		return common.Address{}, svcerr.Invalid(field, "%s has a wrong EIP-55 checksum (did you mean %s?)", field, addr.Hex())
	}
	if addr == (common.Address{}) {
		return common.Address{}, svcerr.Invalid(field, "%s is the zero address", field)
	}
	return addr, nil
}

// ToWire is the policy as the API shows it.
func (p Policy) ToWire() client.WalletPolicy {
	out := client.WalletPolicy{Paused: p.Paused, DisableContractCalls: p.DisableContractCalls,
		DailyLimitUSD: usd(p.DailyLimitCents), PerTransactionLimitUSD: usd(p.PerTxLimitCents), ApprovalAboveUSD: usd(p.ApprovalAboveCents),
		PermittedRecipients: client.PermittedRecipients{Enabled: p.Recipients.Enabled, CooldownHours: p.Recipients.CooldownHours,
			Entries: make([]client.PermittedRecipient, 0, len(p.Recipients.Entries))}}
	cooldown := time.Duration(p.Recipients.CooldownHours) * time.Hour
	for _, e := range p.Recipients.Entries {
		out.PermittedRecipients.Entries = append(out.PermittedRecipients.Entries, client.PermittedRecipient{
			Address: e.Address.Hex(), AddedAt: e.AddedAt.UTC(), UsableAt: e.AddedAt.Add(cooldown).UTC()})
	}
	return out
}

func usd(cents *int64) *float64 {
	if cents == nil {
		return nil
	}
	v := float64(*cents) / 100
	return &v
}
