package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/devchain"
)

// usdcPermit is an EIP-2612 permit of the dev USDC for value (atomic units) to spender.
func usdcPermit(owner, spender string, value int64) json.RawMessage {
	td := map[string]any{
		"types": map[string]any{"Permit": []map[string]string{{"name": "owner", "type": "address"}, {"name": "spender", "type": "address"},
			{"name": "value", "type": "uint256"}, {"name": "nonce", "type": "uint256"}, {"name": "deadline", "type": "uint256"}}},
		"primaryType": "Permit",
		"domain":      map[string]any{"name": "USD Coin", "version": "2", "chainId": 1337, "verifyingContract": devchain.USDCAddress.Hex()},
		"message":     map[string]any{"owner": owner, "spender": spender, "value": value, "nonce": 0, "deadline": "99999999999"},
	}
	raw, _ := json.Marshal(td)
	return raw
}

// recoverSigner recovers the address of a 0x r||s||v (v 27/28) signature over digest.
func recoverSigner(t *testing.T, digest, sig string) common.Address {
	t.Helper()
	b, err := hexutil.Decode(sig)
	require.NoError(t, err)
	require.Len(t, b, 65)
	require.Contains(t, []byte{27, 28}, b[64])
	b[64] -= 27
	pub, err := crypto.SigToPub(common.HexToHash(digest).Bytes(), b)
	require.NoError(t, err)
	return crypto.PubkeyToAddress(*pub)
}

// TestWalletSignatures: a personal message is quoted (digest, text) and signed once by walletsig/<id>
// (the signature recovers the wallet's address; a replay answers the same signature; GET reads it); a
// paused wallet signs nothing, naming the rule; USDC permits count against the daily limit (the second
// over it is refused naming spent and amount); bad input names its field; another account's wallet is
// 404 and a key without wallets:sign is 403; seed 002's POST /wallet/sign signs with the account's
// first wallet.
func TestWalletSignatures(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant, other := newDatabaseAccount(t, env), newDatabaseAccount(t, env)
	c, co := sdkFor(env, tenant), sdkFor(env, other)
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{Name: "signer"}).Body.Wallet
	msg := client.SignatureRequest{Type: client.SignPersonal, Message: "hello svc"}

	q := c.QuoteSignature(ctx, w.ID, msg)
	require.True(t, q.OK, "%v", q.Error)
	wantDigest := common.BytesToHash(accounts.TextHash([]byte("hello svc"))).Hex()
	require.Equal(t, wantDigest, q.Body.Quote.Digest)
	require.Equal(t, "hello svc", *q.Body.Quote.Subject.Message)
	require.Equal(t, client.VerdictAllowed, q.Body.Quote.Verdict.Decision)

	signed := c.Sign(ctx, w.ID, msg, client.WithIdempotencyKey("sig-once"))
	require.True(t, signed.OK, "%v", signed.Error)
	require.Equal(t, http.StatusCreated, signed.StatusCode)
	s := signed.Body.Signature
	require.Regexp(t, `^sig_`, s.ID)
	require.Equal(t, client.WalletSigSigned, s.Status)
	require.Equal(t, wantDigest, s.Digest)
	require.NotNil(t, s.Signature)
	require.Equal(t, w.Address, recoverSigner(t, s.Digest, *s.Signature).Hex(), "the wallet signed")
	require.Equal(t, "walletsig/"+s.ID, s.WorkflowID)
	again := c.Sign(ctx, w.ID, msg, client.WithIdempotencyKey("sig-once"))
	require.True(t, again.OK, "%v", again.Error)
	require.Equal(t, s.ID, again.Body.Signature.ID)
	require.Equal(t, *s.Signature, *again.Body.Signature.Signature, "a replay answers the same signature")
	got := c.GetWalletSignature(ctx, w.ID, s.ID)
	require.True(t, got.OK, "%v", got.Error)
	require.Equal(t, *s.Signature, *got.Body.Signature.Signature)
	require.NotContains(t, string(signed.Raw), "sealed")

	// Seed 002's root route: the account's first wallet, the same kind of answer.
	root := c.WalletSign(ctx, client.RootSignRequest{SignatureRequest: client.SignatureRequest{Type: client.SignPersonal, Message: "0x68656c6c6f"}})
	require.True(t, root.OK, "%v", root.Error)
	require.Equal(t, w.ID, root.Body.Signature.WalletID)
	require.Equal(t, common.BytesToHash(accounts.TextHash([]byte("hello"))).Hex(), root.Body.Signature.Digest, "0x hex signs the bytes")
	require.Equal(t, w.Address, recoverSigner(t, root.Body.Signature.Digest, *root.Body.Signature.Signature).Hex())

	// Permits are spends: 300 + 300 against the default 500 a day.
	friend := "0x52908400098527886E0F7030069857D2E4169EE7"
	permit := client.SignatureRequest{Type: client.SignTypedData, TypedData: usdcPermit(w.Address, friend, 300_000_000)}
	pq := c.QuoteSignature(ctx, w.ID, permit)
	require.True(t, pq.OK, "%v", pq.Error)
	require.Equal(t, "Permit", pq.Body.Quote.Subject.TypedData.PrimaryType)
	require.Equal(t, devchain.USDCAddress.Hex(), pq.Body.Quote.Subject.TypedData.Domain.VerifyingContract)
	require.Equal(t, client.SpendPermit, pq.Body.Quote.Subject.Spend.Kind)
	require.Equal(t, 300.0, *pq.Body.Quote.Subject.Spend.USDValue)
	first := c.Sign(ctx, w.ID, permit)
	require.True(t, first.OK, "%v", first.Error)
	require.Equal(t, 300.0, *first.Body.Signature.USDValue)
	second := c.Sign(ctx, w.ID, permit)
	require.Equal(t, http.StatusForbidden, second.StatusCode, "%s", second.Raw)
	require.Contains(t, second.Error.Message, "dailyLimitUsd")
	require.Contains(t, second.Error.Message, "$300.00 spent in the last 24 hours plus this $300.00")
	unknown := c.Sign(ctx, w.ID, client.SignatureRequest{Type: client.SignTypedData,
		TypedData: usdcPermitOf(w.Address, friend, "0x3333333333333333333333333333333333333333")})
	require.Equal(t, http.StatusForbidden, unknown.StatusCode, "%s", unknown.Raw)
	require.Contains(t, unknown.Error.Message, "(price)")
	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{PermittedRecipients: &client.PermittedRecipientsUpdate{Enabled: ptr(true)}}).OK)
	small := client.SignatureRequest{Type: client.SignTypedData, TypedData: usdcPermit(w.Address, friend, 1_000_000)}
	stranger := c.Sign(ctx, w.ID, small)
	require.Equal(t, http.StatusForbidden, stranger.StatusCode, "%s", stranger.Raw)
	require.Contains(t, stranger.Error.Message, "permittedRecipients", "the permit's spender is a recipient")

	// Paused: nothing is signed, the rule is named.
	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{Paused: ptr(true)}).OK)
	paused := c.Sign(ctx, w.ID, msg)
	require.Equal(t, http.StatusForbidden, paused.StatusCode, "%s", paused.Raw)
	require.Contains(t, paused.Error.Message, "paused")
	require.Equal(t, "paused", c.QuoteSignature(ctx, w.ID, msg).Body.Quote.Verdict.Rule)
	require.True(t, c.UpdateWalletPolicy(ctx, w.ID, client.UpdateWalletPolicyRequest{Paused: ptr(false)}).OK)

	// Bad input names the field.
	var mail map[string]any
	require.NoError(t, json.Unmarshal(usdcPermit(w.Address, friend, 1), &mail))
	delete(mail, "domain")
	noDomain, _ := json.Marshal(mail)
	for _, tc := range []struct {
		r     client.SignatureRequest
		param string
	}{
		{client.SignatureRequest{Type: client.SignTypedData, TypedData: noDomain}, "typedData.domain"},
		{client.SignatureRequest{Type: client.SignTypedData}, "typedData"},
		{client.SignatureRequest{Type: client.SignPersonal}, "message"},
	} {
		r := c.Sign(ctx, w.ID, tc.r)
		require.Equal(t, http.StatusBadRequest, r.StatusCode, "%+v: %s", tc.r, r.Raw)
		require.Equal(t, tc.param, r.Error.Param, "%s", r.Raw)
	}
	unknownType := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/wallets/" + w.ID + "/signatures", Key: tenant.key,
		Body: map[string]any{"type": "eth_sign", "message": "x"}, Headers: map[string]string{"Idempotency-Key": "unknown-type"}})
	require.Equal(t, http.StatusBadRequest, unknownType.Status, "%s", unknownType.Raw)
	require.Contains(t, string(unknownType.Raw), "type")

	// Another account: 404; a key without wallets:sign: 403.
	require.Equal(t, http.StatusNotFound, co.Sign(ctx, w.ID, msg).StatusCode)
	require.Equal(t, http.StatusNotFound, co.QuoteSignature(ctx, w.ID, msg).StatusCode)
	require.Equal(t, http.StatusNotFound, co.GetWalletSignature(ctx, w.ID, s.ID).StatusCode)
	require.Equal(t, http.StatusNotFound, co.WalletSign(ctx, client.RootSignRequest{WalletID: w.ID, SignatureRequest: msg}).StatusCode)
	readOnly := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Key: tenant.key,
		Body: map[string]any{"scopes": []string{"wallets:read"}}, Headers: map[string]string{"Idempotency-Key": "read-only"}})
	require.Equal(t, http.StatusCreated, readOnly.Status, "%s", readOnly.Raw)
	cr := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(readOnly.Body["apiKey"].(map[string]any)["secret"].(string)))
	require.Equal(t, http.StatusForbidden, cr.Sign(ctx, w.ID, msg).StatusCode)
	require.Equal(t, http.StatusForbidden, cr.WalletSign(ctx, client.RootSignRequest{SignatureRequest: msg}).StatusCode)
	require.True(t, cr.GetWalletSignature(ctx, w.ID, s.ID).OK, "reading needs wallets:read only")
}

// usdcPermitOf is an EIP-2612 permit of another token.
func usdcPermitOf(owner, spender, token string) json.RawMessage {
	return json.RawMessage(strings.Replace(string(usdcPermit(owner, spender, 1_000_000)), devchain.USDCAddress.Hex(), token, 1))
}
