package app

import (
	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/internal/agent"
	"github.com/svcplatform/svc/internal/agentenv"
	"github.com/svcplatform/svc/internal/apprun"
	"github.com/svcplatform/svc/internal/appscript"
)

// appRunApps is the apps capability as runs see it: nil until the apps capability (issue 26,
// internal/apps) is wired here, which answers the run routes 503 and fails runs' activities (retried).
var appRunApps apprun.Apps

// appRunService starts and reads app script runs (nil without Temporal: the routes answer 503).
func appRunService(d APIDeps) *apprun.Service {
	if d.Temporal == nil || appRunApps == nil {
		return nil
	}
	return &apprun.Service{DB: d.DB, Engine: d.Temporal, Apps: appRunApps}
}

// appScriptActivities run app scripts in the sandboxed engine with the Host's platform calls: the API
// engine as the run's key (AgentDispatch), the account's environment variables, agent jobs.
func appScriptActivities(d WorkerDeps) *activities.AppScripts {
	deps := apprun.HostDeps{Apps: appRunApps, Dispatch: d.AgentDispatch, AllowLoopback: d.AllowLoopback}
	if d.DB != nil && d.Box != nil {
		deps.Secrets = agentEnvValues{agentenv.NewStore(d.DB, d.Box, AgentURLGuard(d.AllowLoopback))}
	}
	if d.Temporal != nil {
		deps.Agent = &agent.Service{DB: d.DB, Engine: d.Temporal}
	}
	r := &apprun.Runner{DB: d.DB, Engine: apprun.ScriptEngine{Engine: appscript.New(appscript.DefaultLimits())}, Host: deps}
	if d.Fault == activities.FaultAppScriptStallAfterCall {
		r.AfterJournal = activities.StallUntilDone
	}
	return &activities.AppScripts{Runner: r}
}
