package gateway

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// Address classes the outbound guard tells apart. A public address has class "".
const (
	ClassLoopback    = "loopback"
	ClassPrivate     = "private"
	ClassShared      = "shared"
	ClassLinkLocal   = "link-local"
	ClassMetadata    = "metadata"
	ClassUnspecified = "unspecified"
	ClassMulticast   = "multicast"
	ClassReserved    = "reserved"
)

var (
	metadataAddrs = []netip.Addr{netip.MustParseAddr("169.254.169.254"), netip.MustParseAddr("fd00:ec2::254")}
	sharedPrefix  = netip.MustParsePrefix("100.64.0.0/10")
	// reservedPrefixes are special-purpose ranges that are neither public nor one of the named classes.
	reservedPrefixes = mustPrefixes(
		"0.0.0.0/8", "192.0.0.0/24", "192.0.2.0/24", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24",
		"240.0.0.0/4", "::/96", "100::/64", "2001:db8::/32", "2001::/32",
	)
	// embeddingPrefixes carry an IPv4 address (NAT64 at bits 96..127, 6to4 at bits 16..47).
	nat64Prefixes = mustPrefixes("64:ff9b::/96", "64:ff9b:1::/48")
	sixToFour     = netip.MustParsePrefix("2002::/16")
)

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// ClassifyAddr returns the class of an address, or "" for a public one. IPv4-mapped, NAT64 and 6to4
// addresses are classified by the IPv4 address they carry.
func ClassifyAddr(a netip.Addr) string {
	a = a.Unmap()
	if v4, ok := embeddedIPv4(a); ok {
		return ClassifyAddr(v4)
	}
	switch {
	case a.IsUnspecified():
		return ClassUnspecified
	case a.IsLoopback():
		return ClassLoopback
	case isMetadata(a):
		return ClassMetadata
	case a.IsLinkLocalUnicast():
		return ClassLinkLocal
	case a.IsMulticast():
		return ClassMulticast
	case a.IsPrivate():
		return ClassPrivate
	case sharedPrefix.Contains(a):
		return ClassShared
	case a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) || inAny(reservedPrefixes, a):
		return ClassReserved
	}
	return ""
}

func isMetadata(a netip.Addr) bool {
	for _, m := range metadataAddrs {
		if a == m {
			return true
		}
	}
	return false
}

func inAny(prefixes []netip.Prefix, a netip.Addr) bool {
	for _, p := range prefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// embeddedIPv4 returns the IPv4 address a NAT64 or 6to4 address carries.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	if !a.Is6() {
		return netip.Addr{}, false
	}
	b := a.As16()
	if inAny(nat64Prefixes, a) {
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	}
	if sixToFour.Contains(a) {
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}

// policy says which non-public classes a connection may reach.
type policy struct {
	allowPrivate  bool
	allowLoopback bool
}

// allows reports whether the policy admits an address of the class.
func (p policy) allows(class string) bool {
	switch class {
	case "":
		return true
	case ClassLoopback:
		return p.allowLoopback || p.allowPrivate
	case ClassPrivate, ClassShared, ClassLinkLocal:
		return p.allowPrivate
	}
	return false
}

// Admits reports whether the outbound guard, with the given allowances, admits an address of the class
// (see ClassifyAddr): public always; loopback with allowLoopback or allowPrivate; private, shared and
// link-local with allowPrivate; metadata, unspecified, multicast and reserved never.
func Admits(class string, allowPrivate, allowLoopback bool) bool {
	return policy{allowPrivate: allowPrivate, allowLoopback: allowLoopback}.allows(class)
}

// BlockedAddressError is the refusal of an outbound connection by the guard.
type BlockedAddressError struct {
	Addr  netip.Addr
	Class string
}

// Error implements error.
func (e *BlockedAddressError) Error() string {
	return fmt.Sprintf("outbound connection to a %s address (%s) refused", e.Class, e.Addr)
}

// control runs on every socket before it connects, with the numeric address being dialled: whatever the
// name resolved to, an address the policy does not admit is refused here.
func (p policy) control(_ context.Context, network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return fmt.Errorf("outbound %s connection refused: only TCP is allowed", network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("outbound connection to unparsable address refused: %w", err)
	}
	addr := ap.Addr().Unmap()
	if class := ClassifyAddr(addr); !p.allows(class) {
		return &BlockedAddressError{Addr: addr, Class: class}
	}
	return nil
}

// dialer returns a dialer whose every connection passes the policy at dial time, after DNS.
func (p policy) dialer() *net.Dialer {
	return &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, ControlContext: p.control}
}

// GuardedDialer returns a dialer that refuses, at dial time and whatever a name resolved to, every
// address the outbound guard with the given allowances does not admit (see Admits). Webhook deliveries
// dial through it; a refusal is a *BlockedAddressError inside the dial error.
func GuardedDialer(allowPrivate, allowLoopback bool) *net.Dialer {
	return policy{allowPrivate: allowPrivate, allowLoopback: allowLoopback}.dialer()
}
