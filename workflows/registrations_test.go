package workflows_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/workflows"
)

// namesInFile returns the string values of the constants of file whose identifiers match keep.
func namesInFile(t *testing.T, file string, keep func(ident string) bool) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	require.NoError(t, err)
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, id := range vs.Names {
				if !keep(id.Name) || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				require.True(t, ok, "%s is not a string literal", id.Name)
				v, err := strconv.Unquote(lit.Value)
				require.NoError(t, err)
				out = append(out, v)
			}
		}
	}
	return out
}

// TestEveryWorkflowIsRegistered fails when a workflow type name of names.go is missing from
// workflows.Registrations (or listed twice), so a new workflow cannot be forgotten by the worker.
func TestEveryWorkflowIsRegistered(t *testing.T) {
	t.Parallel()
	names := namesInFile(t, "names.go", func(id string) bool { return strings.HasSuffix(id, "WorkflowName") })
	require.NotEmpty(t, names)
	var registered []string
	for _, r := range workflows.Registrations {
		require.NotNil(t, r.Func, r.Name)
		registered = append(registered, r.Name)
	}
	require.ElementsMatch(t, names, registered)
}

// TestEveryActivityIsRegistered fails when an activity type name of names.go is missing from
// activities.Set.Registrations (or listed twice), so a new activity cannot be forgotten by the worker.
func TestEveryActivityIsRegistered(t *testing.T) {
	t.Parallel()
	names := namesInFile(t, "names.go", func(id string) bool { return strings.HasPrefix(id, "Activity") })
	require.NotEmpty(t, names)
	var registered []string
	for _, r := range (activities.Set{}).Registrations() {
		require.NotNil(t, r.Func, r.Name)
		registered = append(registered, r.Name)
	}
	require.ElementsMatch(t, names, registered)
}
