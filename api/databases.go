package api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/svcerr"
)

// databasesAPI serves the account's managed database: provision, status and structure, deprovision
// (seed 000's table "Managed databases"; every route needs service access to svc-database).
type databasesAPI struct {
	// databases is nil on a server built without a database cluster: its routes answer 503.
	databases *accountdb.Service
}

// databaseOut is a database answer: 202 while the workflow works, 200 when it has nothing to do.
type databaseOut struct {
	Status int
	Body   client.DatabaseEnvelope
}

// deprovisionDatabaseInput is the body of DELETE /v1/databases/account.
type deprovisionDatabaseInput struct {
	Body client.DeprovisionDatabaseRequest
}

// errNoCluster answers the database routes of a server built without a database cluster.
var errNoCluster = svcerr.New(svcerr.Unavailable, "managed databases are not configured on this server")

// answer makes the envelope of info, 202 when accepted.
func answer(info *accountdb.Info, accepted bool) (*databaseOut, error) {
	status := http.StatusOK
	if accepted {
		status = http.StatusAccepted
	}
	return &databaseOut{Status: status, Body: client.DatabaseEnvelope{OK: true, Database: accountdb.ToWire(info)}}, nil
}

// provisionDatabase provisions the account's database through its workflow, or answers the existing one.
func (da *databasesAPI) provisionDatabase(ctx context.Context, _ *struct{}) (*databaseOut, error) {
	if da.databases == nil {
		return nil, errNoCluster
	}
	info, accepted, err := da.databases.Provision(ctx, principalFrom(ctx).Scope.AccountID)
	if err != nil {
		return nil, err
	}
	return answer(info, accepted)
}

// getDatabase answers the account's database: status, size and structure.
func (da *databasesAPI) getDatabase(ctx context.Context, _ *struct{}) (*Out[client.DatabaseEnvelope], error) {
	if da.databases == nil {
		return nil, errNoCluster
	}
	info, err := da.databases.Cluster.Status(ctx, principalFrom(ctx).Scope.AccountID)
	if err != nil {
		return nil, err
	}
	return reply(client.DatabaseEnvelope{OK: true, Database: accountdb.ToWire(info)})
}

// deprovisionDatabase drops the account's database through its workflow, once confirmed.
func (da *databasesAPI) deprovisionDatabase(ctx context.Context, in *deprovisionDatabaseInput) (*databaseOut, error) {
	if in.Body.Confirmation != client.ConfirmDeprovisionDatabase {
		return nil, svcerr.Invalid("confirmation", "deprovisioning drops the database and every row in it: confirmation must be %q",
			client.ConfirmDeprovisionDatabase)
	}
	if da.databases == nil {
		return nil, errNoCluster
	}
	info, accepted, err := da.databases.Deprovision(ctx, principalFrom(ctx).Scope.AccountID)
	if err != nil {
		return nil, err
	}
	return answer(info, accepted)
}

// documentAccepted adds the 202 answer of a route that answers 200 when it has nothing to do.
func documentAccepted(op *huma.Operation) {
	if ok := op.Responses["200"]; ok != nil {
		op.Responses["202"] = &huma.Response{Description: "Accepted: the database workflow works on it; poll GET /v1/databases/account.",
			Content: ok.Content}
	}
}

// routes are the managed database's account routes.
func (da *databasesAPI) routes() []Route {
	return []Route{
		handle(Route{Op: client.OpDatabasesAccountRead, Method: http.MethodGet, Path: "/v1/databases/account",
			Summary: "Read the account's database: status, size and structure", Tag: "Databases",
			Auth: authKey, Scope: client.ScopeDatabasesRead, Service: client.ServiceDatabase}, da.getDatabase),
		handle(Route{Op: client.OpDatabasesAccountProvision, Method: http.MethodPost, Path: "/v1/databases/account",
			Summary: "Provision the account's database (idempotent)", Tag: "Databases", Auth: authKey, Scope: client.ScopeDatabasesWrite,
			Service: client.ServiceDatabase, Idem: true, Lease: time.Minute, document: documentAccepted}, da.provisionDatabase),
		handle(Route{Op: client.OpDatabasesAccountDeprovision, Method: http.MethodDelete, Path: "/v1/databases/account",
			Summary: "Deprovision the account's database (drops it and its roles)", Tag: "Databases", Auth: authKey,
			Scope: client.ScopeDatabasesWrite, Service: client.ServiceDatabase, Idem: true, Lease: time.Minute, document: documentAccepted},
			da.deprovisionDatabase),
	}
}
