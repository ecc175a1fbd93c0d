package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/svcplatform/svc/client"
)

// authCommands are the commands that set up and show the CLI's credentials: login and whoami.
func authCommands() []command {
	return []command{
		{name: "login", run: (*app).login, help: loginHelp, brief: "sign in: a menu on a terminal, --api-key KEY (--url: the terminal URL), login email ADDRESS; login siwe signs in with an Ethereum key"},
		{name: "whoami", run: (*app).whoami, help: whoamiHelp,
			brief: "show the base URL, the key prefix and, when allowed, the key's id and scopes"},
	}
}

// loginHelp is the help of "svc login".
const loginHelp = `Usage: svc login                                   (on a terminal: a menu of the three ways to sign in)
       svc login --api-key KEY [--llm-key KEY] [--base-url URL] [--project ID]
       svc login --url
       svc login email [ADDRESS] [--code OTP] [--accept-terms] [--key-name NAME] [key flags]
       svc login siwe --private-key HEX [--key-name NAME] [--read-write]

Stores credentials, with the base URL (and project, if given), in the config file
($XDG_CONFIG_HOME/svc/config.json or ~/.config/svc/config.json, mode 0600, directory 0700).
` + envAPIKey + ` and ` + envLLMKey + ` override what the file holds; ` + envPrivateKey + ` is the default of
--private-key (login siwe, fees claim-wallet) and is never stored.

Without arguments on a terminal it asks how to sign in: 1 email one-time code, 2 API key, 3 sign in
with Ethereum, then asks for what that way needs. Without a terminal (or with --not-interactive) it
fails at once naming the flags to pass.

  --api-key KEY   verify this key and store it (else ` + envAPIKey + `). It is checked with GET /v1/api-keys,
                  then GET /v1/services: a rejected key (401) is not stored; a key that authenticates
                  but lacks both api_keys:manage and services:read (403) is stored with a warning.
  --llm-key KEY   also store this key for the LLM gateway (config llmKey; ` + envLLMKey + ` overrides it):
                  the llm commands use it instead of the API key. A login without it stores none.
  --url           print the terminal URL, the page of this server where a person signs in and
                  manages keys (<host>/docs, the API's reference, until a web console exists), and exit
                  without storing anything

` + loginEmailHelp + `

` + loginSIWEHelp

// login dispatches "svc login": its email and siwe commands, --url, the interactive menu, or the API
// key path.
func (a *app) login(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "siwe":
			return a.loginSIWE(args[1:])
		case "email":
			return a.loginEmail(args[1:])
		}
	}
	var llmKey string
	var showURL bool
	fs := a.commandFlags("login", nil)
	fs.StringVar(&llmKey, "llm-key", "", "the LLM gateway's key to store")
	fs.BoolVar(&showURL, "url", false, "print the terminal URL and exit")
	if code, ok := a.parseNone("login", fs, args); !ok {
		return code
	}
	if showURL {
		return a.printTerminalURL()
	}
	key := first(a.g.apiKey, a.getenv(envAPIKey))
	if key != "" {
		return a.loginAPIKey(key, strings.TrimSpace(llmKey))
	}
	if !a.interactive() {
		return a.usageError("login", "login cannot prompt (no terminal, or --not-interactive): pass --api-key KEY (or %s), "+
			"or run \"svc login email ADDRESS\" or \"svc login siwe --private-key HEX\"", envAPIKey)
	}
	if llmKey != "" {
		key, err := a.promptSecret("API key (not shown): ")
		if err != nil {
			return a.localError("prompt_error", err.Error())
		}
		return a.loginPromptedKey(key, llmKey)
	}
	return a.loginMenu()
}

// loginMenu asks how to sign in and runs that way, asking for what it needs.
func (a *app) loginMenu() int {
	fmt.Fprint(a.stderr, "How do you want to sign in?\n  1) Email one-time code\n  2) API key\n  3) Sign in with Ethereum\n")
	choice, err := a.promptLine("Choice [1-3]: ")
	if err != nil {
		return a.localError("prompt_error", err.Error())
	}
	switch choice {
	case "1":
		return a.loginEmail(nil)
	case "2":
		key, err := a.promptSecret("API key (not shown): ")
		if err != nil {
			return a.localError("prompt_error", err.Error())
		}
		return a.loginPromptedKey(key, "")
	case "3":
		if a.getenv(envPrivateKey) != "" {
			return a.loginSIWE(nil) // login siwe reads it
		}
		pk, err := a.promptSecret("Private key, hex (not shown, never sent): ")
		if err != nil {
			return a.localError("prompt_error", err.Error())
		}
		if pk == "" {
			return a.usageError("login", "no private key entered")
		}
		return a.loginSIWE([]string{"--private-key", pk})
	}
	return a.usageError("login", "choose 1, 2 or 3 (got %q)", choice)
}

// loginPromptedKey logs in with a key typed at a prompt; an empty one is a usage error.
func (a *app) loginPromptedKey(key, llmKey string) int {
	if key == "" {
		return a.usageError("login", "no API key entered")
	}
	return a.loginAPIKey(key, llmKey)
}

// printTerminalURL prints the page where a person signs in and manages keys: <host>/docs.
func (a *app) printTerminalURL() int {
	s, err := a.settings()
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	u := terminalURL(s.baseURL)
	if a.g.json {
		a.printJSON(map[string]any{"ok": true, "url": u})
		return exitOK
	}
	fmt.Fprintln(a.stdout, u)
	return exitOK
}

// terminalURL is the terminal URL of a base URL: the host root's /docs.
func terminalURL(baseURL string) string {
	return strings.TrimSuffix(strings.TrimSuffix(baseURL, "/"), "/"+client.APIVersion) + "/docs"
}

// loginAPIKey verifies an API key and stores it, with the LLM gateway's key when given, in the config
// file.
//
// The key is checked with GET /v1/api-keys (scope api_keys:manage) and, if that answers 403, with
// GET /v1/services (scope services:read). A 401 refuses the key; a key that may call neither route is
// stored anyway, with a warning, since it authenticated.
func (a *app) loginAPIKey(key, llmKey string) int {
	path, err := configPath(a.getenv)
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	existing, err := loadConfig(path)
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	s := settings{
		baseURL: client.NormalizeBaseURL(first(a.g.baseURL, a.getenv(envBaseURL), existing.BaseURL)),
		apiKey:  key,
		project: first(a.g.project, a.getenv(envProject)),
	}
	verified, code, ok := a.verifyKey(a.newClient(s))
	if !ok {
		return a.notStored(code)
	}
	if err := saveConfig(path, config{BaseURL: s.baseURL, APIKey: key, LLMKey: llmKey, Project: s.project}); err != nil {
		return a.localError("config_error", err.Error())
	}
	if a.g.json {
		out := map[string]any{"ok": true, "baseUrl": s.baseURL, "keyPrefix": maskKey(key), "project": s.project,
			"configFile": path, "verifiedWith": verified}
		if llmKey != "" {
			out["llmKeyPrefix"] = maskKey(llmKey)
		}
		a.printJSON(out)
		return exitOK
	}
	fmt.Fprintf(a.stdout, "Logged in to %s with key %s.\n", s.baseURL, maskKey(key))
	if verified == "" {
		fmt.Fprintf(a.stdout, "Warning: the key authenticated but holds neither %s nor %s; it was stored anyway.\n",
			client.ScopeAPIKeysManage, client.ScopeServicesRead)
	}
	if llmKey != "" {
		fmt.Fprintf(a.stdout, "LLM gateway key %s stored too.\n", maskKey(llmKey))
	}
	fmt.Fprintf(a.stdout, "Credentials saved to %s (mode 0600).\n", path)
	return exitOK
}

// verifyKey checks that the client's key authenticates and answers the scope that proved it ("" when
// it may call neither route), or the exit code of the failure with ok false.
func (a *app) verifyKey(c *client.Client) (verified string, code int, ok bool) {
	keys := c.ListAPIKeys(a.ctx, client.ListParams{Limit: 1})
	switch {
	case keys.OK:
		return client.ScopeAPIKeysManage, 0, true
	case keys.StatusCode != 403:
		return "", apiFailure(a, keys), false
	}
	svcs := c.ListServices(a.ctx)
	switch {
	case svcs.OK:
		return client.ScopeServicesRead, 0, true
	case svcs.StatusCode == 403:
		return "", 0, true // authenticated, but may call neither route
	}
	return "", apiFailure(a, svcs), false
}

// notStored says login stored nothing and returns code.
func (a *app) notStored(code int) int {
	fmt.Fprintln(a.stderr, "The API key was not stored.")
	return code
}

// whoamiHelp is the help of "svc whoami".
const whoamiHelp = `Usage: svc whoami [--json]

Shows the base URL, where the API key comes from and its prefix (never the whole secret), the LLM
gateway's key (masked) when one is set, and, when the key holds api_keys:manage, its id, name, scopes,
services, limits and seed 002's flags (read-only, IP and recipient allowlists). Then the account's
wallets (GET /v1/wallets: name and address) and its tier and Club status (GET /v1/club). A call the
key may not make (403) leaves a note instead of failing the command.

` + globalFlagsHelp

// whoami shows the base URL, where the key comes from, its prefix and, when the key may list API keys,
// its id, name, scopes and services; then the account's wallets and Club status.
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
	acct := a.accountFacts(c)
	if a.g.json {
		out := map[string]any{"ok": true, "baseUrl": s.baseURL, "keyPrefix": maskKey(s.apiKey), "keySource": s.keySource,
			"project": s.project, "apiKey": self, "terminalUrl": terminalURL(s.baseURL),
			"wallets": acct.wallets, "club": acct.club, "notes": acct.notes}
		if s.llmKey != "" {
			out["llmKeyPrefix"], out["llmKeySource"] = maskKey(s.llmKey), s.llmSource
		}
		a.printJSON(out)
		return exitOK
	}
	tw := a.table()
	fmt.Fprintf(tw, "Base URL:\t%s\n", s.baseURL)
	fmt.Fprintf(tw, "API key:\t%s\t(from %s)\n", maskKey(s.apiKey), s.keySource)
	if s.llmKey != "" {
		fmt.Fprintf(tw, "LLM key:\t%s\t(from %s)\n", maskKey(s.llmKey), s.llmSource)
	}
	if s.project != "" {
		fmt.Fprintf(tw, "Project:\t%s\n", s.project)
	}
	showSelf(tw, self, resp.OK)
	acct.show(tw)
	_ = tw.Flush()
	return exitOK
}

// showSelf writes the key's own details, or why they are unavailable.
func showSelf(tw io.Writer, self *client.APIKey, listed bool) {
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
	case !listed:
		fmt.Fprintf(tw, "Key details:\tunavailable (listing keys needs scope %s)\n", client.ScopeAPIKeysManage)
	default:
		fmt.Fprintf(tw, "Key details:\tunavailable (the key was not found in its own listing)\n")
	}
}

// whoamiWallet is a wallet as whoami shows it.
type whoamiWallet struct {
	Name    string `json:"name"`
	Address string `json:"address"`
	Chain   string `json:"chain"`
}

// accountFacts are whoami's account lines: wallets and Club status, each nil with a note when the key
// may not read it.
type accountFacts struct {
	wallets []whoamiWallet
	club    *client.ClubStatus
	notes   []string
}

// accountFacts reads the account's wallets (first page of 100) and Club status; a failure of either
// becomes a note.
func (a *app) accountFacts(c *client.Client) accountFacts {
	var f accountFacts
	if w := c.ListWallets(a.ctx, client.ListParams{Limit: 100}); w.OK {
		f.wallets = []whoamiWallet{}
		for _, x := range w.Body.Wallets {
			f.wallets = append(f.wallets, whoamiWallet{Name: x.Name, Address: x.Address, Chain: x.Chain})
		}
	} else {
		f.notes = append(f.notes, "wallets "+unavailable(w.StatusCode, w.Error))
	}
	if cl := c.GetClub(a.ctx); cl.OK {
		f.club = &cl.Body.Club
	} else {
		f.notes = append(f.notes, "club "+unavailable(cl.StatusCode, cl.Error))
	}
	return f
}

// unavailable says why an optional whoami call gave nothing.
func unavailable(status int, e *client.Error) string {
	if status == 403 {
		return "unavailable: the key may not read them (403)"
	}
	if e != nil {
		return "unavailable: " + e.Error()
	}
	return "unavailable"
}

// show writes the account lines.
func (f accountFacts) show(tw io.Writer) {
	if f.club != nil {
		club := f.club.Status
		if f.club.Member {
			club += " (member)"
		}
		fmt.Fprintf(tw, "Tier:\t%s\n", f.club.Tier)
		fmt.Fprintf(tw, "Club:\t%s\n", club)
	}
	if f.wallets != nil {
		if len(f.wallets) == 0 {
			fmt.Fprintf(tw, "Wallets:\t(none)\n")
		}
		for i, w := range f.wallets {
			label := ""
			if i == 0 {
				label = "Wallets:"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", label, w.Address, first(w.Name, "-"))
		}
	}
	for _, n := range f.notes {
		fmt.Fprintf(tw, "Note:\t%s\n", n)
	}
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
