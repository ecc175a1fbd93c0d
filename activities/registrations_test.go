package activities_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/activities"
)

// TestEveryActivityIsRegistered fails when an activity type name of workflows/names.go is missing from
// activities.Set.Registrations (or listed twice), so a new activity cannot be forgotten by the worker.
func TestEveryActivityIsRegistered(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "../workflows/names.go", nil, 0)
	require.NoError(t, err)
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, id := range vs.Names {
			if strings.HasPrefix(id.Name, "Activity") && i < len(vs.Values) {
				v, err := strconv.Unquote(vs.Values[i].(*ast.BasicLit).Value)
				require.NoError(t, err)
				names = append(names, v)
			}
		}
		return false
	})
	require.NotEmpty(t, names)
	var registered []string
	for _, r := range (activities.Set{}).Registrations() {
		require.NotNil(t, r.Func, r.Name)
		registered = append(registered, r.Name)
	}
	require.ElementsMatch(t, names, registered)
}
