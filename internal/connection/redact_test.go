package connection

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/page"
)

// renderings prints v every way a log line or an API answer might.
func renderings(t *testing.T, v any) []string {
	t.Helper()
	out := []string{
		fmt.Sprint(v), fmt.Sprintf("%v", v), fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v),
		fmt.Sprintf("%s", v), fmt.Sprintf("%q", v), fmt.Sprintf("%x", v),
	}
	if j, err := json.Marshal(v); err == nil {
		out = append(out, string(j))
	}
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Info("x", "value", v)
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "value", v)
	return append(out, buf.String())
}

// TestSecretNeverRendered prints every type the store returns, and its errors, in every usual way: none
// shows the secret or the basic username.
func TestSecretNeverRendered(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const secret, user = "TOPSECRET-value-9f8e7d", "USERNAME-6c5b4a"
	c := f.create(t, f.acctA, NewConnection{Name: "basic", AuthType: AuthBasic, Username: user, Secret: secret})
	h := f.create(t, f.acctA, NewConnection{Name: "hdr", AuthType: AuthHeader, HeaderName: "X-Key", Secret: secret})
	cred, err := f.store.Credential(f.ctx, f.acctA, c.ID)
	require.NoError(t, err)
	hcred, err := f.store.Credential(f.ctx, f.acctA, h.ID)
	require.NoError(t, err)
	got, err := f.store.Get(f.ctx, f.acctA, c.ID)
	require.NoError(t, err)
	rotated, err := f.store.Update(f.ctx, f.acctA, c.ID, Patch{Secret: ptr(secret + "-2")})
	require.NoError(t, err)
	p, _ := page.Parse(0, "")
	list, _, err := f.store.List(f.ctx, f.acctA, p)
	require.NoError(t, err)
	_, badSecret := f.store.Create(f.ctx, f.acctA, NewConnection{ID: NewID(), Name: "n", AuthType: AuthBearer, Secret: secret + "\n"})
	_, badUser := f.store.Create(f.ctx, f.acctA, NewConnection{ID: NewID(), Name: "n", AuthType: AuthBasic, Username: user + ":", Secret: secret})

	values := []any{c, c.View(), got, got.View(), rotated, rotated.View(), list, cred, &cred, hcred, []Credential{cred}, badSecret, badUser}
	for i, v := range values {
		for _, s := range renderings(t, v) {
			require.NotContains(t, s, secret, "value %d (%T) leaked the secret: %s", i, v, s)
			require.NotContains(t, s, user, "value %d (%T) leaked the username: %s", i, v, s)
		}
	}
	require.Contains(t, fmt.Sprint(cred), c.ID, "the redacted form still says which connection it is")
	require.Contains(t, fmt.Sprint(cred), redacted)
}

// TestViewJSON fixes the wire field names.
func TestViewJSON(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := f.create(t, f.acctA, NewConnection{Name: "hdr", AuthType: AuthHeader, HeaderName: "X-Key", Secret: "tok"})
	raw, err := json.Marshal(c.View())
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	for _, k := range []string{"id", "name", "authType", "headerName", "status", "createdAt", "updatedAt", "rotatedAt"} {
		require.Contains(t, m, k)
	}
	require.Len(t, m, 8)
	require.Nil(t, m["rotatedAt"])
}
