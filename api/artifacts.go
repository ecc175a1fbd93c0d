package api

import (
	"context"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"

	"github.com/danielgtaylor/huma/v2"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/apikey"
	"github.com/svcplatform/svc/internal/artifact"
	"github.com/svcplatform/svc/internal/page"
)

type listArtifactsInput struct {
	PageQuery
	RunID string `query:"runId" maxLength:"200" doc:"Only artifacts of this run."`
}

// listArtifacts lists the artifacts of the caller's scope, newest first. Artifacts of services the key
// may not use are left out, as if they did not exist.
func (ar *artifactsAPI) listArtifacts(ctx context.Context, in *listArtifactsInput) (*Out[client.ArtifactList], error) {
	pg, err := page.Parse(in.Limit, in.Cursor)
	if err != nil {
		return nil, err
	}
	p := principalFrom(ctx)
	f := artifact.Filter{RunID: in.RunID}
	if g := apikey.GrantsOf(p.Key); !slices.Contains(g.Services, apikey.AllServices) {
		f.Services = append([]string{}, g.Services...)
	}
	rows, next, err := ar.artifacts.List(ctx, p.Scope, f, pg)
	if err != nil {
		return nil, err
	}
	out := client.ArtifactList{OK: true, Artifacts: make([]client.Artifact, 0, len(rows)), NextCursor: next}
	for i := range rows {
		out.Artifacts = append(out.Artifacts, artifact.ToWire(&rows[i]))
	}
	return reply(out)
}

type artifactIDInput struct {
	ArtifactID string `path:"artifactId" maxLength:"200" doc:"The artifact id (art_...)."`
}

// artifactContentOutput is the streamed answer of GET /v1/artifacts/{artifactId}/content: the headers, then
// the bytes copied from the blob store as they are read.
type artifactContentOutput struct {
	ContentType        string `header:"Content-Type" doc:"The artifact's media type."`
	ContentLength      int64  `header:"Content-Length" doc:"The artifact's size in bytes."`
	SHA256             string `header:"X-Content-Sha256" doc:"Hex SHA-256 of the content, to verify the download."`
	ContentDisposition string `header:"Content-Disposition" doc:"attachment, with the artifact's name as filename."`
	Body               func(huma.Context)
}

// artifactContent streams an artifact's bytes. An unknown or foreign id is 404; an artifact of a service
// the key may not use is 403 service_access_denied. The blob is opened (and its size checked) before
// the headers are sent, so a missing blob is a 500 envelope, not a cut answer.
func (ar *artifactsAPI) artifactContent(ctx context.Context, in *artifactIDInput) (*artifactContentOutput, error) {
	p := principalFrom(ctx)
	a, err := ar.artifacts.Get(ctx, p.Scope, in.ArtifactID)
	if err != nil {
		return nil, err
	}
	if err := serviceAccess(apikey.GrantsOf(p.Key), a.ServiceID); err != nil {
		return nil, err
	}
	rc, err := ar.artifacts.Open(ctx, a)
	if err != nil {
		return nil, err
	}
	rid := requestIDFrom(ctx)
	return &artifactContentOutput{
		ContentType: a.ContentType, ContentLength: a.SizeBytes, SHA256: a.SHA256,
		ContentDisposition: mime.FormatMediaType("attachment", map[string]string{"filename": a.Name}),
		Body: func(hctx huma.Context) {
			defer rc.Close()
			hctx.SetStatus(http.StatusOK)
			src := artifact.NewHashingReader(rc)
			n, err := io.Copy(hctx.BodyWriter(), src)
			switch {
			case err != nil:
				// The status is sent: the client sees fewer bytes than Content-Length and the connection
				// closes, which the SDK reports.
				ar.log.Warn("stream artifact", slog.String("requestId", rid), slog.String("artifactId", a.ID),
					slog.Int64("sent", n), slog.Any("err", err))
			case n != a.SizeBytes || src.Sum() != a.SHA256:
				ar.log.Error("artifact blob does not match its recorded size and sha256", slog.String("requestId", rid),
					slog.String("artifactId", a.ID), slog.String("blobKey", a.BlobKey), slog.Int64("size", n))
			}
		},
	}, nil
}

// documentRawContent states in the OpenAPI document that the content route answers raw bytes.
func documentRawContent(op *huma.Operation) {
	resp := op.Responses["200"]
	if resp == nil {
		return
	}
	resp.Description = "The artifact's bytes, streamed."
	resp.Content = map[string]*huma.MediaType{
		"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary"}},
	}
}

// artifactsAPI serves the artifacts runs produced.
type artifactsAPI struct {
	artifacts *artifact.Store
	log       *slog.Logger
}

// routes are the artifacts routes.
func (ar *artifactsAPI) routes() []Route {
	return []Route{
		handle(Route{Op: client.OpArtifactsList, Method: http.MethodGet, Path: "/v1/artifacts", Summary: "List artifacts runs produced, newest first", Tag: "Artifacts",
			Auth: authKey, Scope: client.ScopeArtifactsRead}, ar.listArtifacts),
		handle(Route{Op: client.OpArtifactsContentRead, Method: http.MethodGet, Path: "/v1/artifacts/{artifactId}/content", Summary: "Download an artifact's bytes", Tag: "Artifacts",
			Auth: authKey, Scope: client.ScopeArtifactsRead, document: documentRawContent}, ar.artifactContent),
	}
}
