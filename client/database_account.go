package client

import (
	"context"
	"net/http"
	"time"
)

// Statuses of an account's managed database.
const (
	DatabaseStatusProvisioning   = "provisioning"
	DatabaseStatusReady          = "ready"
	DatabaseStatusDeprovisioning = "deprovisioning"
	DatabaseStatusDeleted        = "deleted"
)

// DatabaseTableColumn is one column of a table of the managed database (its structure, not a result).
type DatabaseTableColumn struct {
	Name     string `json:"name"`
	Type     string `json:"type" doc:"The column's PostgreSQL type, as format_type names it (e.g. integer, text, character varying(20))."`
	Nullable bool   `json:"nullable"`
}

// DatabaseTable is one table of the managed database (schema public).
type DatabaseTable struct {
	Name       string                `json:"name"`
	Columns    []DatabaseTableColumn `json:"columns"`
	PrimaryKey []string              `json:"primaryKey" doc:"The primary key's columns in key order; empty when the table has none."`
	// RowEstimate is pg_class.reltuples, or an exact count when the table was never analyzed and is small.
	RowEstimate      int64 `json:"rowEstimate" doc:"Rows: PostgreSQL's estimate (pg_class.reltuples), or an exact count (rowEstimateExact) for a small table never analyzed yet."`
	RowEstimateExact bool  `json:"rowEstimateExact" doc:"Whether rowEstimate is an exact count."`
}

// Database is an account's managed database as GET /v1/databases/account answers it.
type Database struct {
	AccountID string `json:"accountId"`
	Status    string `json:"status" enum:"provisioning,ready,deprovisioning,deleted"`
	// Name is the database's name in the cluster (absent once deleted).
	Name      string          `json:"name,omitempty" doc:"The database's name in the cluster; absent once deleted."`
	SizeBytes int64           `json:"sizeBytes" doc:"pg_database_size of the database (0 unless ready)."`
	Tables    []DatabaseTable `json:"tables" doc:"The tables of schema public (empty unless ready)."`
	CreatedAt time.Time       `json:"createdAt"`
	ReadyAt   *time.Time      `json:"readyAt"`
}

// DatabaseEnvelope is the answer of GET, POST and DELETE /v1/databases/account.
type DatabaseEnvelope struct {
	OK       bool     `json:"ok"`
	Database Database `json:"database"`
}

// DeprovisionDatabaseRequest is the body of DELETE /v1/databases/account.
type DeprovisionDatabaseRequest struct {
	Confirmation string `json:"confirmation" doc:"Must equal the SDK's ConfirmDeprovisionDatabase (\"deprovision my database\")."`
}

// ProvisionDatabase provisions the account's managed database, POST /v1/databases/account (scope
// databases:write, service access svc-database). It answers 202 while provisioning and 200 once ready; a
// second call answers the existing database.
func (c *Client) ProvisionDatabase(ctx context.Context, opts ...CallOption) Response[DatabaseEnvelope] {
	return send[DatabaseEnvelope](ctx, c, call{method: http.MethodPost, path: "/databases/account", auth: authKey, idem: true, opts: opts})
}

// GetDatabase reads the account's managed database: status, size and structure (scope databases:read).
func (c *Client) GetDatabase(ctx context.Context) Response[DatabaseEnvelope] {
	return send[DatabaseEnvelope](ctx, c, call{method: http.MethodGet, path: "/databases/account", auth: authKey})
}

// DeprovisionDatabase drops the account's managed database and its roles, DELETE /v1/databases/account
// (scope databases:write); confirmation must be ConfirmDeprovisionDatabase.
func (c *Client) DeprovisionDatabase(ctx context.Context, confirmation string, opts ...CallOption) Response[DatabaseEnvelope] {
	return send[DatabaseEnvelope](ctx, c, call{method: http.MethodDelete, path: "/databases/account",
		body: DeprovisionDatabaseRequest{Confirmation: confirmation}, auth: authKey, idem: true, opts: opts})
}
