package main

import (
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/skillshelf"
)

// shellBlocks are the ```sh blocks of a skill.
var shellBlocks = regexp.MustCompile("(?s)```sh\n(.*?)```")

// TestSkillTemplatesRunAgainstTheExample runs the bundled skills' provider blocks (preflight,
// generation, verification) with curl against this service, their placeholders filled in: the worked
// example implements the templates as written.
func TestSkillTemplatesRunAgainstTheExample(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"sh", "curl", "file"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	srv := httptest.NewServer(handler("test-key", "1"))
	t.Cleanup(srv.Close)
	for skill, c := range map[string]struct{ model, ext, fileType string }{
		"image-generation": {imageModel, ".png", "PNG image data"},
		"localtts":         {speechModel, ".wav", "WAVE audio"},
	} {
		raw, err := skillshelf.Template(skill + "/SKILL.md")
		require.NoError(t, err)
		out := filepath.Join(t.TempDir(), "out")
		fill := strings.NewReplacer("<ENV_VAR_NAME>", "GEN_KEY", "<model-id>", c.model, "<voice-id>", "narrator",
			"<prompt>", "a lighthouse", "<text>", "hello there", "<output-file>", out)
		var script strings.Builder
		script.WriteString("set -e\n")
		for _, m := range shellBlocks.FindAllStringSubmatch(string(raw), -1) {
			script.WriteString(fill.Replace(m[1]))
		}
		cmd := exec.Command("sh", "-c", script.String())
		cmd.Env = append(os.Environ(), "BASE_URL="+srv.URL, "GEN_KEY=test-key")
		stdout, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s:\n%s\n%s", skill, script.String(), stdout)
		require.Contains(t, string(stdout), c.fileType, skill)
		require.FileExists(t, out+c.ext)
	}
}
