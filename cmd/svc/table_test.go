package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCommandTable: every entry of the command table has a unique name and its help; a command has its
// run function and its line in the overview; every group's command has the group's entry.
func TestCommandTable(t *testing.T) {
	t.Parallel()
	seen := map[string]command{}
	for _, c := range commands() {
		require.NotContains(t, seen, c.name, "%q twice in the table", c.name)
		seen[c.name] = c
		require.True(t, strings.HasPrefix(c.help, "Usage: svc "+c.name), "help of %q: %q", c.name, c.help)
	}
	for _, c := range seen {
		group := groupOf(c.name)
		if group == c.name && c.run == nil {
			continue // a group's own entry
		}
		require.NotNil(t, c.run, c.name)
		require.NotEmpty(t, c.brief, c.name)
		require.Regexp(t, `(?m)^  `+regexp.QuoteMeta(strings.TrimSpace(c.name+" "+c.args))+`\s+`+regexp.QuoteMeta(c.brief)+`$`,
			overview(), c.name)
		if group != c.name {
			g, ok := seen[group]
			require.True(t, ok, "%q has no group entry %q", c.name, group)
			require.Nil(t, g.run, "group %q runs nothing itself", group)
		}
	}
}
