package codeprojects

import (
	"net/netip"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/svcplatform/svc/internal/vault"
)

// Placeholders that replace what proof metadata must not hold.
const (
	RedactedSecret   = "[redacted-secret]"
	RedactedAddress  = "[private-address]"
	RedactedHost     = "[private-host]"
	VaultPlaceholder = "<vault>"
	HomePlaceholder  = "<home>"
)

var (
	// secretAssignment is NAME=value where NAME ends in a secret word (API_KEY, GITHUB_TOKEN, DB_PASSWORD…).
	secretAssignment = regexp.MustCompile(`(?i)\b([A-Z0-9_]*(?:KEY|TOKEN|PASSWORD|PASSWD|SECRET|PASSPHRASE|CREDENTIALS?|PWD))(\s*=\s*)("[^"]*"|'[^']*'|[^\s,;&]+)`)
	// ipv4 is a dotted quad; netip decides whether it is one.
	ipv4 = regexp.MustCompile(`\b\d{1,3}(?:\.\d{1,3}){3}\b`)
	// ipv6 is a run of hex digits and colons with at least two colons, optionally zoned.
	ipv6 = regexp.MustCompile(`[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:%[0-9A-Za-z]+)?`)
	// privateHost is localhost or a name under a private-use suffix.
	privateHost = regexp.MustCompile(`(?i)\b(?:localhost|(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+(?:local|internal|lan|home\.arpa|localdomain))\b`)
	// homePath is an absolute home folder of a user.
	homePath = regexp.MustCompile(`(?:/home/|/Users/|[A-Za-z]:\\Users\\)[^/\\\s"']+`)
	// cgnat is 100.64.0.0/10, where private overlays (Tailscale) put their machines.
	cgnat = netip.MustParsePrefix("100.64.0.0/10")
)

// Sanitizer replaces what stored proof metadata must not hold: private keys and seed phrases (the vault's
// secret scanner: the whole value goes), secret environment values, private network addresses and host
// names, the vault's exact path and users' home folders.
type Sanitizer struct {
	// VaultRoot is the vault's absolute path ("" when there is none).
	VaultRoot string
}

// String sanitises one value.
func (z Sanitizer) String(s string) string {
	if s == "" {
		return s
	}
	if vault.ScanText(s) != "" {
		return RedactedSecret
	}
	s = secretAssignment.ReplaceAllString(s, "${1}${2}"+RedactedSecret)
	if root := filepath.Clean(z.VaultRoot); z.VaultRoot != "" && root != "/" {
		s = strings.ReplaceAll(s, root, VaultPlaceholder)
	}
	s = homePath.ReplaceAllString(s, HomePlaceholder)
	s = ipv4.ReplaceAllStringFunc(s, redactIP)
	s = ipv6.ReplaceAllStringFunc(s, redactIP)
	return privateHost.ReplaceAllString(s, RedactedHost)
}

// redactIP replaces an address that is not public; anything else is left as it was.
func redactIP(m string) string {
	addr, err := netip.ParseAddr(m)
	if err != nil || !strings.ContainsAny(m, "0123456789abcdefABCDEF") { // "::" of std::vector is no address
		return m
	}
	addr = addr.WithZone("").Unmap()
	if addr.IsPrivate() || addr.IsLoopback() || addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() ||
		addr.IsUnspecified() || addr.Is4() && cgnat.Contains(addr) {
		return RedactedAddress
	}
	return m
}

// Map sanitises a map's keys and values.
func (z Sanitizer) Map(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[z.String(k)] = z.String(v)
	}
	return out
}
