package llm_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/llm"
)

func TestCatalogExamplesLoad(t *testing.T) {
	t.Parallel()
	env := map[string]string{"OPENAI_API_KEY": "sk-x"}
	c, err := llm.LoadCatalog("../../examples/llm.yaml", func(k string) string { return env[k] })
	require.NoError(t, err)
	require.Equal(t, "svc-base", c.Base().ID)
	p, _ := c.Provider("openai")
	require.Equal(t, "sk-x", p.APIKey)
	require.True(t, p.Configured())
	local, _ := c.Provider("local")
	require.False(t, local.Configured(), "a provider whose URL variable is unset is left out")
	max, _ := c.Model("svc-max")
	require.EqualValues(t, 2500, max.InputPerMillion)
	require.EqualValues(t, 10000, max.OutputPerMillion)

	def, err := llm.LoadCatalog("", func(k string) string { return map[string]string{"SVC_LLM_BASE_URL": "http://127.0.0.1:11434/v1/"}[k] })
	require.NoError(t, err)
	dp, _ := def.Provider("default")
	require.Equal(t, "http://127.0.0.1:11434/v1", dp.BaseURL.String())
}

func TestCatalogErrorsNameTheField(t *testing.T) {
	t.Parallel()
	none := func(string) string { return "" }
	for _, tc := range []struct{ yaml, want string }{
		{"providers: [{id: p, baseUrl: 'http://x/v1'}]\nmodels: [{id: m, providers: [q], inputPerMillion: 1, outputPerMillion: 1, base: true}]", "models[0].providers[0]"},
		{"providers: [{id: p, baseUrl: 'http://x/v1'}]\nmodels: [{id: m, providers: [p], inputPerMillion: 0.0001, outputPerMillion: 1, base: true}]", "models[0].inputPerMillion"},
		{"providers: [{id: p, baseUrl: 'http://x/v1'}]\nmodels: [{id: m, providers: [p], inputPerMillion: 1, outputPerMillion: '1', base: true}]", "models[0].outputPerMillion"},
		{"providers: [{id: p, baseUrl: 'http://x/v1'}]\nmodels: [{id: m, providers: [p], inputPerMillion: 1, outputPerMillion: 1}]", "exactly one model"},
		{"providers: [{id: p, baseUrl: 'ftp://x'}]\nmodels: []", "providers[0].baseUrl"},
		{"providers: [{id: p, baseUrl: 'http://x', apiKey: sk-123}]", "apiKey"},
		{"providers: [{id: p, baseUrl: 'http://x', apiKeyEnv: 'sk-123'}]", "providers[0].apiKeyEnv"},
		{"providers: [{id: p, baseUrl: 'http://x', timeout: 1h}]", "providers[0].timeout"},
	} {
		_, err := llm.ParseCatalog([]byte(tc.yaml), none)
		require.ErrorContains(t, err, tc.want, tc.yaml)
	}
}
