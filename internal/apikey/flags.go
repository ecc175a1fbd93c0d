package apikey

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// Seed 002's key flags: read-only, an IP allowlist and a recipient allowlist. A child key inherits its
// parent's and may only narrow them (see Narrow).

// Minimum prefix lengths of an IP allowlist entry (seed 002): no range wider than a /8 or a /16.
const (
	MinIPv4Prefix = 8
	MinIPv6Prefix = 16
)

// wider is the 403 of a child asking for more than its parent in a flag.
func wider(param, format string, args ...any) error {
	return &svcerr.Error{Code: svcerr.LimitWiderThanParent, Param: param, Message: fmt.Sprintf(format, args...)}
}

func narrowReadOnly(parent bool, req *bool) (bool, error) {
	switch {
	case req == nil:
		return parent, nil
	case parent && !*req:
		return false, wider("readOnly", "the parent key is read-only, so a child must be too")
	}
	return *req, nil
}

// ParseIPAllowlist validates the entries (addresses or CIDR ranges, none wider than /8 or /16) and
// returns them in canonical form: a range masked to its prefix, an address alone.
func ParseIPAllowlist(entries []string) ([]netip.Prefix, []string, error) {
	if len(entries) == 0 {
		return nil, nil, svcerr.Invalid("ipAllowlist", "list at least one address or range (omit ipAllowlist to allow any address)")
	}
	prefixes := make([]netip.Prefix, 0, len(entries))
	canon := make([]string, 0, len(entries))
	for i, e := range entries {
		p, err := parseIPEntry(e)
		if err != nil {
			return nil, nil, svcerr.Invalid(fmt.Sprintf("ipAllowlist[%d]", i), "%s", err.Error())
		}
		prefixes = append(prefixes, p)
		s := p.String()
		if p.IsSingleIP() {
			s = p.Addr().String()
		}
		if !slices.Contains(canon, s) {
			canon = append(canon, s)
		}
	}
	return prefixes, canon, nil
}

func parseIPEntry(e string) (netip.Prefix, error) {
	if !strings.Contains(e, "/") {
		a, err := netip.ParseAddr(e)
		if err != nil || a.Zone() != "" {
			return netip.Prefix{}, fmt.Errorf("%q is not an IP address or CIDR range", e)
		}
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(e)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is not an IP address or CIDR range", e)
	}
	if p.Addr().Is4In6() {
		if p.Bits() < 96 {
			return netip.Prefix{}, fmt.Errorf("%q mixes an IPv4 address with an IPv6 prefix", e)
		}
		p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
	}
	p = p.Masked()
	switch {
	case p.Addr().Is4() && p.Bits() < MinIPv4Prefix:
		return netip.Prefix{}, fmt.Errorf("%q is wider than /%d: IPv4 ranges must be /%d or narrower", e, MinIPv4Prefix, MinIPv4Prefix)
	case p.Addr().Is6() && p.Bits() < MinIPv6Prefix:
		return netip.Prefix{}, fmt.Errorf("%q is wider than /%d: IPv6 ranges must be /%d or narrower", e, MinIPv6Prefix, MinIPv6Prefix)
	}
	return p, nil
}

// narrowIPs keeps the parent's list when the request has none; otherwise every requested range must lie
// inside one of the parent's.
func narrowIPs(parent, req []string) ([]string, error) {
	if req == nil {
		return parent, nil
	}
	prefixes, canon, err := ParseIPAllowlist(req)
	if err != nil {
		return nil, err
	}
	if parent == nil {
		return canon, nil
	}
	outer, _, err := ParseIPAllowlist(parent)
	if err != nil {
		return nil, fmt.Errorf("the parent key's IP allowlist: %w", err)
	}
	for i, p := range prefixes {
		if !slices.ContainsFunc(outer, func(o netip.Prefix) bool { return o.Bits() <= p.Bits() && o.Contains(p.Addr()) }) {
			return nil, wider(fmt.Sprintf("ipAllowlist[%d]", i), "%s is outside the parent key's IP allowlist", req[i])
		}
	}
	return canon, nil
}

// AllowsIP reports whether the key may be used from ip (a key without an allowlist may be used from
// anywhere).
func AllowsIP(k *schema.APIKey, ip string) bool {
	if k.IPAllowlist == nil {
		return true
	}
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	a = a.Unmap().WithZone("")
	for _, e := range k.IPAllowlist {
		if p, err := parseIPEntry(e); err == nil && p.Contains(a) {
			return true
		}
	}
	return false
}

// narrowRecipients validates the requested recipient allowlist and narrows the parent's: each family
// the request omits (null) is inherited; a family the parent restricts may only list its addresses.
func narrowRecipients(parent, req *schema.RecipientAllowlist) (*schema.RecipientAllowlist, error) {
	if req == nil {
		return parent, nil
	}
	evm, err := canonicalEVM(req.EVM)
	if err != nil {
		return nil, err
	}
	sol, err := canonicalSolana(req.Solana)
	if err != nil {
		return nil, err
	}
	out := &schema.RecipientAllowlist{EVM: evm, Solana: sol}
	if parent == nil {
		return out, nil
	}
	if out.EVM, err = narrowFamily("evm", parent.EVM, out.EVM); err != nil {
		return nil, err
	}
	if out.Solana, err = narrowFamily("solana", parent.Solana, out.Solana); err != nil {
		return nil, err
	}
	return out, nil
}

func narrowFamily(family string, parent, req []string) ([]string, error) {
	switch {
	case req == nil:
		return parent, nil
	case parent == nil:
		return req, nil
	}
	for i, a := range req {
		if !slices.Contains(parent, a) {
			return nil, wider(fmt.Sprintf("recipientAllowlist.%s[%d]", family, i), "%s is not on the parent key's %s recipient allowlist", a, family)
		}
	}
	return req, nil
}

func canonicalEVM(in []string) ([]string, error) {
	if in == nil {
		return nil, nil
	}
	out := make([]string, 0, len(in))
	for i, a := range in {
		if !common.IsHexAddress(a) || !strings.HasPrefix(strings.ToLower(a), "0x") {
			return nil, svcerr.Invalid(fmt.Sprintf("recipientAllowlist.evm[%d]", i), "%q is not a 0x-prefixed EVM address", a)
		}
		if c := common.HexToAddress(a).Hex(); !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

func canonicalSolana(in []string) ([]string, error) {
	if in == nil {
		return nil, nil
	}
	out := make([]string, 0, len(in))
	for i, a := range in {
		if len(a) < 32 || len(a) > 44 || strings.Trim(a, base58Alphabet) != "" {
			return nil, svcerr.Invalid(fmt.Sprintf("recipientAllowlist.solana[%d]", i), "%q is not a Solana-style (base58, 32 to 44 characters) address", a)
		}
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out, nil
}

// CheckRecipient refuses (403, param to, rule recipientAllowlist) a send by the key to an address its
// recipient allowlist does not list. It applies in addition to the wallet's permitted recipients.
func CheckRecipient(k *schema.APIKey, to string) error {
	if k == nil || k.RecipientAllowlist == nil {
		return nil
	}
	family, list, addr := "solana", k.RecipientAllowlist.Solana, to
	if common.IsHexAddress(to) {
		family, list, addr = "evm", k.RecipientAllowlist.EVM, common.HexToAddress(to).Hex()
	}
	if list == nil || slices.Contains(list, addr) {
		return nil
	}
	return (&svcerr.Error{Code: svcerr.Forbidden, Param: "to",
		Message: fmt.Sprintf("recipient %s is not on this API key's %s recipient allowlist (rule recipientAllowlist)", addr, family)}).
		WithDetails("rule", "recipientAllowlist")
}
