package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/textdist"
)

// TestSuggest: the nearest candidate within two edits, or the only one the word begins, or nothing.
func TestSuggest(t *testing.T) {
	t.Parallel()
	cands := []string{"runs", "keys", "projects", "connections", "credits", "login", "list"}
	for _, c := range []struct{ word, want string }{
		{"runz", "runs"},
		{"rusn", "runs"}, // a swap is two edits
		{"kyes", "keys"},
		{"projcets", "projects"},
		{"conn", "connections"}, // the only one it begins
		{"cr", "credits"},
		{"l", ""},          // begins two, near none
		{"x", ""},          // too short to be near anything
		{"zzzz", ""},       // near nothing
		{"runs", ""},       // a known word needs no suggestion
		{"listt", "list"},  // nearest wins
		{"lgoin", "login"}, // two edits
	} {
		require.Equal(t, c.want, suggest(c.word, cands), c.word)
	}
	require.Equal(t, 3, textdist.Levenshtein("kitten", "sitting"))
	require.Equal(t, 0, textdist.Levenshtein("", ""))
	require.Equal(t, 4, textdist.Levenshtein("", "runs"))
}

// TestTypoSuggestions: a mistyped command, subcommand, flag or help topic exits 2 with the nearest one
// named on stderr, and sends nothing.
func TestTypoSuggestions(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t)
	env := testEnv(t, f)
	env["SVC_API_KEY"] = goodKey
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"runz"}, `error: unknown command "runz"; did you mean "runs"?`},
		{[]string{"runz", "list"}, `error: unknown command "runz"; did you mean "runs"?`},
		{[]string{"projetcs", "list"}, `did you mean "projects"?`},
		{[]string{"runs", "lst"}, `error: unknown command "runs lst"; did you mean "runs list"?`},
		{[]string{"webhooks", "deliveris"}, `did you mean "webhooks deliveries"?`},
		{[]string{"runs", "list", "--servic", "x"}, "error: unknown flag --servic; did you mean --service?"},
		{[]string{"runs", "list", "-servic=x"}, "error: unknown flag -servic; did you mean --service?"},
		{[]string{"runs", "create", "--operaton", "echo"}, "error: unknown flag --operaton; did you mean --operation?"},
		{[]string{"--jsn", "runs", "list"}, "error: unknown flag --jsn; did you mean --json?"},
		{[]string{"help", "runs", "craete"}, `error: no help for "runs craete"; did you mean "runs create"?`},
		{[]string{"bogus"}, "error: unknown command \"bogus\"\n"},
		{[]string{"runs", "list", "--bogus"}, "error: unknown flag --bogus\n"},
	} {
		r := cli(t, env, "", c.args...)
		require.Equal(t, exitUsage, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stderr, c.want, c.args)
		require.Contains(t, r.stderr, "for usage.", c.args)
		require.Empty(t, r.stdout, c.args)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Empty(t, f.requests, "a typo sends nothing")
}
