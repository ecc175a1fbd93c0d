package api

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/dbtransfer"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// databaseTransfersAPI serves the portable copies of the account's managed database (seed 000's ordered
// flow: create transfer, upload each part, complete; then read transfer, download archive; or cancel).
type databaseTransfersAPI struct {
	// transfers is nil on a server without a database cluster or blob store: the routes answer 503.
	transfers *dbtransfer.Service
	log       *slog.Logger
}

// errNoTransfers answers the transfer routes of a server that cannot move them.
var errNoTransfers = svcerr.New(svcerr.Unavailable, "database transfers are not configured on this server (no database cluster or blob store)")

type createTransferInput struct {
	Body client.CreateDatabaseTransferRequest
}

type transferIDInput struct {
	TransferID string `path:"transferId" maxLength:"200" doc:"The transfer id (xfer_...)."`
}

type putPartInput struct {
	TransferID    string `path:"transferId" maxLength:"200" doc:"The transfer id (xfer_...)."`
	PartNumber    string `path:"partNumber" maxLength:"5" doc:"The part's number, 1 to 10000: the parts 1..N, concatenated, form the archive."`
	ContentSHA256 string `header:"X-Content-Sha256" doc:"Optional hex SHA-256 of the part; a mismatch stores nothing."`
	ContentType   string `header:"Content-Type" doc:"application/zip."`
}

// transferOut is a transfer answer whose status the handler chooses (201, 202 or 200).
type transferOut struct {
	Status int
	Body   client.DatabaseTransferEnvelope
}

// partOut answers a part: 201 when accepted now, 200 when the same bytes were accepted before.
type partOut struct {
	Status int
	Body   client.DatabaseTransferPartEnvelope
}

// archiveOut is the streamed answer of GET …/archive.
type archiveOut struct {
	ContentType        string `header:"Content-Type" doc:"application/zip."`
	ContentLength      int64  `header:"Content-Length" doc:"The archive's size."`
	SHA256             string `header:"X-Content-Sha256" doc:"Hex SHA-256 of the archive."`
	PublicKey          string `header:"X-Svc-Archive-Public-Key" doc:"The Ed25519 public key (standard base64) whose signature the archive carries; GET /v1/health publishes it too."`
	ETag               string `header:"ETag" doc:"The archive's SHA-256, quoted."`
	ContentDisposition string `header:"Content-Disposition" doc:"attachment; filename=<transferId>.zip."`
	Body               func(huma.Context)
}

func (ta *databaseTransfersAPI) transferAnswer(ctx context.Context, t *schema.DatabaseTransfer, status int) (*transferOut, error) {
	w, err := ta.transfers.Wire(ctx, t)
	if err != nil {
		return nil, err
	}
	return &transferOut{Status: status, Body: client.DatabaseTransferEnvelope{OK: true, Transfer: w}}, nil
}

// createTransfer records an export or import and starts its workflow.
func (ta *databaseTransfersAPI) createTransfer(ctx context.Context, in *createTransferInput) (*transferOut, error) {
	if in.Body.Kind == client.TransferKindExport && in.Body.AllowUnsigned {
		return nil, svcerr.Invalid("allowUnsigned", "allowUnsigned applies only to an import")
	}
	if ta.transfers == nil {
		return nil, errNoTransfers
	}
	t, err := ta.transfers.Create(ctx, newID(ctx, ids.DatabaseTransfer), principalFrom(ctx).Scope.AccountID, in.Body.Kind, in.Body.AllowUnsigned)
	if err != nil {
		return nil, err
	}
	return ta.transferAnswer(ctx, t, http.StatusCreated)
}

// getTransfer answers a transfer: status, progress, parts and archive.
func (ta *databaseTransfersAPI) getTransfer(ctx context.Context, in *transferIDInput) (*transferOut, error) {
	if ta.transfers == nil {
		return nil, errNoTransfers
	}
	t, err := ta.transfers.Store.Get(ctx, principalFrom(ctx).Scope.AccountID, in.TransferID)
	if err != nil {
		return nil, err
	}
	return ta.transferAnswer(ctx, t, http.StatusOK)
}

// putPart streams one part of an import into the blob store.
func (ta *databaseTransfersAPI) putPart(ctx context.Context, in *putPartInput) (*partOut, error) {
	n, err := strconv.Atoi(in.PartNumber)
	if err != nil || n < 1 || n > client.MaxTransferParts {
		return nil, svcerr.Invalid("partNumber", "partNumber must be a whole number from 1 to %d", client.MaxTransferParts)
	}
	if mt, _, err := mime.ParseMediaType(in.ContentType); err != nil || mt != client.MediaTypeZip {
		return nil, &svcerr.Error{Code: svcerr.UnsupportedMediaType, Param: "Content-Type",
			Message: "a part is sent as Content-Type application/zip"}
	}
	sum := strings.ToLower(in.ContentSHA256)
	if sum != "" && !isSHA256Hex(sum) {
		return nil, svcerr.Invalid("X-Content-Sha256", "X-Content-Sha256 is the part's SHA-256 in 64 hex digits")
	}
	body, length := rawBodyFrom(ctx)
	if body == nil || length < 0 {
		return nil, svcerr.Invalid("Content-Length", "a part declares its size in Content-Length (chunked bodies are refused)")
	}
	if ta.transfers == nil {
		return nil, errNoTransfers
	}
	part, created, err := ta.transfers.Store.PutPart(ctx, dbtransfer.Part{AccountID: principalFrom(ctx).Scope.AccountID,
		TransferID: in.TransferID, Number: n, Length: length, SHA256: sum, Body: body})
	if errors.Is(err, dbtransfer.ErrShortBody) {
		return nil, svcerr.Invalid("Content-Length", "the body ended before its Content-Length of %d bytes: nothing is stored", length)
	}
	if err != nil {
		return nil, err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return &partOut{Status: status, Body: client.DatabaseTransferPartEnvelope{OK: true, Part: client.DatabaseTransferPart{
		PartNumber: part.PartNumber, Bytes: part.Bytes, SHA256: part.SHA256, CreatedAt: part.CreatedAt}}}, nil
}

// completeTransfer closes an import's part list; the workflow then verifies and restores it.
func (ta *databaseTransfersAPI) completeTransfer(ctx context.Context, in *transferIDInput) (*transferOut, error) {
	if ta.transfers == nil {
		return nil, errNoTransfers
	}
	t, err := ta.transfers.Complete(ctx, principalFrom(ctx).Scope.AccountID, in.TransferID)
	if err != nil {
		return nil, err
	}
	status := http.StatusAccepted
	if t.Status != schema.TransferRunning {
		status = http.StatusOK
	}
	return ta.transferAnswer(ctx, t, status)
}

// cancelTransfer asks the workflow to stop and clean up.
func (ta *databaseTransfersAPI) cancelTransfer(ctx context.Context, in *transferIDInput) (*transferOut, error) {
	if ta.transfers == nil {
		return nil, errNoTransfers
	}
	t, accepted, err := ta.transfers.Cancel(ctx, principalFrom(ctx).Scope.AccountID, in.TransferID)
	if err != nil {
		return nil, err
	}
	status := http.StatusOK
	if accepted {
		status = http.StatusAccepted
	}
	return ta.transferAnswer(ctx, t, status)
}

// archive streams a completed export's archive.
func (ta *databaseTransfersAPI) archive(ctx context.Context, in *transferIDInput) (*archiveOut, error) {
	if ta.transfers == nil {
		return nil, errNoTransfers
	}
	t, rc, err := ta.transfers.Archive(ctx, principalFrom(ctx).Scope.AccountID, in.TransferID)
	if err != nil {
		return nil, err
	}
	out := &archiveOut{ContentType: client.MediaTypeZip, ContentLength: *t.ArchiveBytes, SHA256: *t.ArchiveSHA256,
		PublicKey: ta.transfers.PublicKey, ETag: `"` + *t.ArchiveSHA256 + `"`, ContentDisposition: `attachment; filename="` + t.ID + `.zip"`}
	out.Body = func(hctx huma.Context) {
		defer rc.Close()
		hctx.SetStatus(http.StatusOK)
		if sent, err := io.Copy(hctx.BodyWriter(), rc); err != nil {
			ta.log.Warn("stream database archive", slog.String("requestId", requestIDFrom(ctx)), slog.String("transferId", t.ID),
				slog.Int64("sent", sent), slog.Any("err", err))
		}
	}
	return out, nil
}

// documentPart states in the OpenAPI document that a part's body is raw ZIP bytes.
func documentPart(op *huma.Operation) {
	op.RequestBody = &huma.RequestBody{Required: true, Description: "The part's bytes, raw (Content-Length required).",
		Content: map[string]*huma.MediaType{client.MediaTypeZip: {Schema: &huma.Schema{Type: "string", Format: "binary"}}}}
	if ok := op.Responses["200"]; ok != nil {
		op.Responses["201"] = &huma.Response{Description: "The part is accepted.", Content: ok.Content}
		ok.Description = "The same bytes were accepted under this part number before."
	}
}

// documentArchive states in the OpenAPI document that the archive route answers raw ZIP bytes.
func documentArchive(op *huma.Operation) {
	if resp := op.Responses["200"]; resp != nil {
		resp.Description = "The archive's bytes, streamed."
		resp.Content = map[string]*huma.MediaType{client.MediaTypeZip: {Schema: &huma.Schema{Type: "string", Format: "binary"}}}
	}
}

// documentTransferAccepted adds the 202 answer of a route that hands work to the transfer's workflow.
func documentTransferAccepted(op *huma.Operation) {
	if ok := op.Responses["200"]; ok != nil {
		op.Responses["202"] = &huma.Response{Description: "Accepted: the transfer's workflow works on it; poll GET /v1/databases/transfers/{transferId}.",
			Content: ok.Content}
	}
}

// routes are the database transfer routes.
func (ta *databaseTransfersAPI) routes() []Route {
	const tag = "Database transfers"
	write := func(r Route) Route {
		r.Tag, r.Auth, r.Scope, r.Service, r.Idem = tag, authKey, client.ScopeDatabasesWrite, client.ServiceDatabase, true
		return r
	}
	read := func(r Route) Route {
		r.Tag, r.Auth, r.Scope, r.Service = tag, authKey, client.ScopeDatabasesRead, client.ServiceDatabase
		return r
	}
	const one = "/v1/databases/transfers/{transferId}"
	return []Route{
		handle(write(Route{Op: client.OpDatabasesTransfersCreate, Method: http.MethodPost, Path: "/v1/databases/transfers",
			Summary: "Start an export or an import of the account's database (workflow dbtransfer/<id>)", Lease: time.Minute}), ta.createTransfer),
		handle(write(Route{Op: client.OpDatabasesTransfersPartUpload, Method: http.MethodPut, Path: one + "/parts/{partNumber}",
			Summary: "Upload one part of an import (raw ZIP bytes, streamed)", RawBody: true, Lease: 30 * time.Minute, document: documentPart}), ta.putPart),
		handle(write(Route{Op: client.OpDatabasesTransfersComplete, Method: http.MethodPost, Path: one + "/complete",
			Summary: "Close an import's part list; the workflow verifies and restores the archive", Lease: time.Minute,
			document: documentTransferAccepted}), ta.completeTransfer),
		handle(read(Route{Op: client.OpDatabasesTransfersArchive, Method: http.MethodGet, Path: one + "/archive",
			Summary: "Download a completed export's archive", document: documentArchive}), ta.archive),
		handle(read(Route{Op: client.OpDatabasesTransfersRead, Method: http.MethodGet, Path: one,
			Summary: "Read a transfer: status, progress, parts, archive"}), ta.getTransfer),
		handle(write(Route{Op: client.OpDatabasesTransfersCancel, Method: http.MethodDelete, Path: one,
			Summary: "Cancel a transfer: the workflow stops and deletes its parts and archive", Lease: time.Minute,
			document: documentTransferAccepted}), ta.cancelTransfer),
	}
}
