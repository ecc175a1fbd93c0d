package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/catalog"
)

const goodYAML = `
services:
  - id: imagegen
    name: Image generation
    baseUrl: http://127.0.0.1:9000/api/
    contract: generation
    allowPrivate: true
    timeout: 45s
    connection: imagegen-key
    operations:
      - id: generate
        method: post
        path: /v1/images
        credits: 2.5
        requiresApproval: true
      - id: models.list
        method: GET
        path: /v1/models
  - id: tts
    baseUrl: https://tts.example.com
    operations:
      - id: speak
        method: POST
        path: /v1/audio/speech
        credits: 3
`

// TestLoadGood loads a complete file and checks every field, and the defaults.
func TestLoadGood(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "services.yaml")
	require.NoError(t, os.WriteFile(path, []byte(goodYAML), 0o600))
	c, err := Load(path)
	require.NoError(t, err)
	require.Len(t, c.Services, 2)

	img, ok := c.Lookup("imagegen")
	require.True(t, ok)
	require.Equal(t, "Image generation", img.Name)
	require.Equal(t, "http://127.0.0.1:9000/api", img.BaseURL.String())
	require.Equal(t, ContractGeneration, img.Contract)
	require.True(t, img.AllowPrivate)
	require.Equal(t, 45*time.Second, img.Timeout)
	require.Equal(t, "imagegen-key", img.Connection)
	gen, ok := img.Operation("generate")
	require.True(t, ok)
	require.Equal(t, Operation{ID: "generate", Method: "POST", Path: "/v1/images", Millicredits: 2500, RequiresApproval: true}, gen)
	list, ok := img.Operation("models.list")
	require.True(t, ok)
	require.Equal(t, "GET", list.Method)
	require.Zero(t, list.Millicredits)

	tts, ok := c.Lookup("tts")
	require.True(t, ok)
	require.Equal(t, "tts", tts.Name, "name defaults to the id")
	require.Equal(t, DefaultTimeout, tts.Timeout)
	require.False(t, tts.AllowPrivate)
	require.Empty(t, tts.Connection)
	op, _ := tts.Operation("speak")
	require.Equal(t, int64(3000), op.Millicredits)

	_, ok = c.Lookup("nope")
	require.False(t, ok)
	_, ok = img.Operation("nope")
	require.False(t, ok)

	entries := c.ForCatalog()
	require.Len(t, entries, 2)
	require.Equal(t, "imagegen", entries[0].ID)
	require.Equal(t, catalog.Operation{ID: "generate", Kind: KindInvoke, RequiresApproval: true, Available: true, Millicredits: 2500, Unit: "call"},
		entries[0].Operations[0])
	merged, err := catalog.Builtin().With(entries...)
	require.NoError(t, err)
	require.True(t, merged.Known("tts"))

	empty, err := Parse([]byte("services: []\n"))
	require.NoError(t, err)
	require.Empty(t, empty.Services)
}

// svcYAML is a minimal valid file with extra lines for the service and for its operation.
func svcYAML(serviceLines, opLines string) string {
	return "services:\n  - id: s1\n    baseUrl: http://h.example\n" + serviceLines +
		"    operations:\n      - id: o1\n        method: GET\n        path: /x\n" + opLines
}

// TestLoadBad checks that each invalid file fails with an error naming the field path.
func TestLoadBad(t *testing.T) {
	t.Parallel()
	cases := map[string]struct{ yaml, field string }{
		"empty file":          {"", "services"},
		"no services key":     {"other: 1\n", "other"},
		"services missing":    {"{}\n", "services"},
		"root is a list":      {"- a\n", "(document)"},
		"services not a list": {"services: 3\n", "services"},
		"service not a map":   {"services:\n  - x\n", "services[0]"},
		"unknown service key": {svcYAML("    color: red\n", ""), "services[0].color"},
		"duplicate key":       {svcYAML("    name: a\n    name: b\n", ""), "services[0].name"},
		"missing id":          {"services:\n  - baseUrl: http://h\n    operations: [{id: o, method: GET, path: /x}]\n", "services[0].id"},
		"bad id":              {strings.Replace(svcYAML("", ""), "id: s1", "id: S_1", 1), "services[0].id"},
		"built-in id":         {strings.Replace(svcYAML("", ""), "id: s1", "id: managed-workflows", 1), "services[0].id"},
		"pricing id":          {strings.Replace(svcYAML("", ""), "id: s1", "id: platform-api", 1), "services[0].id"},
		"id not a string":     {strings.Replace(svcYAML("", ""), "id: s1", "id: 12", 1), "services[0].id"},
		"missing baseUrl":     {"services:\n  - id: s\n    operations: [{id: o, method: GET, path: /x}]\n", "services[0].baseUrl"},
		"ftp baseUrl":         {strings.Replace(svcYAML("", ""), "http://h.example", "ftp://h.example", 1), "services[0].baseUrl"},
		"userinfo baseUrl":    {strings.Replace(svcYAML("", ""), "http://h.example", "http://u:p@h.example", 1), "services[0].baseUrl"},
		"query baseUrl":       {strings.Replace(svcYAML("", ""), "http://h.example", "http://h.example/?a=1", 1), "services[0].baseUrl"},
		"bad contract":        {svcYAML("    contract: speech\n", ""), "services[0].contract"},
		"allowPrivate string": {svcYAML("    allowPrivate: \"yes\"\n", ""), "services[0].allowPrivate"},
		"bad timeout":         {svcYAML("    timeout: soon\n", ""), "services[0].timeout"},
		"zero timeout":        {svcYAML("    timeout: 0s\n", ""), "services[0].timeout"},
		"huge timeout":        {svcYAML("    timeout: 2h\n", ""), "services[0].timeout"},
		"bad connection":      {svcYAML("    connection: \"no spaces\"\n", ""), "services[0].connection"},
		"no operations":       {"services:\n  - id: s\n    baseUrl: http://h\n", "services[0].operations"},
		"duplicate service": {svcYAML("", "") + "  - id: s1\n    baseUrl: http://h\n    operations: [{id: o, method: GET, path: /x}]\n",
			"services[1].id"},
		"unknown op key":     {svcYAML("", "        verb: GET\n"), "services[0].operations[0].verb"},
		"second op bad":      {svcYAML("", "      - id: o2\n        method: FETCH\n        path: /y\n"), "services[0].operations[1].method"},
		"op missing method":  {svcYAML("", "      - id: o2\n        path: /y\n"), "services[0].operations[1].method"},
		"op missing id":      {svcYAML("", "      - method: GET\n        path: /y\n"), "services[0].operations[1].id"},
		"duplicate op":       {svcYAML("", "      - id: o1\n        method: GET\n        path: /y\n"), "services[0].operations[1].id"},
		"relative path":      {strings.Replace(svcYAML("", ""), "path: /x", "path: x", 1), "services[0].operations[0].path"},
		"path with query":    {strings.Replace(svcYAML("", ""), "path: /x", "path: /x?a=1", 1), "services[0].operations[0].path"},
		"path with dotdot":   {strings.Replace(svcYAML("", ""), "path: /x", "path: /a/../b", 1), "services[0].operations[0].path"},
		"negative credits":   {svcYAML("", "        credits: -1\n"), "services[0].operations[0].credits"},
		"too precise":        {svcYAML("", "        credits: 0.0001\n"), "services[0].operations[0].credits"},
		"exponent credits":   {svcYAML("", "        credits: 1e3\n"), "services[0].operations[0].credits"},
		"string credits":     {svcYAML("", "        credits: \"2\"\n"), "services[0].operations[0].credits"},
		"approval not bool":  {svcYAML("", "        requiresApproval: 1\n"), "services[0].operations[0].requiresApproval"},
		"operations mapping": {"services:\n  - id: s\n    baseUrl: http://h\n    operations: {a: 1}\n", "services[0].operations"},
	}
	for name, tc := range cases {
		_, err := Parse([]byte(tc.yaml))
		require.Error(t, err, name)
		ce, ok := err.(*ConfigError)
		require.True(t, ok, "%s: %T %v", name, err, err)
		require.Equal(t, tc.field, ce.Field, "%s: %v", name, err)
		require.Contains(t, err.Error(), tc.field+": ", name)
	}

	path := filepath.Join(t.TempDir(), "services.yaml")
	require.NoError(t, os.WriteFile(path, []byte(svcYAML("", "        credits: -1\n")), 0o600))
	_, err := Load(path)
	require.ErrorContains(t, err, path+": services[0].operations[0].credits: ")
	require.ErrorContains(t, err, "(line 8)")
	_, err = Load(filepath.Join(t.TempDir(), "missing.yaml"))
	require.Error(t, err)
}

// TestParseCredits converts decimal credits exactly and refuses everything else.
func TestParseCredits(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"0": 0, "1": 1000, "1.5": 1500, "2.25": 2250, "0.001": 1, "12.345": 12345, "000.5": 500} {
		got, err := ParseCredits(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"", "abc", "-1", "+1", "1.", ".5", "1.2345", "1e3", " 1", "1,5", "NaN", "Infinity", "1234567890123"} {
		_, err := ParseCredits(in)
		require.Error(t, err, in)
	}
}
