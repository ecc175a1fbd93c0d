// Package apps is the apps capability's resource (issue 26, seed 002 "Manifest of an app"): an app is a
// folder of files kept in the files capability (purpose "/apps/<slug>/", each file named by its path in
// the folder) and a row carrying its validated manifest and sharing mode. The package parses and checks
// manifests, stores apps atomically, loads their scripts, and serves appKV: plain keys file-backed at
// data/<key>.json, record: keys in a per-viewer record store, with the access rules of seed 002.
package apps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/svcplatform/svc/internal/agentenv"
	"github.com/svcplatform/svc/internal/automation"
	"github.com/svcplatform/svc/internal/strictjson"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Manifest is an app's manifest.json (seed 002's table "Manifest of an app").
type Manifest struct {
	// Slug is the app's address: lowercase letters, digits and '-', 1 to 64, unique within the account.
	Slug string `json:"slug"`
	// Title, Description and Tags are the directory's display metadata.
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	// Permissions are the exact names of Permissions the app's scripts and frontend may use.
	Permissions []string `json:"permissions,omitempty"`
	// Scripts name the app's scripts/<name>.ts files, without the extension.
	Scripts []string `json:"scripts,omitempty"`
	// Schedule runs scripts on a cron, always as the owner.
	Schedule []ScheduleEntry `json:"schedule,omitempty"`
	// Secrets are the names of the account's environment variables the scripts may read.
	Secrets []string `json:"secrets,omitempty"`
	// PublicDataKeys are the plain appKV keys anonymous viewers may read.
	PublicDataKeys []string `json:"publicDataKeys,omitempty"`
	// FrontendIdentity is who the frontend's reads run as: owner (the default) or viewer.
	FrontendIdentity string `json:"frontendIdentity,omitempty"`
	// X402 bounds pay-per-call; present exactly when Permissions holds pay:x402.
	X402 *X402Config `json:"x402,omitempty"`
}

// ScheduleEntry runs one of the manifest's scripts on a 5-field cron.
type ScheduleEntry struct {
	Script  string `json:"script"`
	Cron    string `json:"cron"`
	Enabled bool   `json:"enabled"`
}

// X402Config bounds an app's x402 payments.
type X402Config struct {
	MaxPaymentUsdPerCall float64  `json:"maxPaymentUsdPerCall"`
	AllowedHosts         []string `json:"allowedHosts"`
}

// Permissions are seed 002's app permissions, exactly.
var Permissions = []string{
	"read:wallet", "read:portfolio", "read:positions", "read:tokens", "read:chain", "read:files", "read:appdata", "read:secrets",
	"write:files", "write:appdata", "prepare:transaction", "execute:swap", "execute:transfer", "execute:sign",
	"fetch:http", "pay:x402", "fetch:x402", "invoke:agent",
}

// Frontend identities.
const (
	IdentityOwner  = "owner"
	IdentityViewer = "viewer"
)

// Bounds of a manifest's fields.
const (
	MaxSlugLen        = 64
	MaxTitleLen       = 120
	MaxDescriptionLen = 2000
	MaxTags           = 10
	MaxTagLen         = 32
	MaxScripts        = 50
	MaxScheduleLen    = 20
	MaxSecrets        = 50
	MaxPublicDataKeys = 100
	MaxAllowedHosts   = 20
	// MaxManifestBytes bounds manifest.json.
	MaxManifestBytes = 64 << 10
)

var (
	slugPattern   = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$`)
	scriptPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)
	tagPattern    = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)
	labelPattern  = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`)
)

// manifestFields are the members a manifest may have; any other is refused.
var (
	manifestFields = []string{"slug", "title", "description", "tags", "permissions", "scripts", "schedule", "secrets",
		"publicDataKeys", "frontendIdentity", "x402"}
	scheduleFields = []string{"script", "cron", "enabled"}
	x402Fields     = []string{"maxPaymentUsdPerCall", "allowedHosts"}
)

// ReservedSlug is the one slug no app has: /v1/apps/public is the directory.
const ReservedSlug = "public"

// ValidateSlug checks an app's slug: 1 to 64 lowercase letters, digits and '-', not starting or ending
// with '-', and not ReservedSlug. Errors name param.
func ValidateSlug(param, slug string) error {
	if slug == ReservedSlug {
		return svcerr.Invalid(param, "%s %q is reserved: GET /v1/apps/public is the directory of public apps", param, slug)
	}
	if !slugPattern.MatchString(slug) {
		return svcerr.Invalid(param, "%s %q is not URL-safe: 1 to %d lowercase letters, digits and '-', not starting or ending with '-'", param, slug, MaxSlugLen)
	}
	return nil
}

// ValidateScriptName checks a script's name (without .ts): 1 to 64 letters, digits, '_' or '-',
// starting with a letter or digit. Errors name param.
func ValidateScriptName(param, name string) error {
	if !scriptPattern.MatchString(name) {
		return svcerr.Invalid(param, "%s %q is not a script name: 1 to 64 letters, digits, '_' or '-', starting with a letter or digit", param, name)
	}
	return nil
}

// ParseManifest decodes manifest.json strictly (internal/strictjson's rules, unknown fields refused)
// and checks every rule of the manifest that needs no other file (see Manifest.CheckFiles for the
// scripts' files). Each refusal is a 400 naming the field. FrontendIdentity defaults to owner.
func ParseManifest(data []byte) (*Manifest, error) {
	if len(data) > MaxManifestBytes {
		return nil, svcerr.Invalid("manifest", "manifest.json has %d bytes, more than %d", len(data), MaxManifestBytes)
	}
	free := func(p strictjson.Path) bool { return len(p) == 1 && p[0].Key == "description" }
	tree, err := strictjson.Decode(data, strictjson.Options{MaxDepth: 8, FreeText: free})
	if err != nil {
		var se *strictjson.Error
		if errors.As(err, &se) {
			return nil, svcerr.Invalid(prefixed(se.Param()), "manifest.json: %s", se.Message)
		}
		return nil, svcerr.Invalid("manifest", "manifest.json: %v", err)
	}
	if err := checkMembers(tree); err != nil {
		return nil, err
	}
	m := new(Manifest)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(m); err != nil {
		return nil, typeError(err)
	}
	if m.FrontendIdentity == "" {
		m.FrontendIdentity = IdentityOwner
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// prefixed is a manifest field's param ("manifest" for the document itself).
func prefixed(p string) string {
	if p == "" {
		return "manifest"
	}
	return p
}

// typeError names the field of a decoding error.
func typeError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return svcerr.Invalid(prefixed(te.Field), "%s must be a JSON %s, not %s", prefixed(te.Field), jsonKind(te.Type.Kind().String()), te.Value)
	}
	return svcerr.Invalid("manifest", "manifest.json: %v", err)
}

// jsonKind says a Go kind as JSON does.
func jsonKind(k string) string {
	switch k {
	case "slice":
		return "array"
	case "struct", "ptr":
		return "object"
	case "float64":
		return "number"
	case "bool":
		return "boolean"
	}
	return k
}

// checkMembers refuses members a manifest, a schedule entry or the x402 object does not have.
func checkMembers(tree any) error {
	top, ok := tree.(map[string]any)
	if !ok {
		return svcerr.Invalid("manifest", "manifest.json is a JSON object")
	}
	if err := knownOnly("", top, manifestFields); err != nil {
		return err
	}
	if entries, ok := top["schedule"].([]any); ok {
		for i, e := range entries {
			if obj, ok := e.(map[string]any); ok {
				if err := knownOnly(fmt.Sprintf("schedule[%d].", i), obj, scheduleFields); err != nil {
					return err
				}
			}
		}
	}
	if obj, ok := top["x402"].(map[string]any); ok {
		return knownOnly("x402.", obj, x402Fields)
	}
	return nil
}

func knownOnly(prefix string, obj map[string]any, known []string) error {
	for k := range obj {
		if !slices.Contains(known, k) {
			return svcerr.Invalid(prefix+k, "%s%s is not a field of the manifest (fields: %s)", prefix, k, strings.Join(known, ", "))
		}
	}
	return nil
}

// Validate checks every rule of the manifest that needs no other file; errors name the field.
func (m *Manifest) Validate() error {
	checks := []func() error{m.checkMetadata, m.checkPermissions, m.checkScripts, m.checkSchedule, m.checkSecrets,
		m.checkPublicDataKeys, m.checkIdentity, m.checkX402}
	for _, c := range checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

func (m *Manifest) checkMetadata() error {
	if err := ValidateSlug("slug", m.Slug); err != nil {
		return err
	}
	if err := textField("title", m.Title, MaxTitleLen); err != nil {
		return err
	}
	if err := textField("description", m.Description, MaxDescriptionLen); err != nil {
		return err
	}
	if len(m.Tags) > MaxTags {
		return svcerr.Invalid("tags", "tags has %d entries, at most %d", len(m.Tags), MaxTags)
	}
	for i, t := range m.Tags {
		if !tagPattern.MatchString(t) {
			return svcerr.Invalid(fmt.Sprintf("tags[%d]", i), "tag %q is 1 to %d lowercase letters, digits and '-'", t, MaxTagLen)
		}
	}
	return unique("tags", m.Tags)
}

func textField(param, v string, maxLen int) error {
	if len(v) > maxLen || strictjson.CheckText(strings.NewReplacer("\n", "", "\t", "").Replace(v)) != nil {
		return svcerr.Invalid(param, "%s is text of at most %d bytes without control characters", param, maxLen)
	}
	return nil
}

// unique refuses a repeated entry of a list, naming the second.
func unique(param string, list []string) error {
	seen := map[string]bool{}
	for i, v := range list {
		if seen[v] {
			return svcerr.Invalid(fmt.Sprintf("%s[%d]", param, i), "%s lists %q twice", param, v)
		}
		seen[v] = true
	}
	return nil
}

func (m *Manifest) checkPermissions() error {
	for i, p := range m.Permissions {
		if !slices.Contains(Permissions, p) {
			return svcerr.Invalid(fmt.Sprintf("permissions[%d]", i), "%q is not an app permission (the permissions are: %s)", p, strings.Join(Permissions, ", ")).
				WithDetails("permission", p)
		}
	}
	return unique("permissions", m.Permissions)
}

// HasPermission reports whether the manifest declares the permission p.
func (m *Manifest) HasPermission(p string) bool { return slices.Contains(m.Permissions, p) }

func (m *Manifest) checkScripts() error {
	if len(m.Scripts) > MaxScripts {
		return svcerr.Invalid("scripts", "scripts has %d entries, at most %d", len(m.Scripts), MaxScripts)
	}
	for i, s := range m.Scripts {
		if err := ValidateScriptName(fmt.Sprintf("scripts[%d]", i), s); err != nil {
			return err
		}
	}
	return unique("scripts", m.Scripts)
}

func (m *Manifest) checkSchedule() error {
	if len(m.Schedule) > MaxScheduleLen {
		return svcerr.Invalid("schedule", "schedule has %d entries, at most %d", len(m.Schedule), MaxScheduleLen)
	}
	for i, e := range m.Schedule {
		at := fmt.Sprintf("schedule[%d]", i)
		if !slices.Contains(m.Scripts, e.Script) {
			return svcerr.Invalid(at+".script", "%s.script %q is not one of the manifest's scripts", at, e.Script)
		}
		if err := automation.ValidateCron(at+".cron", e.Cron); err != nil {
			return err
		}
		if strings.HasPrefix(strings.TrimSpace(e.Cron), "@") {
			return svcerr.Invalid(at+".cron", "%s.cron is a 5-field cron expression such as \"0 * * * *\"", at)
		}
	}
	return nil
}

func (m *Manifest) checkSecrets() error {
	if len(m.Secrets) > MaxSecrets {
		return svcerr.Invalid("secrets", "secrets has %d entries, at most %d", len(m.Secrets), MaxSecrets)
	}
	for i, s := range m.Secrets {
		if err := agentenv.ValidateName(s); err != nil {
			return svcerr.Invalid(fmt.Sprintf("secrets[%d]", i), "secret %q is not an environment variable name: %s", s, strings.TrimPrefix(err.Error(), "key: "))
		}
	}
	return unique("secrets", m.Secrets)
}

func (m *Manifest) checkPublicDataKeys() error {
	if len(m.PublicDataKeys) > MaxPublicDataKeys {
		return svcerr.Invalid("publicDataKeys", "publicDataKeys has %d entries, at most %d", len(m.PublicDataKeys), MaxPublicDataKeys)
	}
	for i, k := range m.PublicDataKeys {
		at := fmt.Sprintf("publicDataKeys[%d]", i)
		if err := ValidateKey(at, k); err != nil {
			return err
		}
		if IsRecordKey(k) {
			return svcerr.Invalid(at, "%s %q is a record: key, which is never public", at, k)
		}
	}
	return unique("publicDataKeys", m.PublicDataKeys)
}

func (m *Manifest) checkIdentity() error {
	if m.FrontendIdentity != IdentityOwner && m.FrontendIdentity != IdentityViewer {
		return svcerr.Invalid("frontendIdentity", "frontendIdentity is %q or %q, not %q", IdentityOwner, IdentityViewer, m.FrontendIdentity)
	}
	return nil
}

func (m *Manifest) checkX402() error {
	pays := m.HasPermission("pay:x402")
	switch {
	case pays && m.X402 == nil:
		return svcerr.Invalid("x402", "x402 {maxPaymentUsdPerCall, allowedHosts} is required with the pay:x402 permission")
	case !pays && m.X402 != nil:
		return svcerr.Invalid("x402", "x402 is set only with the pay:x402 permission, which permissions lacks")
	case !pays:
		return nil
	case !(m.X402.MaxPaymentUsdPerCall > 0):
		return svcerr.Invalid("x402.maxPaymentUsdPerCall", "x402.maxPaymentUsdPerCall is a number of USD above 0")
	case len(m.X402.AllowedHosts) == 0:
		return svcerr.Invalid("x402.allowedHosts", "x402.allowedHosts lists at least one host the app may pay")
	case len(m.X402.AllowedHosts) > MaxAllowedHosts:
		return svcerr.Invalid("x402.allowedHosts", "x402.allowedHosts has %d entries, at most %d", len(m.X402.AllowedHosts), MaxAllowedHosts)
	}
	for i, h := range m.X402.AllowedHosts {
		if !ValidHost(h) {
			return svcerr.Invalid(fmt.Sprintf("x402.allowedHosts[%d]", i), "%q is not a host name (lowercase, such as api.example.com, optionally with :port; no scheme or path)", h)
		}
	}
	return unique("x402.allowedHosts", m.X402.AllowedHosts)
}

// ValidHost reports whether h is a lowercase DNS host name or an IP address, optionally with a :port.
func ValidHost(h string) bool {
	host := h
	if hh, port, err := net.SplitHostPort(h); err == nil {
		n, perr := strconv.Atoi(port)
		if perr != nil || n < 1 || n > 65535 {
			return false
		}
		host = hh
	}
	if net.ParseIP(host) != nil {
		return true
	}
	if host == "" || len(host) > 253 {
		return false
	}
	for _, label := range strings.Split(host, ".") {
		if !labelPattern.MatchString(label) {
			return false
		}
	}
	return true
}

// CheckFiles checks the rules that need the app's other files: every script has its scripts/<name>.ts.
// exists reports whether a path of the app's folder exists.
func (m *Manifest) CheckFiles(exists func(path string) bool) error {
	for i, s := range m.Scripts {
		if !exists(ScriptPath(s)) {
			return svcerr.Invalid(fmt.Sprintf("scripts[%d]", i), "script %q has no file %s in the app", s, ScriptPath(s))
		}
	}
	return nil
}

// ScriptPath is the path of the script name in the app's folder.
func ScriptPath(name string) string { return "scripts/" + name + ".ts" }
