// Package apprun runs apps' backend scripts (issue 26): a run is a row of app_script_runs and a workflow
// appscript/<runId> whose one activity executes the script in the sandboxed engine (internal/appscript)
// with a Host that performs the script's platform calls as the app's owner, within the manifest's
// permissions. Service is the API side (start, wait, read, list); Runner is the worker side (the
// activity); Host answers the script's calls, each journalled so a retried run repeats no write;
// SyncSchedules turns a manifest's schedule entries into automations.
package apprun

import (
	"context"
	"encoding/json"

	"github.com/svcplatform/svc/internal/tenant"
)

// App is what a run needs of an app: its identity, owner scope and the manifest's permissions and
// declared secrets.
type App struct {
	ID          string
	Slug        string
	Scope       tenant.Scope
	Permissions []string
	Scripts     []string
	Secrets     []string
	// source is the Apps implementation's own record of the app (AppsStore: *apps.App).
	source any
}

// Viewer is who a run reads and writes per-viewer appKV records for: the owner, or a signed-in viewer
// of the app's frontend (AccountID). Anonymous viewers never run scripts.
type Viewer struct {
	AccountID string
	Owner     bool
}

// Apps is what runs need of the apps capability (internal/apps.Store, adapted in app/).
type Apps interface {
	// App reads the scope's app by slug (404 for another account's).
	App(ctx context.Context, scope tenant.Scope, slug string) (*App, error)
	// Script reads the source of the app's script scripts/<name>.ts.
	Script(ctx context.Context, app *App, name string) (string, error)
	// KV performs an appKV call (get, set, list, delete) for the viewer and answers its JSON value.
	KV(ctx context.Context, app *App, v Viewer, op string, args []json.RawMessage) (json.RawMessage, error)
}

// Script is one script to execute.
type Script struct {
	Name   string
	Source string
}

// Env is what a script runs with: the manifest's permissions, its args and ctx globals, and the Host.
type Env struct {
	Permissions []string
	Args        json.RawMessage
	Ctx         json.RawMessage
	Host        Caller
}

// Caller performs a script's platform calls (appscript.Host's method): the run's Host, journalled.
type Caller interface {
	Call(ctx context.Context, method string, args []json.RawMessage) (json.RawMessage, error)
}

// Result is what a script's execution gave.
type Result struct {
	Value     json.RawMessage
	Log       []string
	Error     string
	HostCalls int
}

// Engine executes scripts in the sandbox (internal/appscript.Engine, adapted in app/); its error is a
// fault of the engine itself, a script's own failure is Result.Error.
type Engine interface {
	Run(ctx context.Context, s Script, env Env) (Result, error)
}
