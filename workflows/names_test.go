package workflows

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/client"
)

// The workflow writes run statuses without importing the client package; they must be the API's.
func TestStatusesMatchTheAPI(t *testing.T) {
	t.Parallel()
	require.Equal(t, client.RunSucceeded, statusSucceeded)
	require.Equal(t, client.RunFailed, statusFailed)
	require.Equal(t, client.RunCancelled, statusCancelled)
	require.Equal(t, client.OperationEcho, "echo")
	require.Equal(t, client.OperationSleep, "sleep")
}
