package app

import (
	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/internal/agent"
	"github.com/svcplatform/svc/internal/agentenv"
	"github.com/svcplatform/svc/internal/apprun"
	"github.com/svcplatform/svc/internal/apps"
	"github.com/svcplatform/svc/internal/appscript"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
)

// appRunService starts and reads app script runs over the API's apps store (nil without Temporal:
// the routes answer 503). Every run is its workflow appscript/<runId>; with AppInlineRuns, a run that
// makes no platform call executes in the API process instead.
func appRunService(d APIDeps, store *apps.Store) *apprun.Service {
	if d.Temporal == nil {
		return nil
	}
	s := &apprun.Service{DB: d.DB, Engine: d.Temporal, Apps: apprun.AppsStore{Store: store}}
	if d.AppInlineRuns {
		s.Inline = &apprun.Inline{Engine: apprun.ScriptEngine{Engine: appscript.New(appscript.DefaultLimits())}}
	}
	return s
}

// appScriptActivities run app scripts in the sandboxed engine with the Host's platform calls: the API
// engine as the run's key (AgentDispatch), the account's environment variables, agent jobs, chain reads.
func appScriptActivities(d WorkerDeps) *activities.AppScripts {
	deps := apprun.HostDeps{Dispatch: d.AgentDispatch, AllowLoopback: d.AllowLoopback}
	if a := workerApps(d); a != nil {
		deps.Apps = a
	}
	if d.DB != nil && d.Box != nil {
		deps.Secrets = agentEnvValues{agentenv.NewStore(d.DB, d.Box, AgentURLGuard(d.AllowLoopback))}
	}
	if d.Temporal != nil {
		deps.Agent = &agent.Service{DB: d.DB, Engine: d.Temporal}
	}
	if d.Chain != nil {
		deps.Chain = d.Chain.Client().Client() // svc.chain reads, on the worker's chain connection
	}
	if t := workerTokenInfo(d); t != nil {
		deps.Tokens = t
	}
	r := &apprun.Runner{DB: d.DB, Engine: apprun.ScriptEngine{Engine: appscript.New(appscript.DefaultLimits())}, Host: deps}
	if d.Fault == activities.FaultAppScriptStallAfterCall {
		r.AfterJournal = activities.StallUntilDone
	}
	return &activities.AppScripts{Runner: r}
}

// workerApps is the worker's apps store as runs' Apps (nil without a database or blob store).
func workerApps(d WorkerDeps) apprun.Apps {
	if d.DB == nil || d.Blobs == nil {
		return nil
	}
	files := file.NewStore(d.DB, d.Files)
	var purges *file.Purges // an appKV write supersedes data/<key>.json: the old file's purge is scheduled
	if d.Temporal != nil {
		purges = &file.Purges{Store: files, Engine: d.Temporal}
	}
	return apprun.AppsStore{Store: apps.NewStore(d.DB, files, blob.WithPrefix(d.Blobs, FilePrefix), purges, nil)}
}

// scheduledAppScripts records the runs of app script automations' fires (nil without the apps store or
// a workflow engine: their fires fail and are retried).
func scheduledAppScripts(d WorkerDeps) automation.AppScripts {
	a := workerApps(d)
	if a == nil || d.Temporal == nil {
		return nil
	}
	return apprun.Scheduled{DB: d.DB, Apps: a}
}
