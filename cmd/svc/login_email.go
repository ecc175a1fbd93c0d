package main

import (
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// loginEmailHelp is the help of "svc login email", part of "svc login"'s.
const loginEmailHelp = `Usage: svc login email [ADDRESS] [--code OTP] [--accept-terms] [--key-name NAME]
                       [--no-wallet-api] [--agent-api] [--read-write] [--no-token-launch] [--llm]

Signs in with a one-time code sent by email (POST /auth/email/start, then /auth/email/verify). The
first sign-in of an address creates its account and needs --accept-terms. Each sign-in creates a new
API key, stored like "svc login --api-key" stores one.

Without --code the code is sent, the command says where it went and the exact command that finishes,
and exits 0 without saving credentials (step 1 of a headless login). With --code it checks the code
and stores the new key (step 2). On a terminal without --code it asks for the address when missing,
sends the code, asks for it, asks to accept the terms when the server needs them, and stores the key.
The address is required input: with --not-interactive a missing address is a usage error.

  --code OTP          the 6-digit code of the message (step 2)
  --accept-terms      accept the terms of service (required on the first sign-in)
  --key-name NAME     the new key's name (default CLI-<date>, chosen by the server)

The new key's flags; the defaults are seed 002's for a CLI key (wallet API on, agent API off,
token-launch API on, LLM gateway off, read-only on):
  --no-wallet-api     no wallet API
  --agent-api         the agent API
  --read-write        a key that may write (default read-only)
  --no-token-launch   no token-launch API
  --llm               the LLM gateway`

// emailLogin are the flags of "svc login email".
type emailLogin struct {
	code, keyName                                     string
	acceptTerms, noWallet, agent, readWrite, noLaunch bool
	llm                                               bool
}

// register adds the flags to fs.
func (e *emailLogin) register(fs *flag.FlagSet) {
	fs.StringVar(&e.code, "code", "", "the one-time code (step 2)")
	fs.BoolVar(&e.acceptTerms, "accept-terms", false, "accept the terms of service")
	fs.StringVar(&e.keyName, "key-name", "", "the new key's name")
	fs.BoolVar(&e.noWallet, "no-wallet-api", false, "no wallet API")
	fs.BoolVar(&e.agent, "agent-api", false, "grant the agent API")
	fs.BoolVar(&e.readWrite, "read-write", false, "a key that may write")
	fs.BoolVar(&e.noLaunch, "no-token-launch", false, "no token-launch API")
	fs.BoolVar(&e.llm, "llm", false, "grant the LLM gateway")
}

// flags are the new key's flags, every one explicit.
func (e *emailLogin) flags() *client.KeyFlags {
	b := func(v bool) *bool { return &v }
	return &client.KeyFlags{WalletAPI: b(!e.noWallet), AgentAPI: b(e.agent), TokenLaunchAPI: b(!e.noLaunch),
		LLMGateway: b(e.llm), ReadOnly: b(!e.readWrite)}
}

// loginEmail runs "svc login email [ADDRESS]".
func (a *app) loginEmail(args []string) int {
	const cmd = "login email"
	var e emailLogin
	fs := a.commandFlags(cmd, nil)
	e.register(fs)
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) > 1 {
		return a.usageError(cmd, "unexpected argument %q: login email takes one address", pos[1])
	}
	e.code = strings.TrimSpace(e.code)
	address, code, ok := a.emailAddress(cmd, pos)
	if !ok {
		return code
	}
	s, err := a.settings()
	if err != nil {
		return a.localError("config_error", err.Error())
	}
	c := a.newClient(settings{baseURL: s.baseURL})
	if e.code == "" {
		sent := c.EmailStart(a.ctx, client.EmailStartRequest{Email: address})
		if !sent.OK {
			return apiFailure(a, sent)
		}
		if !a.interactive() {
			return a.codeSent(sent.Body, args, pos)
		}
		fmt.Fprintf(a.stderr, "A sign-in code was sent to %s; it expires at %s.\n", sent.Body.Email, hhmm(sent.Body.ExpiresAt))
		if e.code, err = a.promptLine("Code: "); err != nil {
			return a.localError("prompt_error", err.Error())
		}
		if e.code == "" {
			return a.usageError(cmd, "no code entered: run the command again, or pass --code")
		}
		address = sent.Body.Email
	}
	return a.emailVerify(c, address, e)
}

// emailAddress is the address argument, prompted for on a terminal when missing.
func (a *app) emailAddress(cmd string, pos []string) (string, int, bool) {
	if len(pos) == 1 && strings.TrimSpace(pos[0]) != "" {
		return strings.TrimSpace(pos[0]), 0, true
	}
	if !a.interactive() {
		return "", a.usageError(cmd, "login email needs the ADDRESS argument: svc login email you@example.com"), false
	}
	address, err := a.promptLine("Email address: ")
	if err != nil {
		return "", a.localError("prompt_error", err.Error()), false
	}
	if address == "" {
		return "", a.usageError(cmd, "no email address entered"), false
	}
	return address, 0, true
}

// codeSent tells where the code went and the command that finishes, and stores nothing.
func (a *app) codeSent(sent client.EmailStart, args, pos []string) int {
	next := finishCommand(sent.Email, args, pos)
	if a.g.json {
		a.printJSON(map[string]any{"ok": true, "email": sent.Email, "attemptId": sent.AttemptID,
			"expiresAt": sent.ExpiresAt, "resendAfter": sent.ResendAfter, "next": next, "saved": false})
		return exitOK
	}
	fmt.Fprintf(a.stdout, "A sign-in code was sent to %s; it expires at %s.\n", sent.Email, hhmm(sent.ExpiresAt))
	fmt.Fprintf(a.stdout, "Nothing was saved. Finish with:\n  %s\n", next)
	fmt.Fprintln(a.stdout, "(add --accept-terms if this address has no account yet: the first sign-in creates it)")
	return exitOK
}

// finishCommand is the command of step 2: the same flags, the address, and --code.
func finishCommand(email string, args, pos []string) string {
	parts := []string{"svc", "login", "email", email}
	skip := map[string]bool{}
	for _, p := range pos {
		skip[p] = true
	}
	for _, arg := range args {
		if !skip[arg] {
			parts = append(parts, arg)
		}
	}
	return strings.Join(append(parts, "--code", "<6-digit code>"), " ")
}

// hhmm shows an instant as the UTC time of day.
func hhmm(t time.Time) string { return t.UTC().Format("15:04 UTC") }

// emailVerify checks the code, asks to accept the terms on a terminal when the server needs them, and
// stores the new key.
func (a *app) emailVerify(c *client.Client, address string, e emailLogin) int {
	req := client.EmailVerifyRequest{Email: address, Code: e.code, AcceptTerms: e.acceptTerms, KeyName: e.keyName, Flags: e.flags()}
	resp := c.EmailVerify(a.ctx, req)
	if !resp.OK && !e.acceptTerms && termsNeeded(resp.Error) && a.interactive() {
		fmt.Fprintln(a.stderr, "This address has no account yet: signing in creates one under the terms of service.")
		sure, err := a.confirm("Accept the terms of service?")
		if err != nil {
			return a.localError("prompt_error", err.Error())
		}
		if !sure {
			return a.notStored(a.localError("terms_not_accepted", "the terms were not accepted; no account was created"))
		}
		req.AcceptTerms = true
		resp = c.EmailVerify(a.ctx, req)
	}
	if !resp.OK {
		code := apiFailure(a, resp)
		if !e.acceptTerms && termsNeeded(resp.Error) {
			fmt.Fprintln(a.stderr, "Add --accept-terms: the first sign-in creates the account.")
		}
		return a.notStored(code)
	}
	return a.storeSignIn(c, resp.Body)
}

// termsNeeded reports whether a refusal of /auth/email/verify asks for acceptTerms.
func termsNeeded(e *client.Error) bool {
	return e != nil && (e.Param == "acceptTerms" || strings.Contains(strings.ToLower(e.Message), "terms"))
}

// storeSignIn saves the new key of an email sign-in and says so.
func (a *app) storeSignIn(c *client.Client, in client.EmailSignIn) int {
	path, err := configPath(a.getenv)
	if err != nil {
		return a.localError("config_error", "the key was created but not stored: "+err.Error())
	}
	k := in.APIKey
	if err := saveConfig(path, config{BaseURL: c.BaseURL(), APIKey: k.Secret}); err != nil {
		return a.localError("config_error", "the key was created but not stored: "+err.Error())
	}
	if a.g.json {
		a.printJSON(map[string]any{"ok": true, "baseUrl": c.BaseURL(), "email": in.Email, "accountId": in.AccountID,
			"newAccount": in.NewAccount, "keyId": k.ID, "keyName": k.Name, "keyPrefix": maskKey(k.Secret),
			"readOnly": k.ReadOnly, "configFile": path})
		return exitOK
	}
	what := "account"
	if in.NewAccount {
		what = "new account"
	}
	ro := ""
	if k.ReadOnly {
		ro = ", read-only"
	}
	fmt.Fprintf(a.stdout, "Logged in as %s (%s %s) with new key %s (%s%s).\n", in.Email, what, in.AccountID, k.ID, k.Name, ro)
	fmt.Fprintf(a.stdout, "Credentials saved to %s (mode 0600).\n", path)
	return exitOK
}
