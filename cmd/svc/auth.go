package main

import (
	"fmt"
	"strings"

	"github.com/svcplatform/svc/client"
)

// authCommands are the commands that set up and show the CLI's credentials: login and whoami.
func authCommands() []command {
	return []command{
		{name: "login", run: (*app).login, help: loginHelp, brief: "verify an API key and store it; login siwe signs in with an Ethereum key"},
		{name: "whoami", run: (*app).whoami, help: whoamiHelp,
			brief: "show the base URL, the key prefix and, when allowed, the key's id and scopes"},
	}
}

// loginHelp is the help of "svc login".
const loginHelp = `Usage: svc login [--api-key KEY] [--base-url URL] [--project ID]

Verifies an API key and stores it, with the base URL (and project, if given), in the config file
($XDG_CONFIG_HOME/svc/config.json or ~/.config/svc/config.json, mode 0600, directory 0700).

The key comes from --api-key, else ` + envAPIKey + `, else a prompt on the terminal (never with
--not-interactive or ` + envNotInteractive + `=1). It is checked with GET /v1/api-keys, then GET /v1/services:
a rejected key (401) is not stored; a key that authenticates but lacks both api_keys:manage and
services:read (403) is stored with a warning.

` + loginSIWEHelp

// login verifies an API key and stores it with the base URL in the config file.
//
// The key is checked with GET /v1/api-keys (scope api_keys:manage) and, if that answers 403, with
// GET /v1/services (scope services:read). A 401 refuses the key; a key that may call neither route is
// stored anyway, with a warning, since it authenticated.
func (a *app) login(args []string) int {
	if len(args) > 0 && args[0] == "siwe" {
		return a.loginSIWE(args[1:])
	}
	fs := a.commandFlags("login", nil)
	if code, ok := a.parseNone("login", fs, args); !ok {
		return code
	}
	path, err := configPath(a.getenv)
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	existing, err := loadConfig(path)
	if err != nil {
		return a.localError("config_error", err.Error())
	}

	key := first(a.g.apiKey, a.getenv(envAPIKey))
	if key == "" {
		if !a.interactive() {
			return a.usageError("login", "login needs --api-key KEY (or %s) when it cannot prompt", envAPIKey)
		}
		key, err = a.promptSecret("API key: ")
		if err != nil {
			return a.localError("prompt_error", err.Error())
		}
		if key == "" {
			return a.usageError("login", "no API key entered")
		}
	}
	s := settings{
		baseURL: client.NormalizeBaseURL(first(a.g.baseURL, a.getenv(envBaseURL), existing.BaseURL)),
		apiKey:  key,
		project: first(a.g.project, a.getenv(envProject)),
	}
	c := a.newClient(s)

	verified := ""
	keys := c.ListAPIKeys(a.ctx, client.ListParams{Limit: 1})
	switch {
	case keys.OK:
		verified = client.ScopeAPIKeysManage
	case keys.StatusCode == 403:
		svcs := c.ListServices(a.ctx)
		switch {
		case svcs.OK:
			verified = client.ScopeServicesRead
		case svcs.StatusCode == 403:
			verified = "" // authenticated, but may call neither route
		default:
			return a.notStored(apiFailure(a, svcs))
		}
	default:
		return a.notStored(apiFailure(a, keys))
	}

	if err := saveConfig(path, config{BaseURL: s.baseURL, APIKey: key, Project: s.project}); err != nil {
		return a.localError("config_error", err.Error())
	}
	if a.g.json {
		a.printJSON(map[string]any{"ok": true, "baseUrl": s.baseURL, "keyPrefix": maskKey(key), "project": s.project,
			"configFile": path, "verifiedWith": verified})
		return exitOK
	}
	fmt.Fprintf(a.stdout, "Logged in to %s with key %s.\n", s.baseURL, maskKey(key))
	if verified == "" {
		fmt.Fprintf(a.stdout, "Warning: the key authenticated but holds neither %s nor %s; it was stored anyway.\n",
			client.ScopeAPIKeysManage, client.ScopeServicesRead)
	}
	fmt.Fprintf(a.stdout, "Credentials saved to %s (mode 0600).\n", path)
	return exitOK
}

// notStored says login stored nothing and returns code.
func (a *app) notStored(code int) int {
	fmt.Fprintln(a.stderr, "The API key was not stored.")
	return code
}

// whoamiHelp is the help of "svc whoami".
const whoamiHelp = `Usage: svc whoami

Shows the base URL, where the API key comes from and its prefix (never the whole secret), and, when the
key holds api_keys:manage, its id, name, scopes, services, limits and seed 002's flags (read-only, IP and
recipient allowlists).

` + globalFlagsHelp

// whoami shows the base URL, where the key comes from, its prefix and, when the key may list API keys,
// its id, name, scopes and services.
func (a *app) whoami(args []string) int {
	fs := a.commandFlags("whoami", nil)
	if code, ok := a.parseNone("whoami", fs, args); !ok {
		return code
	}
	c, s, code, ok := a.authedClient()
	if !ok {
		return code
	}

	self, resp := a.findSelf(c, s.apiKey)
	if !resp.OK && resp.StatusCode != 403 {
		return apiFailure(a, resp)
	}
	if a.g.json {
		out := map[string]any{"ok": true, "baseUrl": s.baseURL, "keyPrefix": maskKey(s.apiKey), "keySource": s.keySource,
			"project": s.project, "apiKey": self}
		a.printJSON(out)
		return exitOK
	}
	tw := a.table()
	fmt.Fprintf(tw, "Base URL:\t%s\n", s.baseURL)
	fmt.Fprintf(tw, "API key:\t%s\t(from %s)\n", maskKey(s.apiKey), s.keySource)
	if s.project != "" {
		fmt.Fprintf(tw, "Project:\t%s\n", s.project)
	}
	switch {
	case self != nil:
		fmt.Fprintf(tw, "Key ID:\t%s\n", self.ID)
		if self.Name != "" {
			fmt.Fprintf(tw, "Name:\t%s\n", self.Name)
		}
		fmt.Fprintf(tw, "Scopes:\t%s\n", scopeList(self.Scopes))
		fmt.Fprintf(tw, "Services:\t%s\n", strings.Join(self.Services, ", "))
		if len(self.Limits) > 0 {
			fmt.Fprintf(tw, "Limits:\t%s\n", limitList(self.Limits))
		}
		if self.ProjectID != nil {
			fmt.Fprintf(tw, "Bound to project:\t%s\n", *self.ProjectID)
		}
		if self.ParentID != nil {
			fmt.Fprintf(tw, "Parent key:\t%s\n", *self.ParentID)
		}
		if flags := keyFlags(*self); flags != "-" {
			fmt.Fprintf(tw, "Flags:\t%s\n", flags)
		}
	case !resp.OK:
		fmt.Fprintf(tw, "Key details:\tunavailable (listing keys needs scope %s)\n", client.ScopeAPIKeysManage)
	default:
		fmt.Fprintf(tw, "Key details:\tunavailable (the key was not found in its own listing)\n")
	}
	_ = tw.Flush()
	return exitOK
}

// findSelf pages through GET /v1/api-keys (the caller and its descendants, newest first) and returns the
// caller: the key whose display prefix starts the secret; among several, the oldest, since a key is
// always older than its descendants. It returns the last Response, which is not OK on failure.
func (a *app) findSelf(c *client.Client, secret string) (*client.APIKey, client.Response[client.APIKeyList]) {
	var self *client.APIKey
	p := client.ListParams{Limit: 200}
	for range 50 {
		resp := c.ListAPIKeys(a.ctx, p)
		if !resp.OK {
			return nil, resp
		}
		for i := range resp.Body.APIKeys {
			k := resp.Body.APIKeys[i]
			if k.Prefix != "" && strings.HasPrefix(secret, k.Prefix) {
				self = &k
			}
		}
		if resp.Body.NextCursor == nil || *resp.Body.NextCursor == "" {
			return self, resp
		}
		p.Cursor = *resp.Body.NextCursor
	}
	return self, client.Response[client.APIKeyList]{OK: true}
}

// scopeList shows scopes, abbreviating the full set.
func scopeList(scopes []string) string {
	if len(scopes) == len(client.AllScopes) {
		return fmt.Sprintf("all %d scopes", len(scopes))
	}
	if len(scopes) == 0 {
		return "(none)"
	}
	return strings.Join(scopes, ", ")
}

// limitList shows limits as OP=N/min or OP=N/day, the form --limit accepts.
func limitList(limits []client.Limit) string {
	parts := make([]string, 0, len(limits))
	for _, l := range limits {
		parts = append(parts, formatLimit(l))
	}
	return strings.Join(parts, ", ")
}

// maskKey shows the recognisable start of a secret, never the whole of it.
func maskKey(key string) string {
	const shown = len("svc_sk_") + 6
	switch {
	case len(key) > shown+4:
		return key[:shown] + "…"
	case len(key) > 8:
		return key[:4] + "…"
	default:
		return "…"
	}
}
