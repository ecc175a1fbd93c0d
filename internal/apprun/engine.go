package apprun

import (
	"context"

	"github.com/svcplatform/svc/internal/appscript"
)

// ScriptEngine is the sandboxed engine (internal/appscript) as runs' Engine.
type ScriptEngine struct {
	Engine *appscript.Engine
}

// Run implements Engine.
func (s ScriptEngine) Run(ctx context.Context, sc Script, env Env) (Result, error) {
	res, err := s.Engine.Run(ctx, appscript.Script{Name: "scripts/" + sc.Name + ".ts", Source: sc.Source},
		appscript.Env{Permissions: env.Permissions, Args: env.Args, Ctx: env.Ctx, Host: env.Host})
	return Result{Value: res.Value, Log: res.Log, Error: res.Error, HostCalls: res.HostCalls}, err
}
