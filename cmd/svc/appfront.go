package main

import (
	"fmt"

	"github.com/svcplatform/svc/client"
)

const appsOpenHelp = `Usage: svc apps open SLUG

Prints a link that opens your app's page in a browser signed in as you, its owner (POST
/v1/apps/{slug}/open; scope runs:read, service managed-agents): following it within 2 minutes sets an
HttpOnly cookie for the app's pages (/apps/{owner}/{slug}/, 12 hours) and redirects there. This is how
an owner opens a private app; unlisted and public apps open at their page address without signing in.

` + globalFlagsHelp

// appFrontCommands are the app frontends' commands ("svc apps open"; the "apps" group's entry is the
// apps capability's, cmd/svc/apps.go).
func appFrontCommands() []command {
	return []command{
		{name: "apps open", args: "SLUG", run: (*app).appsOpen, help: appsOpenHelp, brief: "print a link that opens an app's page signed in as its owner"},
	}
}

// appsOpen prints the app's open link and its page address.
func (a *app) appsOpen(args []string) int {
	const cmd = "apps open"
	fs := a.commandFlags(cmd, nil)
	pos, code, ok := a.parse(cmd, fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 || pos[0] == "" {
		return a.usageError(cmd, "apps open takes an app's slug")
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.OpenApp(a.ctx, pos[0]), func(r client.Response[client.AppOpenLink]) {
		fmt.Fprintln(a.stdout, r.Body.URL)
		fmt.Fprintf(a.stderr, "open it within 2 minutes (until %s); the app's page is %s\n",
			r.Body.ExpiresAt.Local().Format("15:04:05"), r.Body.PageURL)
	})
}
