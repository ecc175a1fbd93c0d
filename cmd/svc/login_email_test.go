package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

// emailSecret is the key the fake email sign-in creates.
const emailSecret = "svc_sk_MAILmailMAILmailMAILmailMAILmail123456"

// fakeEmailAuth answers POST /auth/email/start and /auth/email/verify with exactly client's wire types,
// decoding requests strictly. Code 123456 is right; an address without an account needs acceptTerms.
type fakeEmailAuth struct {
	srv *httptest.Server

	mu       sync.Mutex
	starts   []client.EmailStartRequest
	verifies []client.EmailVerifyRequest
	accounts map[string]bool // addresses that already have an account
}

func newFakeEmailAuth(t *testing.T) *fakeEmailAuth {
	t.Helper()
	f := &fakeEmailAuth{accounts: map[string]bool{"old@example.com": true}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeEmailAuth) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Request-Id", "req_mail")
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.Method + " " + r.URL.Path {
	case "POST /auth/email/start":
		var req client.EmailStartRequest
		if err := dec.Decode(&req); err != nil {
			reply(w, 400, map[string]any{"ok": false, "error": map[string]any{"code": "invalid_request", "message": err.Error()}})
			return
		}
		f.starts = append(f.starts, req)
		now := time.Now().UTC()
		reply(w, 200, client.EmailStart{OK: true, AttemptID: "otp_1", Email: req.Email, ExpiresAt: now.Add(10 * time.Minute),
			ResendAfter: now.Add(time.Minute)})
	case "POST /auth/email/verify":
		var req client.EmailVerifyRequest
		if err := dec.Decode(&req); err != nil {
			reply(w, 400, map[string]any{"ok": false, "error": map[string]any{"code": "invalid_request", "message": err.Error()}})
			return
		}
		f.verifies = append(f.verifies, req)
		f.verify(w, req)
	default:
		reply(w, 404, map[string]any{"ok": false, "error": map[string]any{"code": "not_found", "message": "no route " + r.URL.Path}})
	}
}

// verify answers a verify request the fake has decoded.
func (f *fakeEmailAuth) verify(w http.ResponseWriter, req client.EmailVerifyRequest) {
	if req.Code != "123456" {
		reply(w, 401, map[string]any{"ok": false, "error": map[string]any{"code": "unauthenticated",
			"message": "the code is wrong or expired", "param": "code", "requestId": "req_mail"}})
		return
	}
	isNew := !f.accounts[req.Email]
	if isNew && !req.AcceptTerms {
		reply(w, 400, map[string]any{"ok": false, "error": map[string]any{"code": "invalid_request",
			"message": "the first sign-in creates an account: accept the terms", "param": "acceptTerms", "requestId": "req_mail"}})
		return
	}
	f.accounts[req.Email] = true
	readOnly := req.Flags == nil || req.Flags.ReadOnly == nil || *req.Flags.ReadOnly
	reply(w, 200, client.EmailSignIn{OK: true, AccountID: "acct_mail", Email: req.Email, NewAccount: isNew,
		APIKey: client.APIKey{ID: "key_mail", Name: first(req.KeyName, "CLI-2026-01-01"), Secret: emailSecret,
			Prefix: emailSecret[:13], ReadOnly: readOnly, Scopes: []string{}, Services: []string{}, Limits: []client.Limit{}}})
}

// lastVerify is the last verify request.
func (f *fakeEmailAuth) lastVerify(t *testing.T) client.EmailVerifyRequest {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	require.NotEmpty(t, f.verifies)
	return f.verifies[len(f.verifies)-1]
}

// counts are how many start and verify requests arrived.
func (f *fakeEmailAuth) counts() (starts, verifies int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.starts), len(f.verifies)
}

func noConfig(t *testing.T, env map[string]string) {
	t.Helper()
	_, err := os.Stat(filepath.Join(env["XDG_CONFIG_HOME"], "svc", "config.json"))
	require.ErrorIs(t, err, os.ErrNotExist, "no credentials are saved")
}

// TestLoginEmailHeadless: step 1 sends the code, names the exact second command and saves nothing; step
// 2 sends seed 002's default key flags (or those asked for) and saves the key with mode 0600.
func TestLoginEmailHeadless(t *testing.T) {
	t.Parallel()
	f := newFakeEmailAuth(t)
	env := testEnv(t, nil)
	env["SVC_BASE_URL"] = f.srv.URL

	r := cli(t, env, "", "login", "email", "new@example.com", "--key-name", "ci")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "A sign-in code was sent to new@example.com")
	require.Contains(t, r.stdout, "svc login email new@example.com --key-name ci --code <6-digit code>")
	require.Contains(t, r.stdout, "Nothing was saved")
	starts, verifies := f.counts()
	require.Equal(t, 1, starts)
	require.Zero(t, verifies)
	noConfig(t, env)

	// A new address without --accept-terms: refused, the flag named, nothing saved.
	r = cli(t, env, "", "login", "email", "new@example.com", "--code", "123456")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "acceptTerms")
	require.Contains(t, r.stderr, "Add --accept-terms")
	noConfig(t, env)

	r = cli(t, env, "", "login", "email", "new@example.com", "--code", "123456", "--accept-terms", "--key-name", "ci")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "Logged in as new@example.com (new account acct_mail) with new key key_mail (ci, read-only)")
	require.NotContains(t, r.stdout, emailSecret)
	v := f.lastVerify(t)
	require.True(t, v.AcceptTerms)
	require.Equal(t, "ci", v.KeyName)
	require.Equal(t, client.KeyFlags{WalletAPI: ptr(true), AgentAPI: ptr(false), TokenLaunchAPI: ptr(true),
		LLMGateway: ptr(false), ReadOnly: ptr(true)}, *v.Flags, "seed 002's new CLI key defaults")
	c, fi := readConfig(t, env)
	require.Equal(t, emailSecret, c.APIKey)
	require.Equal(t, f.srv.URL+"/v1", c.BaseURL)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	// Every flag turned the other way.
	r = cli(t, env, "", "login", "email", "old@example.com", "--code", "123456", "--no-wallet-api", "--agent-api",
		"--read-write", "--no-token-launch", "--llm")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "(account acct_mail)")
	require.Equal(t, client.KeyFlags{WalletAPI: ptr(false), AgentAPI: ptr(true), TokenLaunchAPI: ptr(false),
		LLMGateway: ptr(true), ReadOnly: ptr(false)}, *f.lastVerify(t).Flags)
}

func ptr[T any](v T) *T { return &v }

// TestLoginEmailNeedsAddressWithoutPrompt: the address is required input, named when it cannot be
// prompted for; a wrong code saves nothing.
func TestLoginEmailNeedsAddressWithoutPrompt(t *testing.T) {
	t.Parallel()
	f := newFakeEmailAuth(t)
	env := testEnv(t, nil)
	env["SVC_BASE_URL"] = f.srv.URL
	for _, args := range [][]string{{"login", "email", "--ni"}, {"--not-interactive", "login", "email", "--code", "123456"}} {
		r := cli(t, env, "", args...)
		require.Equal(t, exitUsage, r.code, args)
		require.Contains(t, r.stderr, "ADDRESS", args)
	}
	r := cli(t, env, "", "login", "email", "old@example.com", "--code", "000000")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "the code is wrong or expired")
	require.Contains(t, r.stderr, "not stored")
	noConfig(t, env)
	starts, _ := f.counts()
	require.Zero(t, starts, "no code was sent for these")
}

// TestLoginEmailPrompts: on a terminal, login email asks for the address, sends the code, asks for it,
// asks to accept the terms for a new address and saves the key.
func TestLoginEmailPrompts(t *testing.T) {
	t.Parallel()
	f := newFakeEmailAuth(t)
	env := testEnv(t, nil)
	env["SVC_BASE_URL"] = f.srv.URL
	master, tty := openPTY(t)
	_, err := master.Write([]byte("fresh@example.com\n123456\ny\n"))
	require.NoError(t, err)
	var out, errOut bytes.Buffer
	code := run([]string{"login", "email"}, tty, &out, &errOut, func(k string) string { return env[k] })
	require.Equal(t, exitOK, code, errOut.String())
	for _, prompt := range []string{"Email address: ", "A sign-in code was sent to fresh@example.com", "Code: ",
		"Accept the terms of service? [y/N] "} {
		require.Contains(t, errOut.String(), prompt)
	}
	require.Contains(t, out.String(), "Logged in as fresh@example.com (new account")
	c, _ := readConfig(t, env)
	require.Equal(t, emailSecret, c.APIKey)
	_, verifies := f.counts()
	require.Equal(t, 2, verifies, "once without the terms, once with them")
	require.True(t, f.lastVerify(t).AcceptTerms)
}

// TestLoginMenuAndFlags: without arguments and without a terminal, login names the flags; --url prints
// the terminal URL and stores nothing; --llm-key is stored beside the key and SVC_LLM_KEY overrides it.
func TestLoginMenuAndFlags(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	r := cli(t, env, "", "login")
	require.Equal(t, exitUsage, r.code)
	for _, want := range []string{"--api-key KEY", "svc login email ADDRESS", "svc login siwe --private-key HEX"} {
		require.Contains(t, r.stderr, want)
	}

	r = cli(t, env, "", "login", "--url")
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Equal(t, f.srv.URL+"/docs\n", r.stdout)
	noConfig(t, env)

	const llmKey = "svc_sk_LLMMllmmLLMMllmmLLMMllmmLLMMllmm123456"
	r = cli(t, env, "", "login", "--api-key", goodKey, "--llm-key", llmKey)
	require.Equal(t, exitOK, r.code, r.stderr)
	require.Contains(t, r.stdout, "LLM gateway key "+llmKey[:13])
	require.NotContains(t, r.stdout, llmKey)
	c, _ := readConfig(t, env)
	require.Equal(t, llmKey, c.LLMKey)

	w := cli(t, env, "", "whoami")
	require.Equal(t, exitOK, w.code, w.stderr)
	require.Regexp(t, `LLM key:\s+`+llmKey[:13]+`…\s+\(from `, w.stdout)
	require.NotContains(t, w.stdout, llmKey)
	env[envLLMKey] = "svc_sk_ENVVenvvENVVenvvENVVenvvENVVenvv123456"
	w = cli(t, env, "", "whoami")
	require.Regexp(t, `LLM key:\s+svc_sk_ENVVen…\s+\(from SVC_LLM_KEY environment variable\)`, w.stdout)

	// The llm commands use the LLM key: this one is unknown to the server, so llm credits fails while
	// the API key still works.
	r = cli(t, env, "", "llm", "credits")
	require.Equal(t, exitAPI, r.code)
	require.Contains(t, r.stderr, "the API key is unknown")
	r = cli(t, env, "", "credits", "balance")
	require.Equal(t, exitOK, r.code, r.stderr)
}

// TestLoginMenuChoices: on a terminal, choice 1 of the menu is the email sign-in; a choice out of the
// menu is a usage error that saves nothing.
func TestLoginMenuChoices(t *testing.T) {
	t.Parallel()
	f := newFakeEmailAuth(t)
	for _, c := range []struct {
		typed string
		code  int
		want  string
	}{
		{"1\nold@example.com\n123456\n", exitOK, "Logged in as old@example.com (account acct_mail)"},
		{"4\n", exitUsage, `choose 1, 2 or 3 (got "4")`},
	} {
		env := testEnv(t, nil)
		env["SVC_BASE_URL"] = f.srv.URL
		master, tty := openPTY(t)
		_, err := master.Write([]byte(c.typed))
		require.NoError(t, err)
		var out, errOut bytes.Buffer
		code := run([]string{"login"}, tty, &out, &errOut, func(k string) string { return env[k] })
		require.Equal(t, c.code, code, errOut.String())
		require.Contains(t, errOut.String(), "Choice [1-3]: ")
		require.Contains(t, out.String()+errOut.String(), c.want)
		if c.code != exitOK {
			noConfig(t, env)
			continue
		}
		cfg, _ := readConfig(t, env)
		require.Equal(t, emailSecret, cfg.APIKey)
	}
}
