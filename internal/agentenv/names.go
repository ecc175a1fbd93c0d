// Package agentenv keeps what an account gives its agent to act with (issue 25, seed 002's "Secure
// environment variables" and user MCP servers): environment variables whose values, and MCP servers
// whose headers, are envelope-encrypted per account (a random data key per account sealed by the
// deployment's master key, see dataKey). Values never leave this package except through Resolve and
// Servers, which the agent's tool activities call at execution time: no response, log line, workflow
// payload or model context carries them.
package agentenv

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/svcplatform/svc/internal/svcerr"
)

// Limits of an environment variable.
const (
	// MaxNameLength is the longest variable name, in bytes.
	MaxNameLength = 128
	// MaxValueLength is the largest value, in bytes (16 KiB).
	MaxValueLength = 16 << 10
	// MaxVariables is how many variables one account may keep.
	MaxVariables = 200
)

// Naming rules, named in every refusal (the error's details carry the rule too).
const (
	RuleNamePattern     = "name_pattern"
	RuleNameLength      = "name_length"
	RuleReservedPrefix  = "reserved_prefix"
	RuleBrowserName     = "browser_credential_name"
	RuleBrowserOrigins  = "browser_credential_origins"
	RuleValueLength     = "value_length"
	RuleValueEmpty      = "value_empty"
	RuleValueCharacters = "value_characters"
)

// ReservedPrefixes are the name prefixes an account may not use: the platform's own (SVC_) and the
// standard prefixes of cloud providers' credentials and SDK settings, so that a variable can never
// shadow one the runtime or a cloud SDK reads.
var ReservedPrefixes = []string{
	"SVC_",
	"AWS_", "AMAZON_",
	"GOOGLE_", "GCP_", "GCLOUD_", "CLOUDSDK_", "FIREBASE_",
	"AZURE_", "ARM_", "MSI_",
	"ALIBABA_", "ALICLOUD_", "ALIYUN_",
	"OCI_", "ORACLE_",
	"IBM_", "IBMCLOUD_",
	"DO_", "DIGITALOCEAN_",
	"HEROKU_", "VERCEL_", "NETLIFY_", "CLOUDFLARE_", "CF_",
	"TENCENTCLOUD_", "HUAWEICLOUD_", "LINODE_", "HCLOUD_", "SCW_", "VULTR_",
}

// BrowserCredentialPrefix starts the names the browser tool reads (seed 002).
const BrowserCredentialPrefix = "BROWSER_CREDENTIAL_"

// BrowserFields are the FIELD parts of BROWSER_CREDENTIAL_<SITE>_<FIELD>.
var BrowserFields = []string{"ALLOWED_ORIGINS", "EMAIL", "USERNAME", "PASSWORD"}

var (
	namePattern = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*$`)
	// sitePattern is seed 002's <SITE>: letters, digits, underscores or hyphens.
	sitePattern = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
)

// refuse is a 400 on field param naming the rule broken.
func refuse(param, rule, format string, args ...any) *svcerr.Error {
	return svcerr.Invalid(param, "rule "+rule+": "+format, args...).WithDetails("rule", rule)
}

// ValidateName checks a variable name against every rule: BROWSER_CREDENTIAL_<SITE>_<FIELD> names as
// seed 002 says (SITE letters, digits, underscores or hyphens; FIELD EMAIL, USERNAME, PASSWORD or
// ALLOWED_ORIGINS), any other name ^[A-Z_][A-Z0-9_]*$, at most MaxNameLength bytes and without a
// reserved prefix. Errors name the field key and the rule.
func ValidateName(name string) error {
	if name == "" || len(name) > MaxNameLength {
		return refuse("key", RuleNameLength, "key must be 1 to %d characters", MaxNameLength)
	}
	if strings.HasPrefix(name, BrowserCredentialPrefix) {
		_, _, err := browserName(name)
		return err
	}
	if !namePattern.MatchString(name) {
		return refuse("key", RuleNamePattern, "key %q must match ^[A-Z_][A-Z0-9_]*$ (upper-case letters, digits and underscores, not starting with a digit)", name)
	}
	for _, p := range ReservedPrefixes {
		if strings.HasPrefix(name, p) {
			return refuse("key", RuleReservedPrefix, "key %q uses the reserved prefix %s (the platform's and cloud providers' prefixes are reserved)", name, p).
				WithDetails("prefix", p)
		}
	}
	return nil
}

// browserName splits BROWSER_CREDENTIAL_<SITE>_<FIELD> into its site and field, or refuses the name.
func browserName(name string) (site, field string, err error) {
	rest := strings.TrimPrefix(name, BrowserCredentialPrefix)
	for _, f := range BrowserFields {
		if s, ok := strings.CutSuffix(rest, "_"+f); ok && s != "" {
			site, field = s, f
			break
		}
	}
	if field == "" {
		return "", "", refuse("key", RuleBrowserName, "key %q must be BROWSER_CREDENTIAL_<SITE>_<FIELD> with FIELD one of EMAIL, USERNAME, PASSWORD, ALLOWED_ORIGINS", name)
	}
	if !sitePattern.MatchString(site) {
		return "", "", refuse("key", RuleBrowserName, "key %q: SITE %q may hold only letters, digits, underscores or hyphens", name, site)
	}
	return site, field, nil
}

// ValidateValue checks a value for the variable name: not empty, at most MaxValueLength bytes, no NUL,
// and for BROWSER_CREDENTIAL_<SITE>_ALLOWED_ORIGINS a comma-separated list of full origins. Errors name
// the field value and the rule, never the value itself.
func ValidateValue(name, value string) error {
	if value == "" {
		return refuse("value", RuleValueEmpty, "value must not be empty")
	}
	if len(value) > MaxValueLength {
		return refuse("value", RuleValueLength, "value must be at most %d bytes", MaxValueLength)
	}
	if strings.ContainsRune(value, 0) {
		return refuse("value", RuleValueCharacters, "value must not contain NUL characters")
	}
	if strings.HasPrefix(name, BrowserCredentialPrefix) && strings.HasSuffix(name, "_ALLOWED_ORIGINS") {
		for i, o := range strings.Split(value, ",") {
			if err := validOrigin(strings.TrimSpace(o)); err != nil {
				return refuse("value", RuleBrowserOrigins, "origin %d: %s (full origins, comma-separated: scheme and exact host, optional port, no path, query, fragment or wildcard)", i+1, err)
			}
		}
	}
	return nil
}

// originError describes why an allowed origin is refused (it may quote the origin: origins are not
// secret).
type originError string

func (e originError) Error() string { return string(e) }

// validOrigin checks one full origin: https or http, an exact host (no wildcard, no user), an optional
// port, and nothing else.
func validOrigin(o string) error {
	if o == "" {
		return originError("is empty")
	}
	u, err := url.Parse(o)
	if err != nil || !u.IsAbs() || u.Opaque != "" {
		return originError("\"" + o + "\" is not an absolute URL origin")
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return originError("\"" + o + "\" must use https or http")
	}
	if u.User != nil {
		return originError("\"" + o + "\" must not carry a user name")
	}
	if u.Hostname() == "" || strings.Contains(u.Host, "*") {
		return originError("\"" + o + "\" must name one exact host (no wildcard)")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(o, "#") {
		return originError("\"" + o + "\" must not carry a path, query or fragment")
	}
	if strings.HasSuffix(o, "/") {
		return originError("\"" + o + "\" must not end with a path (drop the trailing slash)")
	}
	return nil
}
