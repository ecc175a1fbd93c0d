package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
)

// TestSkillsReviewCommand: svcd skills review lists a public skill pending review, --approve puts it in
// the public directory, a private skill is not reviewable, and a decision needs --owner and --name.
func TestSkillsReviewCommand(t *testing.T) {
	t.Parallel()
	env := apptest.NewWith(t, apptest.Options{NoWorker: true})
	owner, token := env.NewAccount(t, "author")
	k := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/api-keys", Body: map[string]any{},
		Headers: map[string]string{"X-Svc-Credit-Token": token, "Idempotency-Key": "k1"}})
	require.Equal(t, http.StatusCreated, k.Status, "%s", k.Raw)
	key := k.Body["apiKey"].(map[string]any)["secret"].(string)
	for i, md := range []string{"---\nname: shared\ndescription: d\nvisibility: public\n---\nbody\n", "---\nname: mine\ndescription: d\n---\nbody\n"} {
		resp := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/skills", Key: key, Body: md,
			Headers: map[string]string{"Idempotency-Key": "s" + strconv.Itoa(i), "Content-Type": "text/markdown"}})
		require.Equal(t, http.StatusCreated, resp.Status, "%s", resp.Raw)
	}

	out, err := svcdSkills(t, env, "review")
	require.NoError(t, err)
	require.Equal(t, []string{"shared"}, namesOf(t, out, owner), "only the public skill waits for review")

	out, err = svcdSkills(t, env, "review", "--owner", owner, "--name", "shared", "--approve", "--reason", "looks fine")
	require.NoError(t, err)
	var got struct{ ReviewStatus, ReviewReason string }
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Equal(t, "approved", got.ReviewStatus)
	require.Equal(t, "looks fine", got.ReviewReason)
	out, err = svcdSkills(t, env, "review")
	require.NoError(t, err)
	require.Empty(t, namesOf(t, out, owner))
	dir := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/skills/public", Key: key})
	require.Contains(t, string(dir.Raw), `"name":"shared"`)

	_, err = svcdSkills(t, env, "review", "--owner", owner, "--name", "mine", "--refuse")
	require.ErrorContains(t, err, "private")
	_, err = svcdSkills(t, env, "review", "--name", "shared", "--approve")
	require.ErrorContains(t, err, "--owner")
	_, err = svcdSkills(t, env, "review", "--owner", owner, "--name", "shared", "--approve", "--refuse")
	require.ErrorContains(t, err, "not both")
}

// svcdSkills runs `svcd skills ...` against the test's database and answers its standard output.
func svcdSkills(t *testing.T, env *apptest.Env, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cfg := app.Config{DatabaseURL: env.DatabaseURL, DevRecord: filepath.Join(t.TempDir(), "dev.json")}
	err := dispatch(context.Background(), cfg, append([]string{"skills"}, args...), &out, &errOut)
	return out.String(), err
}

// namesOf answers the names of owner's skills among the JSON lines out.
func namesOf(t *testing.T, out, owner string) []string {
	t.Helper()
	names := []string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var s struct{ Owner, Name string }
		require.NoError(t, json.Unmarshal([]byte(line), &s))
		if s.Owner == owner {
			names = append(names, s.Name)
		}
	}
	return names
}
