package api_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/devchain"
)

// TestAppScriptReadsTheChain: through the API and the in-process worker, a script reads the dev USDC's
// totalSupply and decimals with svc.chain on the worker's chain connection.
func TestAppScriptReadsTheChain(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{Chain: true})
	owner := newFrontOwner(t, env, "chain-reader")
	created := createJSONApp(t, env, owner.key, "reader", map[string]string{
		"manifest.json": `{"slug": "reader", "permissions": ["read:chain"], "scripts": ["supply"]}`,
		"index.html":    "<p>reader</p>",
		"scripts/supply.ts": `const abi = ["function totalSupply() view returns (uint256)", "function decimals() view returns (uint8)"];
const r = await svc.chain.multicall({ calls: [
  { address: "` + devchain.USDCAddress.Hex() + `", abi, functionName: "totalSupply", args: [] },
  { address: "` + devchain.USDCAddress.Hex() + `", abi, functionName: "decimals", args: [] },
] });
return { supplyOk: r[0].status === "success" && BigInt(r[0].result) > 0n, decimals: r[1].result };
`})
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	status, run, raw := runScript(t, env, owner.key, "reader", "supply", "r1")
	require.Equal(t, http.StatusOK, status, raw)
	require.Equal(t, "succeeded", run["status"], raw)
	require.Equal(t, map[string]any{"supplyOk": true, "decimals": "6"}, run["result"])
}
