package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// appsHelp is the help of "svc apps".
const appsHelp = `Usage: svc apps <create|list|get|share|delete|run|logs|open> [flags]

Apps (seed 002): a folder with manifest.json, index.html, scripts/<name>.ts, data/<key>.json and
designs/<name>, stored in the files capability under /apps/<slug>/. See README.md "Build an app" for the
manifest's rules.

  apps create   create an app from its folder
  apps list     list the apps
  apps get      show an app: manifest, sharing and files
  apps share    set an app's sharing: private, unlisted or public
  apps delete   delete an app with its files and records
  apps run      run an app's script as its owner
  apps logs     list an app's script runs, or show one
  apps open     print a link that opens an app's page signed in as its owner

Run "svc apps <command> --help" for details.`

// appsCommands are the commands of apps, "svc apps ...".
func appsCommands() []command {
	return []command{
		{name: "apps", help: appsHelp},
		{name: "apps create", args: "DIR", run: (*app).appsCreate, help: appsCreateHelp, brief: "create an app from its folder (zipped and uploaded)"},
		{name: "apps list", run: (*app).appsList, help: appsListHelp, brief: "list the apps"},
		{name: "apps get", args: "SLUG", run: (*app).appsGet, help: appsGetHelp, brief: "show an app: manifest, sharing and files"},
		{name: "apps share", args: "SLUG MODE", run: (*app).appsShare, help: appsShareHelp, brief: "set an app's sharing (private, unlisted, public)"},
		{name: "apps delete", args: "SLUG", run: (*app).appsDelete, help: appsDeleteHelp, brief: "delete an app with its files and records"},
	}
}

// appsCreateHelp is the help of "svc apps create".
const appsCreateHelp = `Usage: svc apps create DIR

Zips the app folder DIR (hidden files and folders, such as .git, are left out) and creates the app
(scope runs:write, service managed-agents). Every rule of the manifest is checked before anything is
stored; a refusal names the field, e.g. permissions[2].

` + globalFlagsHelp

// appsCreate zips a folder and creates the app.
func (a *app) appsCreate(args []string) int {
	const cmd = "apps create"
	var idemKey string
	fset := a.commandFlags(cmd, &idemKey)
	dir, code, ok := a.parseID(idSpec{cmd: cmd, what: "folder"}, fset, args)
	if !ok {
		return code
	}
	archive, err := zipFolder(dir, "manifest.json", "an app folder")
	if err != nil {
		return a.usageError(cmd, "%s", err)
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.CreateAppZip(a.ctx, archive, idemOpts(idemKey)...), func(r client.Response[client.AppEnvelope]) {
		fmt.Fprintf(a.stdout, "Created app %s (%s), %d files, sharing %s.\n", r.Body.App.Slug, r.Body.App.ID, len(r.Body.App.Files), r.Body.App.Sharing)
	})
}

// appsListHelp is the help of "svc apps list".
const appsListHelp = `Usage: svc apps list

Lists the apps of the key's scope, newest first (scope runs:read).

` + globalFlagsHelp

// appsList lists the apps.
func (a *app) appsList(args []string) int {
	const cmd = "apps list"
	fset := a.commandFlags(cmd, nil)
	if code, ok := a.parseNone(cmd, fset, args); !ok {
		return code
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.ListApps(a.ctx, client.ListParams{Limit: 200}), func(r client.Response[client.AppList]) {
		if len(r.Body.Apps) == 0 {
			fmt.Fprintln(a.stdout, "No apps.")
			return
		}
		tw := a.table()
		fmt.Fprintln(tw, "SLUG\tSHARING\tTITLE\tUPDATED")
		for _, app := range r.Body.Apps {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", app.Slug, app.Sharing, app.Manifest.Title, app.UpdatedAt.UTC().Format(time.RFC3339))
		}
		_ = tw.Flush()
	})
}

// appsGetHelp is the help of "svc apps get".
const appsGetHelp = `Usage: svc apps get SLUG

Shows an app: its sharing, manifest and files (scope runs:read).

` + globalFlagsHelp

// appsGet shows one app.
func (a *app) appsGet(args []string) int {
	return oneID(a, idSpec{cmd: "apps get", what: "app slug"}, args,
		func(c *client.Client, slug string, _ []client.CallOption) client.Response[client.AppEnvelope] {
			return c.GetApp(a.ctx, slug)
		}, a.showApp)
}

// showApp prints an app: its fields, permissions, scripts and files.
func (a *app) showApp(r client.Response[client.AppEnvelope]) {
	app := r.Body.App
	m := app.Manifest
	fmt.Fprintf(a.stdout, "App %s (%s), sharing %s\n", app.Slug, app.ID, app.Sharing)
	fmt.Fprintf(a.stdout, "Title: %s\nPermissions: %s\nScripts: %s\nFrontend identity: %s\n", m.Title,
		strings.Join(m.Permissions, ", "), strings.Join(m.Scripts, ", "), m.FrontendIdentity)
	tw := a.table()
	fmt.Fprintln(tw, "PATH\tBYTES\tUPDATED")
	for _, f := range app.Files {
		fmt.Fprintf(tw, "%s\t%d\t%s\n", f.Path, f.Bytes, f.UpdatedAt.UTC().Format(time.RFC3339))
	}
	_ = tw.Flush()
}

// appsShareHelp is the help of "svc apps share".
const appsShareHelp = `Usage: svc apps share SLUG private|unlisted|public

Sets an app's sharing (scope runs:write): private (only you), unlisted (anyone with its URL) or public
(also listed in the directory, GET /v1/apps/public).

` + globalFlagsHelp

// appsShare sets the sharing of an app.
func (a *app) appsShare(args []string) int {
	const cmd = "apps share"
	var idemKey string
	fset := a.commandFlags(cmd, &idemKey)
	pos, code, ok := a.parse(cmd, fset, args)
	if !ok {
		return code
	}
	if len(pos) != 2 || pos[0] == "" {
		return a.usageError(cmd, "apps share takes SLUG and one of private, unlisted, public")
	}
	switch pos[1] {
	case client.AppSharingPrivate, client.AppSharingUnlisted, client.AppSharingPublic:
	default:
		return a.usageError(cmd, "sharing %q is not private, unlisted or public", pos[1])
	}
	c, _, code, ok := a.authedClient()
	if !ok {
		return code
	}
	return answer(a, c.ShareApp(a.ctx, pos[0], pos[1], idemOpts(idemKey)...), func(r client.Response[client.AppEnvelope]) {
		fmt.Fprintf(a.stdout, "App %s is now %s.\n", r.Body.App.Slug, r.Body.App.Sharing)
	})
}

// appsDeleteHelp is the help of "svc apps delete".
const appsDeleteHelp = `Usage: svc apps delete SLUG

Deletes an app (scope runs:write): its row, its appKV records and its files (purged 24 hours later).

` + globalFlagsHelp

// appsDelete deletes one app.
func (a *app) appsDelete(args []string) int {
	return oneID(a, idSpec{cmd: "apps delete", what: "app slug", idem: true}, args,
		func(c *client.Client, slug string, opts []client.CallOption) client.Response[client.AppEnvelope] {
			return c.DeleteApp(a.ctx, slug, opts...)
		},
		func(r client.Response[client.AppEnvelope]) {
			fmt.Fprintf(a.stdout, "Deleted app %s.\n", r.Body.App.Slug)
		})
}
