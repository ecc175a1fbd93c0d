package apprun

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/appscript"
)

// TestInlineTry: a script without platform calls finishes inline with its value; one whose first
// platform call is caught by the script is still handed over (its result discarded); a script that
// outlasts the budget is handed over once the budget runs out.
func TestInlineTry(t *testing.T) {
	t.Parallel()
	in := &Inline{Engine: ScriptEngine{Engine: appscript.New(appscript.DefaultLimits())}, Budget: 50 * time.Millisecond}
	env := Env{Permissions: []string{"read:appdata"}, Args: json.RawMessage(`{"n":41}`), Ctx: json.RawMessage(`{}`)}

	res, ok := in.try(context.Background(), Script{Name: "pure", Source: "const n: number = args.n;\nreturn n + 1;"}, env)
	require.True(t, ok)
	require.Empty(t, res.Error)
	require.JSONEq(t, "42", string(res.Value))

	caught := "let got = 'none';\ntry { got = await appKV.get('k'); } catch (e) { got = 'caught'; }\nreturn got;"
	_, ok = in.try(context.Background(), Script{Name: "caught", Source: caught}, env)
	require.False(t, ok, "a platform call hands the run over even when the script catches its error")

	start := time.Now()
	_, ok = in.try(context.Background(), Script{Name: "spin", Source: "while (true) {}\nreturn 1;"}, env)
	require.False(t, ok, "a script outlasting the budget is handed over")
	require.Less(t, time.Since(start), 5*time.Second, "the budget interrupts the script")
}
