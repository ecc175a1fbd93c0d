package skills_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/skills"
	"github.com/svcplatform/svc/internal/svcerr"
)

// skillMD is a SKILL.md with the frontmatter lines fm and a body.
func skillMD(fm ...string) []byte {
	return []byte("---\n" + strings.Join(fm, "\n") + "\n---\n# Use\n\nSteps.\n")
}

// TestParseAcceptsEveryField: a full frontmatter is read field by field; defaults fill what is left out.
func TestParseAcceptsEveryField(t *testing.T) {
	t.Parallel()
	doc, err := skills.Parse(skillMD(
		"name: weather-check", "description: Looks up the weather", "tags: [weather, api]", "version: 2",
		"visibility: public", "owner-note: kept", "metadata:", "  clawdbot:", "    emoji: \"🌦️\"",
		"    homepage: https://example.com/weather", "    requires:", "      bins: [curl, jq]", "      packages: [requests]",
		"  other: 1"))
	require.NoError(t, err)
	fm := doc.Frontmatter
	require.Equal(t, "weather-check", fm.Name)
	require.Equal(t, []string{"weather", "api"}, fm.Tags)
	require.InDelta(t, 2.0, fm.Version, 0)
	require.Equal(t, skills.VisibilityPublic, fm.Visibility)
	require.Equal(t, "🌦️", fm.Emoji)
	require.Equal(t, "https://example.com/weather", fm.Homepage)
	require.Equal(t, []string{"curl", "jq"}, fm.Bins)
	require.Equal(t, []string{"requests"}, fm.Packages)
	require.JSONEq(t, `{"owner-note":"kept"}`, string(fm.Extra))
	require.Contains(t, string(fm.Metadata), `"other":1`)
	require.Equal(t, "# Use\n\nSteps.\n", doc.Body)

	def, err := skills.Parse(skillMD("name: a", "description: d"))
	require.NoError(t, err)
	require.InDelta(t, 1.0, def.Frontmatter.Version, 0)
	require.Equal(t, skills.VisibilityPrivate, def.Frontmatter.Visibility)
	require.Equal(t, []string{}, def.Frontmatter.Tags)
}

// TestParseRefusesEachRule: every rule of seed 002 is refused with 400 naming its field.
func TestParseRefusesEachRule(t *testing.T) {
	t.Parallel()
	ok := []string{"name: ok", "description: d"}
	with := func(extra ...string) []byte { return skillMD(append(append([]string{}, ok...), extra...)...) }
	cases := []struct {
		rule  string
		data  []byte
		param string
		says  string
	}{
		{"starts with ---", []byte("name: a\ndescription: d\n"), "frontmatter", "start with a '---'"},
		{"--- after a blank line", []byte("\n---\nname: a\n---\n"), "frontmatter", "start with a '---'"},
		{"frontmatter closed", []byte("---\nname: a\ndescription: d\n"), "frontmatter", "not closed"},
		{"frontmatter is YAML", []byte("---\nname: [a\n---\n"), "frontmatter", "not YAML"},
		{"frontmatter a mapping", []byte("---\n- a\n---\n"), "frontmatter", "mapping"},
		{"name required", skillMD("description: d"), "name", "required"},
		{"a field once", skillMD("name: a", "name: b", "description: d"), "name", "appears twice"},
		{"name a string", skillMD("name: [a]", "description: d"), "name", "string"},
		{"name slug-friendly", skillMD("name: Has Spaces", "description: d"), "name", skills.NamePattern},
		{"name not ending in -", skillMD("name: abc-", "description: d"), "name", "slug-friendly"},
		{"name not a route's", skillMD("name: public", "description: d"), "name", "reserved"},
		{"name at most 64", skillMD("name: "+strings.Repeat("a", 65), "description: d"), "name", "slug-friendly"},
		{"description required", skillMD("name: a"), "description", "required"},
		{"description not blank", skillMD("name: a", "description: '  '"), "description", "required"},
		{"tags an array", with("tags: weather"), "tags", "array of strings"},
		{"tags of strings", with("tags: [a, 3]"), "tags[1]", "array of strings"},
		{"version a number", with("version: two"), "version", "number"},
		{"version not quoted", with(`version: "2"`), "version", "number"},
		{"visibility private or public", with("visibility: unlisted"), "visibility", "private or public"},
		{"metadata a mapping", with("metadata: [1]"), "metadata", "mapping"},
		{"clawdbot a mapping", with("metadata:", "  clawdbot: 3"), "metadata.clawdbot", "mapping"},
		{"emoji single", with("metadata:", "  clawdbot:", "    emoji: \"🌦️🌦️\""), "metadata.clawdbot.emoji", "single emoji"},
		{"emoji not text", with("metadata:", "  clawdbot:", "    emoji: ab"), "metadata.clawdbot.emoji", "single emoji"},
		{"emoji a string", with("metadata:", "  clawdbot:", "    emoji: [x]"), "metadata.clawdbot.emoji", "string"},
		{"homepage a URL", with("metadata:", "  clawdbot:", "    homepage: example.com"), "metadata.clawdbot.homepage", "http or https URL"},
		{"homepage http(s)", with("metadata:", "  clawdbot:", "    homepage: ftp://example.com"), "metadata.clawdbot.homepage", "http or https URL"},
		{"requires a mapping", with("metadata:", "  clawdbot:", "    requires: [x]"), "metadata.clawdbot.requires", "mapping"},
		{"bins an array", with("metadata:", "  clawdbot:", "    requires:", "      bins: curl"), "metadata.clawdbot.requires.bins", "array of strings"},
		{"packages of strings", with("metadata:", "  clawdbot:", "    requires:", "      packages: [{a: 1}]"), "metadata.clawdbot.requires.packages[0]", "array of strings"},
		{"SKILL.md at most 100 KB", append(with(), []byte(strings.Repeat("x", skills.MaxSkillBytes))...), skills.SkillFile, "100 KB"},
		{"SKILL.md UTF-8", append(with(), 0xff), skills.SkillFile, "UTF-8"},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			t.Parallel()
			_, err := skills.Parse(tc.data)
			requireInvalid(t, err, tc.param, tc.says)
		})
	}
}

// requireInvalid asserts a 400 invalid_request naming param whose message says says.
func requireInvalid(t *testing.T, err error, param, says string) {
	t.Helper()
	require.Error(t, err)
	se, ok := svcerr.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, http.StatusBadRequest, svcerr.Status(se.Code), "%v", err)
	require.Equal(t, param, se.Param, "%v", err)
	require.Contains(t, se.Message, says)
}

// TestValidatePathRules: resource paths are relative, without '..' or empty segments, at most 255 bytes.
func TestValidatePathRules(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"SKILL.md", "references/api.md", "scripts/run.py", "a/b/c/d.txt"} {
		require.NoError(t, skills.ValidatePath("path", p), p)
	}
	cases := []struct{ rule, path, says string }{
		{"not empty", "", "empty"},
		{"no leading /", "/etc/passwd", "no leading '/'"},
		{"no ..", "scripts/../x", "no '..'"},
		{"no .. at the start", "../x", "no '..'"},
		{"no empty segment", "scripts//x", "no empty segments"},
		{"no trailing /", "scripts/", "no empty segments"},
		{"at most 255", strings.Repeat("a", 256), "at most 255"},
	}
	for _, tc := range cases {
		requireInvalid(t, skills.ValidatePath("files["+tc.path+"]", tc.path), "files["+tc.path+"]", tc.says)
	}
	require.NoError(t, skills.ValidatePath("path", "a/b/c/d/e/f.txt"), "any depth within 255 bytes")
}

// TestValidateFolder: a folder needs SKILL.md, and each reference is at most 100 KB.
func TestValidateFolder(t *testing.T) {
	t.Parallel()
	good := skillMD("name: a", "description: d")
	_, err := skills.Validate(map[string][]byte{"SKILL.md": good, "references/api.md": []byte("# API"), "data/x.bin": {0, 1}})
	require.NoError(t, err)
	_, err = skills.Validate(map[string][]byte{"references/api.md": []byte("# API")})
	requireInvalid(t, err, skills.SkillFile, "SKILL.md")
	_, err = skills.Validate(map[string][]byte{"SKILL.md": good, "references/big.md": []byte(strings.Repeat("x", skills.MaxSkillBytes+1))})
	requireInvalid(t, err, "files[references/big.md]", "100 KB")
	_, err = skills.Validate(map[string][]byte{"SKILL.md": good, "x//y": nil})
	requireInvalid(t, err, "files[x//y]", "no empty segments")
}

// TestIsSingleEmoji: one emoji grapheme (with modifiers, joiners, flags, keycaps) passes; text, two
// emoji or a lone modifier do not.
func TestIsSingleEmoji(t *testing.T) {
	t.Parallel()
	for _, e := range []string{"😀", "🌦️", "👍🏽", "👩‍💻", "👨‍👩‍👧‍👦", "🇫🇷", "1️⃣", "❤️", "🏴󠁧󠁢󠁳󠁣󠁴󠁿"} {
		require.True(t, skills.IsSingleEmoji(e), "%q", e)
	}
	for _, e := range []string{"", "a", "😀😀", "🇫", "🏽", "👩‍", ":)", "😀 "} {
		require.False(t, skills.IsSingleEmoji(e), "%q", e)
	}
}
