package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/svcplatform/svc/client"
)

// artifactsHelp is the help of "svc artifacts".
const artifactsHelp = `Usage: svc artifacts <list|download> [flags]

Artifacts are the files and outputs runs produce. Reading them needs scope artifacts:read and access to
the service of the run that produced them.

  artifacts list       list artifacts, newest first
  artifacts download   download an artifact's content, verified against its SHA-256

Run "svc artifacts <command> --help" for details.`

// artifactsCommands are the commands of artifacts, "svc artifacts ...".
func artifactsCommands() []command {
	return []command{
		{name: "artifacts", help: artifactsHelp},
		{name: "artifacts list", run: (*app).artifactsList, help: artifactsListHelp,
			brief: "list the files and outputs runs produced"},
		{name: "artifacts download", run: (*app).artifactsDownload, help: artifactsDownloadHelp,
			brief: "download an artifact, verified against its SHA-256"},
	}
}

// artifactsListHelp is the help of "svc artifacts list".
const artifactsListHelp = `Usage: svc artifacts list [--run RUN_ID] [--limit N] [--cursor C] [--all]

Lists the artifacts of the selected project (or of none), newest first (scope artifacts:read).
Artifacts of services the key may not use are left out.

  --run RUN_ID   only the artifacts of this run
  --limit N      page size 1..200 (default 50)
  --cursor C     the nextCursor of the previous page (repeat the same filters)
  --all          follow nextCursor through every page

` + globalFlagsHelp

// artifactsList lists artifacts, optionally of one run.
func (a *app) artifactsList(args []string) int {
	const cmd = "artifacts list"
	flags := a.commandFlags(cmd, nil)
	var (
		pf    pageFlags
		runID string
	)
	flags.StringVar(&runID, "run", "", "only artifacts of this run")
	if code, ok := a.parsePaged(cmd, flags, &pf, args); !ok {
		return code
	}
	if flagsGiven(flags)["run"] && strings.TrimSpace(runID) == "" {
		return a.usageError(cmd, "--run must not be empty")
	}
	items, next, code, done := collectPages(a, pf,
		func(c *client.Client, p client.ListParams) client.Response[client.ArtifactList] {
			return c.ListArtifacts(a.ctx, client.ListArtifactsParams{ListParams: p, RunID: runID})
		},
		func(l client.ArtifactList) ([]client.Artifact, *string) { return l.Artifacts, l.NextCursor })
	if done {
		return code
	}
	if a.listShown(client.ArtifactList{OK: true, Artifacts: orEmpty(items), NextCursor: next}, len(items), "No artifacts.") {
		return exitOK
	}
	tw := a.table()
	fmt.Fprintln(tw, "ID\tNAME\tRUN\tSERVICE\tTYPE\tSIZE\tCREATED")
	for _, it := range items {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", it.ID, oneLine(it.Name, 40), it.RunID, it.ServiceID,
			oneLine(it.ContentType, 30), client.FormatBytes(it.SizeBytes), it.CreatedAt.UTC().Format(time.RFC3339))
	}
	_ = tw.Flush()
	var filters []string
	if runID != "" {
		filters = append(filters, "--run", shellQuote(runID))
	}
	if pf.limit != 0 {
		filters = append(filters, "--limit", fmt.Sprint(pf.limit))
	}
	a.moreHint("artifacts", cmd, filters, next)
	return exitOK
}

// downloadResult is what --json prints after a download to a file.
type downloadResult struct {
	OK       bool             `json:"ok"`
	Artifact downloadedObject `json:"artifact"`
}

type downloadedObject struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	ContentType string `json:"contentType"`
	SizeBytes   int64  `json:"sizeBytes"`
	SHA256      string `json:"sha256"`
	Path        string `json:"path"`
}

// artifactsDownloadHelp is the help of "svc artifacts download".
const artifactsDownloadHelp = `Usage: svc artifacts download ARTIFACT_ID [--output FILE|DIR|-] [--force]

Downloads an artifact's content (scope artifacts:read and access to the run's service). The bytes go to
a temporary file beside the destination, are checked against the size and SHA-256 the server announces,
and only then take the destination's name: a failed or tampered download leaves nothing behind. A
progress bar is shown on stderr for content over 1 MiB when stderr is a terminal.

  --output FILE   write to FILE (default: the artifact's name in the current directory)
  --output DIR    write to the artifact's name in the existing directory DIR
  --output -      write the content to stdout (verified at the end; exit 1 if it does not match)
  --force         overwrite an existing file (by default svc refuses)

` + globalFlagsHelp

// artifactsDownload downloads an artifact's content to a file (atomically, after verifying it) or to
// stdout.
func (a *app) artifactsDownload(args []string) int {
	const cmd = "artifacts download"
	var (
		output string
		force  bool
	)
	flags := a.commandFlags(cmd, nil)
	flags.StringVar(&output, "output", "", "file, directory or - (stdout) to write to")
	flags.BoolVar(&force, "force", false, "overwrite an existing file")
	id, code, ok := a.parseID(idSpec{cmd: cmd, what: "artifact"}, flags, args)
	if !ok {
		return code
	}
	if flagsGiven(flags)["output"] && output == "" {
		return a.usageError(cmd, "--output must not be empty")
	}
	dir, dest := ".", ""
	switch {
	case output == "-":
	case output == "":
	case isDir(output):
		dir = output
	default:
		dest = output
		if !force && exists(dest) {
			return a.localError("file_exists", fmt.Sprintf("%s exists; use --force to overwrite it", dest))
		}
	}
	_, s, code, ok := a.authedClient()
	if !ok {
		return code
	}
	c := a.newClient(s, client.WithHTTPClient(downloadHTTPClient()))

	guard := a.guardDownload()
	defer guard.stop()

	resp := c.OpenArtifact(guard.ctx, id)
	if !resp.OK {
		return apiFailure(a, resp)
	}
	content := resp.Body
	defer func() { _ = content.Body.Close() }()
	if output != "-" && dest == "" {
		name, msg := safeFileName(content.Name)
		if msg != "" {
			return a.localError("invalid_name", msg+"; give the file name with --output")
		}
		dest = filepath.Join(dir, name)
		if !force && exists(dest) {
			return a.localError("file_exists", fmt.Sprintf("%s exists; use --force to overwrite it", dest))
		}
	}
	bar := a.progressFor(content.SizeBytes)
	progress := guard.progress(bar)
	if output == "-" {
		err := copyWithProgress(a.stdout, content, progress)
		bar.finish()
		return a.downloadFailure(guard.ctx, err)
	}
	if code := a.saveVerified(guard.ctx, content, dest, force, bar, progress); code != exitOK {
		return code
	}
	if a.g.json {
		a.printJSON(downloadResult{OK: true, Artifact: downloadedObject{ID: content.ID, Name: content.Name,
			ContentType: content.ContentType, SizeBytes: content.SizeBytes, SHA256: content.SHA256, Path: dest}})
		return exitOK
	}
	fmt.Fprintf(a.stdout, "Downloaded artifact %s to %s (%s, sha256 %s verified).\n", content.ID, dest,
		client.FormatBytes(content.SizeBytes), content.SHA256)
	return exitOK
}
