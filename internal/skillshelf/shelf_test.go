package skillshelf

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/vault"
)

var now = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// TestInstallIntoEmptyVault: the three skills, their source files and the index are written.
func TestInstallIntoEmptyVault(t *testing.T) {
	t.Parallel()
	v := t.TempDir()
	res, err := Install(v, "test", now)
	require.NoError(t, err)
	require.Equal(t, []string{"generation-skill-authoring", "image-generation", "localtts"}, Skills())
	require.ElementsMatch(t, []string{"Skills/generation-skill-authoring/SKILL.md", "Skills/image-generation/SKILL.md",
		"Skills/localtts/SKILL.md"}, res.Installed)
	require.Empty(t, res.Kept)
	require.Equal(t, "written", res.Index)
	for _, skill := range Skills() {
		raw, err := os.ReadFile(filepath.Join(v, "Skills", skill, SourceFile))
		require.NoError(t, err)
		var src Source
		require.NoError(t, json.Unmarshal(raw, &src))
		require.Equal(t, Source{Origin: Origin, Skill: skill, Version: "test", SHA256: src.SHA256, InstalledAt: now}, src)
		require.Len(t, src.SHA256, 64)
	}
	idx, err := os.ReadFile(filepath.Join(v, "Skills", "README.md"))
	require.NoError(t, err)
	require.Contains(t, string(idx), "| [localtts](localtts/SKILL.md) | bundled |")
	require.Contains(t, string(idx), "| [image-generation](image-generation/SKILL.md) | bundled |")
}

// TestInstallKeepsExistingFiles: an edited bundled skill and a skill of the vault's own are kept; the
// index lists both; a second install changes nothing; an index the shelf did not write is kept.
func TestInstallKeepsExistingFiles(t *testing.T) {
	t.Parallel()
	v := t.TempDir()
	edited := filepath.Join(v, "Skills", "localtts", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(edited), 0o755))
	require.NoError(t, os.WriteFile(edited, []byte("---\ndescription: our own speech notes\n---\n"), 0o644))
	own := filepath.Join(v, "Skills", "music-generation", "SKILL.md")
	require.NoError(t, os.MkdirAll(filepath.Dir(own), 0o755))
	require.NoError(t, os.WriteFile(own, []byte("---\ndescription: music | songs\n---\n"), 0o644))

	res, err := Install(v, "test", now)
	require.NoError(t, err)
	require.Equal(t, []string{"Skills/localtts/SKILL.md"}, res.Kept)
	require.Len(t, res.Installed, 2)
	raw, err := os.ReadFile(edited)
	require.NoError(t, err)
	require.Contains(t, string(raw), "our own speech notes")
	require.NoFileExists(t, filepath.Join(v, "Skills", "localtts", SourceFile), "an existing skill is not marked bundled")
	idx, err := os.ReadFile(filepath.Join(v, "Skills", "README.md"))
	require.NoError(t, err)
	require.Contains(t, string(idx), "| [localtts](localtts/SKILL.md) | shared | our own speech notes |")
	require.Contains(t, string(idx), "| [music-generation](music-generation/SKILL.md) | shared | music / songs |")

	again, err := Install(v, "test", now.Add(time.Hour))
	require.NoError(t, err)
	require.Empty(t, again.Installed)
	require.Len(t, again.Kept, 3)

	require.NoError(t, os.WriteFile(filepath.Join(v, "Skills", "README.md"), []byte("# our index\n"), 0o644))
	third, err := Install(v, "test", now)
	require.NoError(t, err)
	require.Equal(t, "kept", third.Index)
	raw, err = os.ReadFile(filepath.Join(v, "Skills", "README.md"))
	require.NoError(t, err)
	require.Equal(t, "# our index\n", string(raw))

	_, err = Install(filepath.Join(v, "missing"), "test", now)
	require.ErrorContains(t, err, "not a directory")
}

// TestTemplatesHoldPlaceholdersOnly greps the bundled templates: no IP address but the contract's
// local-mode loopback, no host names, no local paths, no secrets; every provider block has the
// contract's parts and points at the worked example.
func TestTemplatesHoldPlaceholdersOnly(t *testing.T) {
	t.Parallel()
	forbidden := map[string]*regexp.Regexp{
		"IPv4 address":      regexp.MustCompile(`\b\d{1,3}(\.\d{1,3}){3}\b`),
		"IPv6 address":      regexp.MustCompile(`(?i)\b[0-9a-f]{1,4}(:[0-9a-f]{0,4}){2,7}\b`),
		"private host name": regexp.MustCompile(`(?i)\b(localhost|[a-z0-9-]+\.(local|internal|lan|home|corp|ts\.net))\b`),
		"URL host":          regexp.MustCompile(`https?://[a-zA-Z0-9]`),
		"local path":        regexp.MustCompile(`(/home/|/Users/|~/|[A-Za-z]:\\|/opt/|/srv/|/var/|/etc/|/tmp/|/mnt/)`),
		"API key or token":  regexp.MustCompile(`(?i)(sk-[a-z0-9]{8}|svc_sk_|ghp_|Bearer [A-Za-z0-9])`),
	}
	for _, skill := range Skills() {
		raw, err := Template(skill + "/SKILL.md")
		require.NoError(t, err)
		text := strings.ReplaceAll(string(raw), "127.0.0.1:<port>", "<local-mode>") // the contract's local mode
		for what, re := range forbidden {
			require.Empty(t, re.FindAllString(text, -1), "%s in %s", what, skill)
		}
		require.Empty(t, vault.ScanText(string(raw)), skill)
		require.Contains(t, string(raw), "examples/genservice", skill)
		if skill == "generation-skill-authoring" {
			continue
		}
		for _, part := range []string{"### <provider-name>", "http(s)://<host>:<port>", "http://127.0.0.1:<port>", "Base URL",
			"Output extension", "<ENV_VAR_NAME>", `curl -fsS "$BASE_URL/health"`, `curl -fsS "$BASE_URL/v1/models"`,
			`-o "<output-file>`, "**Verification**", `file "<output-file>`, "Service directory", "Service manager", "Logs", "Known failures"} {
			require.Contains(t, string(raw), part, skill)
		}
	}
	tts, err := Template("localtts/SKILL.md")
	require.NoError(t, err)
	require.Contains(t, string(tts), `curl -fsS "$BASE_URL/v1/voices"`)
}
