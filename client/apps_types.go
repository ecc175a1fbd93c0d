package client

import (
	"encoding/json"
	"time"
)

// Operation ids of apps (issue 26).
const (
	OpAppsCreate     = "apps.create"
	OpAppsList       = "apps.list"
	OpAppsRead       = "apps.read"
	OpAppsUpdate     = "apps.update"
	OpAppsDelete     = "apps.delete"
	OpAppsFilesWrite = "apps.files.write"
	OpAppsPublicList = "apps.public.list"
	OpAppsKVList     = "apps.kv.list"
	OpAppsKVRead     = "apps.kv.read"
	OpAppsKVSet      = "apps.kv.set"
	OpAppsKVDelete   = "apps.kv.delete"
)

// App sharing modes.
const (
	AppSharingPrivate  = "private"
	AppSharingUnlisted = "unlisted"
	AppSharingPublic   = "public"
)

// AppManifest is an app's manifest.json (seed 002 "Manifest of an app"; the rules are in README.md
// "Build an app").
type AppManifest struct {
	Slug             string             `json:"slug" doc:"The app's address: 1 to 64 lowercase letters, digits and '-', unique within the account."`
	Title            string             `json:"title,omitempty"`
	Description      string             `json:"description,omitempty"`
	Tags             []string           `json:"tags,omitempty"`
	Permissions      []string           `json:"permissions,omitempty" doc:"Exact permission names of seed 002 (read:wallet ... invoke:agent)."`
	Scripts          []string           `json:"scripts,omitempty" doc:"Script names without .ts; each has scripts/<name>.ts."`
	Schedule         []AppScheduleEntry `json:"schedule,omitempty"`
	Secrets          []string           `json:"secrets,omitempty" doc:"Names of the account's environment variables the scripts may read."`
	PublicDataKeys   []string           `json:"publicDataKeys,omitempty" doc:"Plain appKV keys anonymous viewers may read."`
	FrontendIdentity string             `json:"frontendIdentity,omitempty" enum:"owner,viewer"`
	X402             *AppX402           `json:"x402,omitempty" doc:"Required exactly with pay:x402."`
}

// AppScheduleEntry runs a script on a 5-field cron, as the owner.
type AppScheduleEntry struct {
	Script  string `json:"script"`
	Cron    string `json:"cron"`
	Enabled bool   `json:"enabled"`
}

// AppX402 bounds an app's x402 payments.
type AppX402 struct {
	MaxPaymentUsdPerCall float64  `json:"maxPaymentUsdPerCall"`
	AllowedHosts         []string `json:"allowedHosts"`
}

// CreateAppRequest is the JSON form of POST /v1/apps (the other form is a ZIP of the app folder, sent
// as application/zip): the manifest and every other file by its path in the folder.
type CreateAppRequest struct {
	Manifest json.RawMessage   `json:"manifest" doc:"manifest.json's document."`
	Files    map[string]string `json:"files,omitempty" doc:"The folder's other files by path (index.html, scripts/<name>.ts, data/<key>.json, designs/<name>), as text."`
}

// AppFile is one file of an app's folder.
type AppFile struct {
	Path      string    `json:"path"`
	FileID    string    `json:"fileId" doc:"The file of the files capability holding it (file_...)."`
	MediaType string    `json:"mediaType"`
	Bytes     int64     `json:"bytes"`
	SHA256    string    `json:"sha256"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// App is an app as its owner sees it.
type App struct {
	ID        string      `json:"id" doc:"App id (app_...)."`
	Slug      string      `json:"slug"`
	Sharing   string      `json:"sharing" enum:"private,unlisted,public"`
	ProjectID *string     `json:"projectId"`
	Manifest  AppManifest `json:"manifest"`
	// Files are listed by GET /v1/apps/{slug} and the writes; lists leave them out.
	Files     []AppFile `json:"files,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// AppEnvelope answers one app.
type AppEnvelope struct {
	OK  bool `json:"ok"`
	App App  `json:"app"`
}

// AppList answers GET /v1/apps, newest first.
type AppList struct {
	OK         bool    `json:"ok"`
	Apps       []App   `json:"apps"`
	NextCursor *string `json:"nextCursor"`
}

// PublicApp is an app of the public directory.
type PublicApp struct {
	Owner       string    `json:"owner" doc:"The owner's account id (the frontend serves /apps/{owner}/{slug}/)."`
	Slug        string    `json:"slug"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	Tags        []string  `json:"tags"`
	CreatedAt   time.Time `json:"createdAt"`
}

// PublicAppList answers GET /v1/apps/public, newest first.
type PublicAppList struct {
	OK         bool        `json:"ok"`
	Apps       []PublicApp `json:"apps"`
	NextCursor *string     `json:"nextCursor"`
}

// UpdateAppRequest is the body of PATCH /v1/apps/{slug}.
type UpdateAppRequest struct {
	Sharing string `json:"sharing" enum:"private,unlisted,public" doc:"private (only the owner), unlisted (anyone with the URL) or public (also in the directory)."`
}

// AppKVKeys answers GET /v1/apps/{slug}/kv: the keys holding a value.
type AppKVKeys struct {
	OK   bool     `json:"ok"`
	Keys []string `json:"keys"`
}

// AppKVValue answers one appKV value.
type AppKVValue struct {
	OK    bool            `json:"ok"`
	Key   string          `json:"key"`
	Value json.RawMessage `json:"value,omitempty"`
}

// SetAppKVRequest is the body of PUT /v1/apps/{slug}/kv/{key}.
type SetAppKVRequest struct {
	Value json.RawMessage `json:"value" doc:"Any JSON value, at most 65536 bytes encoded."`
}
