package api

import (
	"context"
	"net/http"
	"time"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/accountdb"
	"github.com/svcplatform/svc/internal/svcerr"
)

// databaseQueryAPI serves the managed database's queries, records and actions, on connections of the
// caller's account database opened through conn (the reader role for queries and records, the owner
// for actions).
type databaseQueryAPI struct {
	conn accountdb.Connector
	// limits bound each query, records page and action (zero fields: accountdb's defaults).
	limits accountdb.Limits
}

// errNoDatabases answers the routes of a server without managed databases.
var errNoDatabases = svcerr.New(svcerr.Unavailable, "managed databases are not configured on this server")

// databaseQueryInput is a query or a records page.
type databaseQueryInput struct {
	Body client.DatabaseQueryRequest
}

// query runs the caller's read-only statement, or answers a page of a table's records when the body
// names a table instead.
func (da *databaseQueryAPI) query(ctx context.Context, in *databaseQueryInput) (*Out[client.DatabaseQueryResult], error) {
	if da.conn == nil {
		return nil, errNoDatabases
	}
	req := in.Body
	if err := checkQueryShape(&req); err != nil {
		return nil, err
	}
	db, err := da.conn.Open(ctx, principalFrom(ctx).Scope.AccountID, accountdb.Reader)
	if err != nil {
		return nil, err
	}
	var res *client.DatabaseQueryResult
	if req.Table != "" {
		res, err = accountdb.Records(ctx, db, req, da.limits)
	} else {
		res, err = accountdb.Query(ctx, db, req, da.limits)
	}
	if err != nil {
		return nil, err
	}
	return reply(*res)
}

// checkQueryShape refuses a body that is neither a query nor a records request, or mixes the two.
func checkQueryShape(req *client.DatabaseQueryRequest) error {
	switch {
	case req.SQL == "" && req.Table == "":
		return svcerr.Invalid("sql", "a query names its statement in sql, or a table to browse in table")
	case req.SQL != "" && req.Table != "":
		return svcerr.Invalid("table", "sql and table are exclusive: a query or a records page")
	case req.SQL != "" && (req.Where != nil || req.OrderBy != "" || req.Cursor != "" || req.Limit != 0):
		return svcerr.Invalid("sql", "where, orderBy, cursor and limit belong to records (table), not to a query")
	case req.Table != "" && (req.Params != nil || req.MaxRows != 0):
		return svcerr.Invalid("table", "params and maxRows belong to a query (sql), not to records")
	}
	return nil
}

// databaseActionInput is an action.
type databaseActionInput struct {
	Body client.DatabaseActionRequest
}

// act runs an action as the owner, in one transaction.
func (da *databaseQueryAPI) act(ctx context.Context, in *databaseActionInput) (*Out[client.DatabaseActionResult], error) {
	if da.conn == nil {
		return nil, errNoDatabases
	}
	db, err := da.conn.Open(ctx, principalFrom(ctx).Scope.AccountID, accountdb.Owner)
	if err != nil {
		return nil, err
	}
	res, err := accountdb.Act(ctx, db, in.Body, da.limits)
	if err != nil {
		return nil, err
	}
	return reply(*res)
}

// routes are the query, records and action routes; each needs service access to svc-database.
func (da *databaseQueryAPI) routes() []Route {
	lease := accountdb.DefaultTimeout + 30*time.Second
	return []Route{
		handle(Route{Op: client.OpDatabasesQuery, Method: http.MethodPost, Path: "/v1/databases/query", Summary: "Query the account's database, or browse a table's records",
			Tag: "Databases", Auth: authKey, Scope: client.ScopeDatabasesRead, Service: client.ServiceDatabase,
			FreeText: []string{"sql", "params", "where"}, Reads: true}, da.query),
		handle(Route{Op: client.OpDatabasesActions, Method: http.MethodPost, Path: "/v1/databases/actions", Summary: "Change the account database's data or structure",
			Tag: "Databases", Auth: authKey, Scope: client.ScopeDatabasesWrite, Service: client.ServiceDatabase, Idem: true, Lease: lease,
			FreeText: []string{"sql", "statements", "rows"}}, da.act),
	}
}
