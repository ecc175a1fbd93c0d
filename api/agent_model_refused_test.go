package api_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/client"
)

// TestAgentJobFailsAtOnceWithoutAModelProvider: on a platform whose LLM catalog has no provider
// configured (make run's default), a prompt's job ends failed saying so, instead of retrying its model
// call for minutes.
func TestAgentJobFailsAtOnceWithoutAModelProvider(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	key := env.FirstKey(t)
	r := agentPrompt(t, env, key, "p1", map[string]any{"prompt": "hello"})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Raw)
	id := r.Body["job"].(map[string]any)["id"].(string)
	c := client.New(client.WithBaseURL(env.URL), client.WithAPIKey(key))
	job := waitJob(t, c, id, "failed")
	require.NotNil(t, job.Error)
	require.Contains(t, *job.Error, "no provider of the model")
}
