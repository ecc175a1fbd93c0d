package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/testnode"
)

// viemVersion is the viem release the signature interop test verifies with (the x402 test's).
const viemVersion = "viem@2.57.20"

// viemCase is one signature for testdata/wallet_signatures_verify.mjs to verify.
type viemCase struct {
	Name       string          `json:"name"`
	Kind       string          `json:"kind"`
	Address    string          `json:"address"`
	Signature  string          `json:"signature,omitempty"`
	Message    string          `json:"message,omitempty"`
	Raw        string          `json:"raw,omitempty"`
	TypedData  json.RawMessage `json:"typedData,omitempty"`
	Serialized string          `json:"serialized,omitempty"`
}

// viemResult is the script's verdict on one case.
type viemResult struct {
	Name      string `json:"name"`
	Valid     bool   `json:"valid"`
	Recovered string `json:"recovered"`
	Error     string `json:"error"`
}

// TestWalletSignaturesViemInterop: signatures made by svc — personal_sign (text and hex bytes) and
// eth_signTypedData_v4 (EIP-712's Mail example and a USDC permit) through POST
// /v1/wallets/{walletId}/signatures and seed 002's POST /wallet/sign, and an eth_signTransaction —
// verify with viem's verifyMessage / verifyTypedData unchanged, and viem recovers the wallet's address
// from each (from the signed transaction too).
func TestWalletSignaturesViemInterop(t *testing.T) {
	t.Parallel()
	testnode.Require(t, "this test verifies svc's wallet signatures with viem")
	dir := t.TempDir()
	require.NoError(t, testnode.CopyFile(filepath.Join(dir, "verify.mjs"), filepath.Join("testdata", "wallet_signatures_verify.mjs")))
	installed, done := make(chan error, 1), make(chan struct{})
	go func() {
		defer close(done)
		_, err := testnode.Install(t.Context(), dir, viemVersion)
		installed <- err
	}()
	t.Cleanup(func() { <-done })

	env := apptest.NewWith(t, apptest.Options{Chain: true})
	tenant := newDatabaseAccount(t, env)
	c := sdkFor(env, tenant)
	ctx := context.Background()
	w := c.CreateWallet(ctx, client.CreateWalletRequest{}).Body.Wallet
	fund := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/dev/faucet", Body: map[string]any{"address": w.Address, "usdc": 10, "eth": 1}})
	require.Equal(t, http.StatusOK, fund.Status, "%s", fund.Raw)
	require.Eventually(t, func() bool { return c.GetWalletBalances(ctx, w.ID).Body.Balances[1].Amount == "10" }, 30*time.Second, 50*time.Millisecond)
	friend := "0x52908400098527886E0F7030069857D2E4169EE7"
	mail := json.RawMessage(strings.ReplaceAll(`{"types":{"Person":[{"name":"name","type":"string"},{"name":"wallet","type":"address"}],
"Mail":[{"name":"from","type":"Person"},{"name":"to","type":"Person"},{"name":"contents","type":"string"}]},
"primaryType":"Mail","domain":{"name":"Ether Mail","version":"1","chainId":1337,"verifyingContract":"0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"},
"message":{"from":{"name":"Cow","wallet":"WALLET"},"to":{"name":"Bob","wallet":"0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"},"contents":"Hello, Bob!"}}`,
		"WALLET", w.Address))
	permit := usdcPermit(w.Address, friend, 2_000_000)

	var cases []viemCase
	add := func(name, kind string, r client.Response[client.WalletSignatureEnvelope], vc viemCase) {
		require.True(t, r.OK, "%s: %v", name, r.Error)
		s := r.Body.Signature
		require.Equal(t, client.WalletSigSigned, s.Status, name)
		vc.Name, vc.Kind, vc.Address, vc.Signature = name, kind, w.Address, *s.Signature
		if kind == "transaction" {
			vc.Serialized = *s.SignedTransaction
		}
		cases = append(cases, vc)
	}
	sign := func(r client.SignatureRequest) client.Response[client.WalletSignatureEnvelope] {
		return c.Sign(ctx, w.ID, r)
	}
	root := func(r client.SignatureRequest) client.Response[client.WalletSignatureEnvelope] {
		return c.WalletSign(ctx, client.RootSignRequest{SignatureRequest: r})
	}
	text := client.SignatureRequest{Type: client.SignPersonal, Message: "svc signs this, verified by viem"}
	hexMsg := client.SignatureRequest{Type: client.SignPersonal, Message: "0xdeadbeef00ff"}
	add("v1 personal text", "message", sign(text), viemCase{Message: text.Message})
	add("v1 personal hex", "message", sign(hexMsg), viemCase{Raw: hexMsg.Message})
	add("v1 typed mail", "typedData", sign(client.SignatureRequest{Type: client.SignTypedData, TypedData: mail}), viemCase{TypedData: mail})
	add("v1 typed permit", "typedData", sign(client.SignatureRequest{Type: client.SignTypedData, TypedData: permit}), viemCase{TypedData: permit})
	add("root personal text", "message", root(text), viemCase{Message: text.Message})
	add("root typed mail", "typedData", root(client.SignatureRequest{Type: client.SignTypedData, TypedData: mail}), viemCase{TypedData: mail})
	tx := root(client.SignatureRequest{Type: client.SignTransaction, Transaction: &client.UnsignedTransaction{To: friend, Value: "1000000000000"}})
	add("root transaction", "transaction", tx, viemCase{})
	require.Equal(t, int64(1337), tx.Body.Signature.Subject.Transaction.ChainID)
	require.NotEmpty(t, *tx.Body.Signature.TransactionHash)

	require.NoError(t, <-installed)
	input, err := json.Marshal(cases)
	require.NoError(t, err)
	out := testnode.RunWithInput(t, dir, "verify.mjs", input)
	var results []viemResult
	require.NoError(t, json.Unmarshal(out, &results), "%s", out)
	require.Len(t, results, len(cases))
	for _, r := range results {
		require.Empty(t, r.Error, r.Name)
		require.True(t, r.Valid, "viem refuses %s: %+v", r.Name, r)
		require.Equal(t, strings.ToLower(w.Address), strings.ToLower(r.Recovered), r.Name)
	}
}
