package agent

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/skills"
)

// TestRenderSkill: the header carries the version and emoji, the body and each inline file are
// delimited, and omitted files are listed with the escaped URL that reads them.
func TestRenderSkill(t *testing.T) {
	t.Parallel()
	l := &skills.Loaded{Skill: skills.Skill{Name: "weather", Description: "Forecasts", Version: 2.5, Emoji: "🌦️"},
		Body:       "\n# Weather\nAsk the API.\n",
		References: []skills.Inline{{Path: "references/api.md", Bytes: 5, Text: "# API"}},
		Resources: []skills.Inline{{Path: "data/city list.txt", Bytes: 300 << 10, Omitted: skills.OmittedBudget},
			{Path: "scripts/get.py", Bytes: 7, Text: "print()"}, {Path: "logo.png", Bytes: 4, Omitted: skills.OmittedBinary}}}
	got := renderSkill(l)
	require.True(t, strings.HasPrefix(got, "Skill weather (version 2.5) 🌦️: Forecasts\n\n<skill_body>\n# Weather\nAsk the API.\n</skill_body>\n"), got)
	require.Contains(t, got, "<file kind=\"reference\" path=\"references/api.md\" bytes=\"5\">\n# API\n</file>")
	require.Contains(t, got, "<file kind=\"resource\" path=\"scripts/get.py\" bytes=\"7\">\nprint()\n</file>")
	require.Contains(t, got, "- data/city list.txt (307200 bytes): omitted, over the 200 KB inline budget; GET /v1/skills/weather/resources/data/city%20list.txt\n")
	require.Contains(t, got, "- logo.png (4 bytes): omitted, binary; GET /v1/skills/weather/resources/logo.png\n")
	require.NotContains(t, got, "<file kind=\"resource\" path=\"logo.png\"")
}

// TestOneLine: whitespace is folded and long text cut with an ellipsis, counting characters.
func TestOneLine(t *testing.T) {
	t.Parallel()
	require.Equal(t, "a b c", oneLine(" a\n b\tc ", 10))
	require.Equal(t, "ééé…", oneLine("éééé", 3))
}
