package api_test

import (
	"crypto/ecdsa"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/siwe"
)

// siweNonce asks the API for a nonce and checks what it says the message must name.
func siweNonce(t *testing.T, env *apptest.Env) string {
	t.Helper()
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/siwe/nonce"})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.Equal(t, app.DefaultSIWEDomain, r.Body["domain"])
	require.Equal(t, 1337.0, r.Body["chainId"])
	return r.Body["nonce"].(string)
}

// siweMessage is a valid sign-in message for the test API signed by key; edit changes it before signing.
func siweMessage(t *testing.T, key *ecdsa.PrivateKey, nonce string, edit func(*siwe.Message)) (string, string) {
	t.Helper()
	m := &siwe.Message{Domain: app.DefaultSIWEDomain, Address: crypto.PubkeyToAddress(key.PublicKey), Statement: "Sign in to svc",
		URI: "http://" + app.DefaultSIWEDomain, Version: "1", ChainID: 1337, Nonce: nonce, IssuedAt: time.Now().UTC()}
	if edit != nil {
		edit(m)
	}
	text := m.String()
	sig, err := siwe.Sign(text, key)
	require.NoError(t, err)
	return text, sig
}

// linkAddress links key's address to the account of the owner's API key.
func linkAddress(t *testing.T, env *apptest.Env, owner string, key *ecdsa.PrivateKey) {
	t.Helper()
	text, sig := siweMessage(t, key, siweNonce(t, env), nil)
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/siwe/link", Key: owner,
		Body: map[string]any{"message": text, "signature": sig}, Headers: map[string]string{"Idempotency-Key": "link-" + sig[2:34]}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Raw)
	require.Equal(t, crypto.PubkeyToAddress(key.PublicKey).Hex(), r.Body["address"])
}

func signIn(t *testing.T, env *apptest.Env, text, sig string) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/siwe/verify", Body: map[string]any{"message": text, "signature": sig}})
}

// TestSIWESessionsSignInAndRefusals signs in with a linked address, uses the session where seed 002 says
// web sessions apply (a wallet's policy, key creation, /user/… routes) and nowhere else, and refuses
// every replayed, wrong-domain, wrong-chain, expired, future, badly signed and unlinked message with a
// 401 naming the field.
func TestSIWESessionsSignInAndRefusals(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root, _ := firstKey(t, env)
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	linkAddress(t, env, root, key)

	text, sig := siweMessage(t, key, siweNonce(t, env), nil)
	ok := signIn(t, env, text, sig)
	require.Equal(t, http.StatusOK, ok.Status, "%s", ok.Raw)
	token := ok.Body["token"].(string)
	require.Equal(t, crypto.PubkeyToAddress(key.PublicKey).Hex(), ok.Body["address"])
	require.Regexp(t, `^acct_`, ok.Body["accountId"])

	replay := signIn(t, env, text, sig)
	require.Equal(t, http.StatusUnauthorized, replay.Status, "%s", replay.Raw)
	require.Equal(t, "message.nonce", errorOf(replay)["param"])
	require.Contains(t, errorOf(replay)["message"], "already used")

	other, err := crypto.GenerateKey()
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		edit  func(*siwe.Message)
		param string
	}{
		{"wrong domain", func(m *siwe.Message) { m.Domain = "evil.example" }, "message.domain"},
		{"wrong chain", func(m *siwe.Message) { m.ChainID = 1 }, "message.chainId"},
		{"expired", func(m *siwe.Message) { e := time.Now().Add(-2 * time.Minute); m.ExpirationTime = &e }, "message.expirationTime"},
		{"not yet valid", func(m *siwe.Message) { nb := time.Now().Add(time.Hour); m.NotBefore = &nb }, "message.notBefore"},
		{"issued in the future", func(m *siwe.Message) { m.IssuedAt = time.Now().Add(time.Hour) }, "message.issuedAt"},
		{"unknown nonce", func(m *siwe.Message) { m.Nonce = "NeverIssued123" }, "message.nonce"},
		{"unlinked address", func(m *siwe.Message) { m.Address = crypto.PubkeyToAddress(other.PublicKey) }, "message.address"},
	} {
		signer := key
		if tc.param == "message.address" {
			signer = other
		}
		text, sig := siweMessage(t, signer, siweNonce(t, env), tc.edit)
		r := signIn(t, env, text, sig)
		require.Equal(t, http.StatusUnauthorized, r.Status, "%s: %s", tc.name, r.Raw)
		require.Equal(t, tc.param, errorOf(r)["param"], "%s: %s", tc.name, r.Raw)
	}
	text2, _ := siweMessage(t, key, siweNonce(t, env), nil)
	_, forged := siweMessage(t, other, "ForgedNonce1", nil)
	bad := signIn(t, env, text2, forged)
	require.Equal(t, http.StatusUnauthorized, bad.Status, "%s", bad.Raw)
	require.Equal(t, "signature", errorOf(bad)["param"])
	garbled := signIn(t, env, strings.Replace(text2, "Version: 1", "Version: 2", 1), forged)
	require.Equal(t, "message.version", errorOf(garbled)["param"], "%s", garbled.Raw)

	// The session changes a wallet's policy (audited with its address) and creates a top-level key.
	w := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/wallets", Key: root, Body: map[string]any{}, Headers: map[string]string{"Idempotency-Key": "w1"}})
	require.Equal(t, http.StatusCreated, w.Status, "%s", w.Raw)
	walletID := w.Body["wallet"].(map[string]any)["id"].(string)
	patch := env.Do(t, apptest.Req{Method: http.MethodPatch, Path: "/v1/wallets/" + walletID + "/policy", Key: token,
		Body: map[string]any{"paused": true}, Headers: map[string]string{"Idempotency-Key": "p1"}})
	require.Equal(t, http.StatusOK, patch.Status, "%s", patch.Raw)
	events := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/audit-events?operation=wallets.policy.update", Key: root})
	require.Equal(t, http.StatusOK, events.Status, "%s", events.Raw)
	list := events.Body["auditEvents"].([]any)
	require.Len(t, list, 1)
	require.Equal(t, crypto.PubkeyToAddress(key.PublicKey).Hex(), list[0].(map[string]any)["sessionAddress"])
	require.Nil(t, list[0].(map[string]any)["keyId"])

	made := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: token, Body: map[string]any{"name": "SIWE-test", "readOnly": true},
		Headers: map[string]string{"Idempotency-Key": "k1"}})
	require.Equal(t, http.StatusCreated, made.Status, "%s", made.Raw)
	require.Nil(t, made.Body["apiKey"].(map[string]any)["parentId"])
	require.Equal(t, true, made.Body["apiKey"].(map[string]any)["readOnly"])

	users := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/user/automation", Key: token})
	require.Equal(t, http.StatusOK, users.Status, "%s", users.Raw)
	notHere := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/wallets", Key: token})
	require.Equal(t, http.StatusForbidden, notHere.Status, "%s", notHere.Raw)
	tampered := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/user/automation", Key: token[:len(token)-2] + "xx"})
	require.Equal(t, http.StatusUnauthorized, tampered.Status, "%s", tampered.Raw)
}

// TestSIWELinkRefusesAnotherAccountsAddress: an address belongs to at most one account.
func TestSIWELinkRefusesAnotherAccountsAddress(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	first, _ := firstKey(t, env)
	second, _ := firstKey(t, env)
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	linkAddress(t, env, first, key)
	text, sig := siweMessage(t, key, siweNonce(t, env), nil)
	r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/siwe/link", Key: second,
		Body: map[string]any{"message": text, "signature": sig}, Headers: map[string]string{"Idempotency-Key": "l2"}})
	require.Equal(t, http.StatusConflict, r.Status, "%s", r.Raw)
	require.Equal(t, "message.address", errorOf(r)["param"])
}

// childKey creates a child of parent with body and returns the answer.
func childKey(t *testing.T, env *apptest.Env, parent string, body map[string]any) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: parent, Body: body,
		Headers: map[string]string{"Idempotency-Key": fmt.Sprintf("child-%d", time.Now().UnixNano())}})
}

func secretOf(t *testing.T, r *apptest.Response) string {
	t.Helper()
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Raw)
	return r.Body["apiKey"].(map[string]any)["secret"].(string)
}

// TestReadOnlyKeyRefusesEveryWrite sends every non-GET route of the table with a read-only key: each
// route that needs a key answers 403 naming readOnly, except the routes that change nothing (queries
// and quotes sent as POST, Route.Reads), which get past the check, and the session-only routes, which
// refuse every key (rule sessionOnly); GETs still work.
func TestReadOnlyKeyRefusesEveryWrite(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root, _ := firstKey(t, env)
	ro := secretOf(t, childKey(t, env, root, map[string]any{"readOnly": true}))
	n, reads := 0, 0
	for _, r := range env.Server.Routes() {
		if r.Method == http.MethodGet {
			continue
		}
		path := strings.NewReplacer("{", "x_", "}", "").Replace(r.Path)
		headers := map[string]string{"Idempotency-Key": fmt.Sprint("ro-", n), "Content-Type": "application/json"}
		if anon := rawDo(t, env, r.Method, path, []byte(`{}`), headers); anon.Status != http.StatusUnauthorized {
			continue // a public route (nonce, sign-in, dev faucet): no key involved
		}
		headers["Authorization"] = "Bearer " + ro
		resp := rawDo(t, env, r.Method, path, []byte(`{}`), headers)
		if r.SessionOnly { // no key at all, read-only or not
			require.Equal(t, http.StatusForbidden, resp.Status, "%s %s: %s", r.Method, path, resp.Raw)
			require.Equal(t, "sessionOnly", errorOf(resp)["details"].(map[string]any)["rule"], "%s %s: %s", r.Method, path, resp.Raw)
			continue
		}
		if r.Reads {
			require.NotEqual(t, "readOnly", errorOf(resp)["param"], "%s %s changes nothing: %s", r.Method, path, resp.Raw)
			reads++
			continue
		}
		require.Equal(t, http.StatusForbidden, resp.Status, "%s %s: %s", r.Method, path, resp.Raw)
		require.Equal(t, "readOnly", errorOf(resp)["param"], "%s %s: %s", r.Method, path, resp.Raw)
		n++
	}
	require.GreaterOrEqual(t, n, 40, "write routes tried")
	require.GreaterOrEqual(t, reads, 3, "reads sent as POST tried: the query and both quotes")
	list := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/api-keys", Key: ro})
	require.Equal(t, http.StatusOK, list.Status, "%s", list.Raw)
	require.Equal(t, true, list.Body["apiKeys"].([]any)[0].(map[string]any)["readOnly"])
}

// TestIPAllowlistRefusesBeforeAnyHandler: a key used from outside its allowlist is 401 in
// authentication (nothing is created, nothing audited); X-Forwarded-For counts only from a trusted proxy.
func TestIPAllowlistRefusesBeforeAnyHandler(t *testing.T) {
	t.Parallel()
	for _, trusted := range []bool{false, true} {
		opts := apptest.Options{}
		if trusted {
			opts.TrustedProxies = []string{"127.0.0.1"}
		}
		env := apptest.NewWith(t, opts)
		root, _ := firstKey(t, env)
		tenNet := secretOf(t, childKey(t, env, root, map[string]any{"ipAllowlist": []string{"10.0.0.0/8"}}))
		local := secretOf(t, childKey(t, env, root, map[string]any{"ipAllowlist": []string{"127.0.0.1", "::1"}}))
		send := func(key, xff, idem string) *apptest.Response {
			h := map[string]string{"Idempotency-Key": idem}
			if xff != "" {
				h["X-Forwarded-For"] = xff
			}
			return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/wallets", Key: key, Body: map[string]any{}, Headers: h})
		}
		out := send(tenNet, "", "a")
		require.Equal(t, http.StatusUnauthorized, out.Status, "%s", out.Raw)
		require.Equal(t, "ipAllowlist", errorOf(out)["param"])
		viaProxy := send(tenNet, "10.1.2.3", "b")
		fromLocal := send(local, "10.1.2.3", "c")
		if trusted {
			require.Equal(t, http.StatusCreated, viaProxy.Status, "a trusted proxy's X-Forwarded-For is the client: %s", viaProxy.Raw)
			require.Equal(t, http.StatusUnauthorized, fromLocal.Status, "%s", fromLocal.Raw)
		} else {
			require.Equal(t, http.StatusUnauthorized, viaProxy.Status, "an untrusted X-Forwarded-For is ignored: %s", viaProxy.Raw)
			require.Equal(t, http.StatusCreated, fromLocal.Status, "%s", fromLocal.Raw)
		}
		var wallets, refusedAudits int
		require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM wallets").Scan(t.Context(), &wallets))
		require.Equal(t, 1, wallets, "only the allowed request reached its handler")
		require.NoError(t, env.DB.NewRaw("SELECT count(*) FROM audit_events WHERE status = 401").Scan(t.Context(), &refusedAudits))
		require.Zero(t, refusedAudits, "a refused request never reached the audited handlers")
	}
}

// TestKeyFlagsValidateAndOnlyNarrow: too-wide ranges are 400 naming the entry; a child never widens a
// flag (403) and inherits what it omits.
func TestKeyFlagsValidateAndOnlyNarrow(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root, _ := firstKey(t, env)
	for _, tc := range []struct {
		body  map[string]any
		param string
	}{
		{map[string]any{"ipAllowlist": []string{"10.0.0.1", "10.0.0.0/7"}}, "ipAllowlist[1]"},
		{map[string]any{"ipAllowlist": []string{"2001:db8::/15"}}, "ipAllowlist[0]"},
		{map[string]any{"ipAllowlist": []string{"not-an-ip"}}, "ipAllowlist[0]"},
		{map[string]any{"recipientAllowlist": map[string]any{"evm": []string{"0x12"}}}, "recipientAllowlist.evm[0]"},
		{map[string]any{"recipientAllowlist": map[string]any{"solana": []string{"0OIl"}}}, "recipientAllowlist.solana[0]"},
	} {
		r := childKey(t, env, root, tc.body)
		require.Equal(t, http.StatusBadRequest, r.Status, "%v: %s", tc.body, r.Raw)
		require.Equal(t, tc.param, errorOf(r)["param"], "%v: %s", tc.body, r.Raw)
	}
	friend := "0x52908400098527886E0F7030069857D2E4169EE7"
	// A read-only key makes no keys at all (creating one is a write), so it cannot widen readOnly either.
	readOnly := secretOf(t, childKey(t, env, root, map[string]any{"readOnly": true, "scopes": []string{"api_keys:manage"}}))
	refused := childKey(t, env, readOnly, map[string]any{"readOnly": false})
	require.Equal(t, http.StatusForbidden, refused.Status, "%s", refused.Raw)
	require.Equal(t, "readOnly", errorOf(refused)["param"])
	parent := secretOf(t, childKey(t, env, root, map[string]any{"ipAllowlist": []string{"127.0.0.0/8", "::1"},
		"recipientAllowlist": map[string]any{"evm": []string{friend}}, "scopes": []string{"api_keys:manage", "wallets:read"}}))
	for _, tc := range []struct {
		body  map[string]any
		param string
	}{
		{map[string]any{"ipAllowlist": []string{"10.0.0.0/8"}}, "ipAllowlist[0]"},
		{map[string]any{"recipientAllowlist": map[string]any{"evm": []string{"0x0000000000000000000000000000000000000001"}}}, "recipientAllowlist.evm[0]"},
	} {
		r := childKey(t, env, parent, tc.body)
		require.Equal(t, http.StatusForbidden, r.Status, "%v: %s", tc.body, r.Raw)
		require.Equal(t, tc.param, errorOf(r)["param"], "%v: %s", tc.body, r.Raw)
	}
	inherit := childKey(t, env, parent, map[string]any{"ipAllowlist": []string{"127.0.0.1"}})
	require.Equal(t, http.StatusCreated, inherit.Status, "%s", inherit.Raw)
	k := inherit.Body["apiKey"].(map[string]any)
	require.Equal(t, false, k["readOnly"])
	require.Equal(t, []any{"127.0.0.1"}, k["ipAllowlist"])
	require.Equal(t, map[string]any{"evm": []any{friend}, "solana": nil}, k["recipientAllowlist"])
}

// TestRecipientAllowlistAndAgentKeys: a key's recipient allowlist refuses quotes and sends to anyone else
// naming the rule; an agent-level (child) key cannot change a wallet's policy even with approvals:write,
// while the owner's top-level key can (audited with its key id).
func TestRecipientAllowlistAndAgentKeys(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	root, rootKey := firstKey(t, env)
	w := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/wallets", Key: root, Body: map[string]any{}, Headers: map[string]string{"Idempotency-Key": "w"}})
	require.Equal(t, http.StatusCreated, w.Status, "%s", w.Raw)
	walletID := w.Body["wallet"].(map[string]any)["id"].(string)
	friend, stranger := "0x52908400098527886E0F7030069857D2E4169EE7", "0x8617E340B3D01FA5F11F306F4090FD50E238070D"
	agent := secretOf(t, childKey(t, env, root, map[string]any{"recipientAllowlist": map[string]any{"evm": []string{strings.ToLower(friend)}}}))
	for _, path := range []string{"/transactions/quote", "/transactions"} {
		r := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/wallets/" + walletID + path, Key: agent,
			Body: map[string]any{"to": stranger, "amount": "1", "asset": "usdc"}, Headers: map[string]string{"Idempotency-Key": "s" + path}})
		require.Equal(t, http.StatusForbidden, r.Status, "%s: %s", path, r.Raw)
		require.Equal(t, "to", errorOf(r)["param"])
		require.Contains(t, errorOf(r)["message"], "recipientAllowlist")
		allowed := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/wallets/" + walletID + path, Key: agent,
			Body: map[string]any{"to": friend, "amount": "1", "asset": "usdc"}, Headers: map[string]string{"Idempotency-Key": "f" + path}})
		require.NotEqual(t, "to", errorOf(allowed)["param"], "%s: %s", path, allowed.Raw)
	}

	patch := func(key, idem string) *apptest.Response {
		return env.Do(t, apptest.Req{Method: http.MethodPatch, Path: "/v1/wallets/" + walletID + "/policy", Key: key,
			Body: map[string]any{"paused": true}, Headers: map[string]string{"Idempotency-Key": idem}})
	}
	denied := patch(agent, "a")
	require.Equal(t, http.StatusForbidden, denied.Status, "%s", denied.Raw)
	require.Contains(t, errorOf(denied)["message"], "agent-level")
	require.Equal(t, http.StatusOK, patch(root, "b").Status)
	events := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/audit-events?operation=wallets.policy.update&status=200", Key: root})
	require.Equal(t, http.StatusOK, events.Status, "%s", events.Raw)
	list := events.Body["auditEvents"].([]any)
	require.Len(t, list, 1)
	require.Equal(t, rootKey["id"], list[0].(map[string]any)["keyId"])
}
