package app

import (
	"cmp"
	"net"
	"strconv"
	"strings"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/siwe"
)

// DefaultSIWEDomain is the domain sign-in messages name when neither SVC_SIWE_DOMAIN nor a listen
// address says otherwise (svcd dev's address).
const DefaultSIWEDomain = "127.0.0.1:8080"

// siweDomain is SVC_SIWE_DOMAIN, or the listen address's host and port (localhost when the host is
// unspecified, as in :8080 or 0.0.0.0:8080).
func siweDomain(configured, listen string) string {
	if configured != "" {
		return configured
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return DefaultSIWEDomain
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// siweService signs in with Ethereum on the platform chain (the managed wallets' chain); nil without
// the master key, from which its session-token key is derived.
func siweService(d APIDeps) *siwe.Service {
	if d.Box == nil {
		return nil
	}
	chain := client.ChainDev
	if d.X402 != nil {
		chain = d.X402.Network
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(chain, "eip155:"), 10, 64)
	if err != nil {
		d.Logger.Warn("web sessions: the platform chain is not an eip155 chain; sign-in is off", "chain", chain)
		return nil
	}
	return siwe.New(d.DB, d.Box.Derive("siwe-session"), siwe.Options{Domain: cmp.Or(d.SIWEDomain, DefaultSIWEDomain), ChainID: id})
}
