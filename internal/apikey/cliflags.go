package apikey

import (
	"slices"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/schema"
)

// flagScopes are the scopes only a key flag grants (CONTRACT.md): the wallet API's wallets:transact and
// wallets:sign, the token-launch API's wallets:transact, the agent API's runs:write and the LLM gateway's
// services:invoke. Every other scope is granted whatever the flags.
var flagScopes = []string{client.ScopeWalletsTransact, client.ScopeWalletsSign, client.ScopeRunsWrite, client.ScopeServicesInvoke}

// flagServices are the services only a key flag grants: managed-wallets (wallet and token-launch APIs)
// and managed-agents (agent API and LLM gateway).
var flagServices = []string{client.ServiceManagedWallets, client.ServiceManagedAgents}

// FlagDefaults are seed 002's defaults of a new CLI key: wallet API on, agent API off, token-launch API
// on, LLM gateway off, read-only on.
var FlagDefaults = struct{ WalletAPI, AgentAPI, TokenLaunchAPI, LLMGateway, ReadOnly bool }{
	WalletAPI: true, AgentAPI: false, TokenLaunchAPI: true, LLMGateway: false, ReadOnly: true,
}

// GrantsForFlags are the grants of a new top-level key made with seed 002's key flags (absent flags take
// FlagDefaults). Scopes: every scope but those of flagScopes, plus the ones the set flags map to.
// Services: every service of cat (external ones included) but those of flagServices, plus managed-wallets
// for the wallet or token-launch API (every wallet route needs it) and managed-agents for the agent API
// or the LLM gateway. A read-only key may still hold write scopes: its writes answer 403 all the same.
func GrantsForFlags(cat *catalog.Catalog, f client.KeyFlags) Grants {
	wallet := flagOr(f.WalletAPI, FlagDefaults.WalletAPI)
	agent := flagOr(f.AgentAPI, FlagDefaults.AgentAPI)
	launch := flagOr(f.TokenLaunchAPI, FlagDefaults.TokenLaunchAPI)
	llm := flagOr(f.LLMGateway, FlagDefaults.LLMGateway)
	scopes := []string{}
	for _, s := range client.AllScopes {
		granted := !slices.Contains(flagScopes, s) ||
			s == client.ScopeWalletsTransact && (wallet || launch) ||
			s == client.ScopeWalletsSign && wallet ||
			s == client.ScopeRunsWrite && agent ||
			s == client.ScopeServicesInvoke && llm
		if granted {
			scopes = append(scopes, s)
		}
	}
	services := []string{}
	for _, svc := range cat.Services() {
		granted := !slices.Contains(flagServices, svc.ID) ||
			svc.ID == client.ServiceManagedWallets && (wallet || launch) ||
			svc.ID == client.ServiceManagedAgents && (agent || llm)
		if granted {
			services = append(services, svc.ID)
		}
	}
	return Grants{Scopes: scopes, Services: services, Limits: []schema.Limit{},
		ReadOnly: flagOr(f.ReadOnly, FlagDefaults.ReadOnly)}
}

func flagOr(v *bool, def bool) bool {
	if v == nil {
		return def
	}
	return *v
}
