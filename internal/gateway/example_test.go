package gateway_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/gateway"
)

// The example services.yaml the README points at must stay valid.
func TestExampleServicesFileLoads(t *testing.T) {
	t.Parallel()
	cat, err := gateway.Load("../../examples/services.yaml")
	require.NoError(t, err)
	svc, ok := cat.Lookup("imagegen")
	require.True(t, ok)
	require.Equal(t, "imagegen-key", svc.Connection)
	op, ok := svc.Operation("generate")
	require.True(t, ok)
	require.EqualValues(t, 1000, op.Millicredits)
}
