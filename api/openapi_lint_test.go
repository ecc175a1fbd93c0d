package api_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/testnode"
)

// redoclyCLI is the pinned Redocly CLI the OpenAPI document is linted with.
const redoclyCLI = "@redocly/cli@2.77.0"

// redoclyConfig lints with the recommended rules, unchanged.
const redoclyConfig = "extends:\n  - recommended\n"

// redoclyReport is the part of `redocly lint --format=json` the test reads.
type redoclyReport struct {
	Totals   struct{ Errors, Warnings, Ignored int } `json:"totals"`
	Problems []struct {
		RuleID   string `json:"ruleId"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
		Location []struct {
			Pointer string `json:"pointer"`
		} `json:"location"`
	} `json:"problems"`
}

// TestOpenAPIDocumentPassesRedoclyLint lints the served document with Redocly's recommended rules: no
// error and no warning.
func TestOpenAPIDocumentPassesRedoclyLint(t *testing.T) {
	t.Parallel()
	testnode.Require(t, "this test lints the OpenAPI document with the Redocly CLI")
	dir := t.TempDir()
	_, err := testnode.Install(t.Context(), dir, redoclyCLI)
	require.NoError(t, err)
	raw, err := json.Marshal(fetchJSON(t, newBareServer(t).Handler(), "/openapi.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "openapi.json"), raw, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "redocly.yaml"), []byte(redoclyConfig), 0o644))

	cmd := exec.CommandContext(t.Context(), "node", filepath.Join("node_modules", "@redocly", "cli", "bin", "cli.js"),
		"lint", "--format=json", "--config=redocly.yaml", "openapi.json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	out, runErr := cmd.Output()
	var report redoclyReport
	require.NoError(t, json.Unmarshal(out, &report), "redocly lint: %v\n%s", runErr, out)
	for _, p := range report.Problems {
		ptr := ""
		if len(p.Location) > 0 {
			ptr = p.Location[0].Pointer
		}
		t.Errorf("%s %s at %s: %s", p.Severity, p.RuleID, ptr, p.Message)
	}
	require.Zero(t, report.Totals.Errors+report.Totals.Warnings, "redocly lint: %v", runErr)
	require.NoError(t, runErr)
}
