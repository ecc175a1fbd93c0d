package api_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/testnode"
)

// siweNodePackages are what testdata/siwe_sign.mjs signs with (viem's own SIWE message builder).
var siweNodePackages = []string{"viem@2.57.20"}

// TestSIWEInteropViemSignIn proves that messages built by viem's createSiweMessage (with and without a
// statement, with an expiration time) and signed by viem's signMessage link an address and sign in,
// unchanged; replaying viem's sign-in message is refused.
func TestSIWEInteropViemSignIn(t *testing.T) {
	t.Parallel()
	testnode.Require(t, "this test signs in with messages built and signed by viem")
	dir := t.TempDir()
	require.NoError(t, testnode.CopyFile(filepath.Join(dir, "siwe_sign.mjs"), filepath.Join("testdata", "siwe_sign.mjs")))
	installed := make(chan error, 1)
	go func() {
		_, err := testnode.Install(t.Context(), dir, siweNodePackages...)
		installed <- err
	}()
	env := apptest.New(t)
	root, _ := firstKey(t, env)
	require.NoError(t, <-installed)

	out := testnode.Run(t, dir, "siwe_sign.mjs", "DOMAIN="+app.DefaultSIWEDomain, "CHAIN_ID=1337", "URI=http://"+app.DefaultSIWEDomain,
		"NONCE_LINK="+siweNonce(t, env), "NONCE_SIGNIN="+siweNonce(t, env))
	var signed struct {
		Address string `json:"address"`
		Link    struct{ Message, Signature string }
		SignIn  struct{ Message, Signature string } `json:"signIn"`
	}
	require.NoError(t, json.Unmarshal(out, &signed), "%s", out)

	link := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/auth/siwe/link", Key: root,
		Body: map[string]any{"message": signed.Link.Message, "signature": signed.Link.Signature}, Headers: map[string]string{"Idempotency-Key": "viem-link"}})
	require.Equal(t, http.StatusOK, link.Status, "%s\n%s", link.Raw, signed.Link.Message)
	require.Equal(t, signed.Address, link.Body["address"])

	in := signIn(t, env, signed.SignIn.Message, signed.SignIn.Signature)
	require.Equal(t, http.StatusOK, in.Status, "%s\n%s", in.Raw, signed.SignIn.Message)
	require.Equal(t, signed.Address, in.Body["address"])
	users := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/user/automation", Key: in.Body["token"].(string)})
	require.Equal(t, http.StatusOK, users.Status, "%s", users.Raw)

	again := signIn(t, env, signed.SignIn.Message, signed.SignIn.Signature)
	require.Equal(t, http.StatusUnauthorized, again.Status, "%s", again.Raw)
	require.Equal(t, "message.nonce", errorOf(again)["param"])
}
