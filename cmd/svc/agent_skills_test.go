package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
)

// TestAgentSkillsCommand: svc agent skills says the agent sees none at first, then lists the account's
// skills with version, visibility, review and description; --json prints the API's list; its help
// names load_skill; a stray argument is a usage error.
func TestAgentSkillsCommand(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	svc := loggedIn(t, env, env.FirstKey(t))

	code, out, stderr := svc("agent", "skills")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, "The agent sees no skills")

	skill := filepath.Join(t.TempDir(), "SKILL.md")
	require.NoError(t, os.WriteFile(skill, []byte("---\nname: pager\ndescription: Pages the on-call person\nversion: 3\n"+
		"visibility: public\n---\nPage them.\n"), 0o600))
	code, _, stderr = svc("skills", "create", skill)
	require.Equal(t, 0, code, stderr)

	code, out, stderr = svc("agent", "skills")
	require.Equal(t, 0, code, stderr)
	require.Regexp(t, `(?m)^NAME\s+VERSION\s+VISIBILITY\s+REVIEW\s+DESCRIPTION$`, out)
	require.Regexp(t, `(?m)^pager\s+3\s+public\s+pending_review\s+Pages the on-call person$`, out)

	code, out, stderr = svc("--json", "agent", "skills")
	require.Equal(t, 0, code, stderr)
	var list struct {
		Skills []struct {
			Name string `json:"name"`
		} `json:"skills"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &list), out)
	require.Len(t, list.Skills, 1)
	require.Equal(t, "pager", list.Skills[0].Name)

	code, out, _ = svc("agent", "skills", "--help")
	require.Equal(t, 0, code)
	require.Contains(t, out, "load_skill")
	code, _, _ = svc("agent", "skills", "extra")
	require.NotEqual(t, 0, code)
}
