package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/skills"
)

// TestSkillsCommandsAgainstTheServer: svc skills create (a SKILL.md and a folder), list, get, public,
// install (refused for one's own skill), delete; a SKILL.md the API refuses names the field.
func TestSkillsCommandsAgainstTheServer(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	svc := loggedIn(t, env, env.FirstKey(t))

	dir := t.TempDir()
	single := filepath.Join(dir, "SKILL.md")
	require.NoError(t, os.WriteFile(single, []byte("---\nname: jot\ndescription: Jots notes down\n---\n# Jot\n"), 0o600))
	code, out, stderr := svc("skills", "create", single)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Saved skill jot (version 1, private), 1 files.")

	folder := filepath.Join(dir, "weather")
	require.NoError(t, os.MkdirAll(filepath.Join(folder, "references"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(folder, "SKILL.md"), []byte("---\nname: weather\ndescription: Weather lookups\n"+
		"version: 2\nvisibility: public\nmetadata:\n  clawdbot:\n    emoji: \"🌦️\"\n---\nCall the API.\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(folder, "references", "api.md"), []byte("# API"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(folder, ".hidden"), []byte("left out"), 0o600))
	code, out, stderr = svc("skills", "create", folder)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Saved skill weather (version 2, public, pending_review), 2 files.")

	code, out, stderr = svc("skills", "list")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `(?m)^jot\s+1\s+private\s+-\s+Jots notes down`, out)
	require.Regexp(t, `(?m)^weather\s+2\s+public\s+pending_review\s+Weather lookups`, out)

	code, out, stderr = svc("skills", "get", "weather")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "references/api.md")
	require.Contains(t, out, "Call the API.")
	code, out, stderr = svc("--json", "skills", "get", "weather")
	require.Equal(t, 0, code, stderr)
	var got struct {
		Skill struct {
			Emoji        string `json:"emoji"`
			ReviewStatus string `json:"reviewStatus"`
		} `json:"skill"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Equal(t, "🌦️", got.Skill.Emoji)
	require.Equal(t, "pending_review", got.Skill.ReviewStatus)

	code, out, stderr = svc("skills", "public")
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, out, "weather", "not reviewed yet")
	code, _, stderr = svc("skills", "install", "acct_nobody", "weather")
	require.NotEqual(t, 0, code)
	require.Contains(t, stderr, "not_found")
	code, _, _ = svc("skills", "install", "weather")
	require.NotEqual(t, 0, code, "install takes OWNER and NAME")

	// Once approved, the directory lists it and another account installs a copy.
	var owner string
	require.NoError(t, env.DB.NewRaw("SELECT account_id FROM skills WHERE name = 'weather'").Scan(context.Background(), &owner))
	_, err := skills.NewStore(env.DB, nil, nil, nil, nil).Review(context.Background(), owner, "weather", true, "")
	require.NoError(t, err)
	code, out, stderr = svc("skills", "public")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `(?m)^`+owner+`\s+weather\s+2\s+🌦️\s+Weather lookups`, out)
	// The directory needs no key: a command line that never logged in lists it too.
	anonDir := t.TempDir()
	var anonOut, anonErr bytes.Buffer
	code = run([]string{"skills", "public"}, strings.NewReader(""), &anonOut, &anonErr, func(k string) string {
		return map[string]string{"XDG_CONFIG_HOME": anonDir, "SVC_BASE_URL": env.URL, "SVC_NOT_INTERACTIVE": "1"}[k]
	})
	require.Equal(t, 0, code, anonErr.String())
	require.Regexp(t, `(?m)^`+owner+`\s+weather`, anonOut.String())
	code, _, stderr = svc("skills", "install", owner, "weather")
	require.NotEqual(t, 0, code, "one's own skill")
	require.Contains(t, stderr, "owner")
	other := loggedIn(t, env, env.FirstKey(t))
	code, out, stderr = other("skills", "install", owner, "weather")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Installed skill weather (version 2) from "+owner+", 2 files.")
	code, out, stderr = other("skills", "get", "weather")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Installed from: weather of "+owner)

	bad := filepath.Join(dir, "bad.md")
	require.NoError(t, os.WriteFile(bad, []byte("---\nname: Bad Name\ndescription: d\n---\n"), 0o600))
	code, _, stderr = svc("skills", "create", bad)
	require.NotEqual(t, 0, code)
	require.Contains(t, stderr, "name")
	require.Contains(t, stderr, "slug-friendly")

	code, out, stderr = svc("skills", "delete", "jot")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "Deleted skill jot.")
	code, _, _ = svc("skills", "get", "jot")
	require.NotEqual(t, 0, code)
}
