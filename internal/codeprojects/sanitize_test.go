package codeprojects

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSanitizerTable: every kind of private value is replaced by its placeholder; public values and
// ordinary text are kept.
func TestSanitizerTable(t *testing.T) {
	t.Parallel()
	z := Sanitizer{VaultRoot: "/srv/team-vault"}
	pem := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----"
	hexKey := "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	for _, c := range []struct{ name, in, want string }{
		{"plain text kept", "signed release v1.2.0", "signed release v1.2.0"},
		{"public IPv4 kept", "mirror at 8.8.8.8", "mirror at 8.8.8.8"},
		{"public IPv6 kept", "mirror at 2001:4860:4860::8888", "mirror at 2001:4860:4860::8888"},
		{"C++ scope kept", "std::vector and a::b", "std::vector and a::b"},
		{"time kept", "built at 12:34:56", "built at 12:34:56"},
		{"commit hash kept", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8", "commit 9fceb02d0ae598e95dc970b74767f19372d61af8"},
		{"PEM private key", "key: " + pem, RedactedSecret},
		{"hex private key", "deployer " + hexKey, RedactedSecret},
		{"svc API key", "used svc_sk_abcdefghijklmnopqrstuvwx", RedactedSecret},
		{"mnemonic", "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about", RedactedSecret},
		{"API_KEY env", "ran with OPENAI_API_KEY=sk-live-123 make build", "ran with OPENAI_API_KEY=" + RedactedSecret + " make build"},
		{"TOKEN env quoted", `GITHUB_TOKEN="ghp xyz" go test`, "GITHUB_TOKEN=" + RedactedSecret + " go test"},
		{"PASSWORD env lower", "db_password = hunter2", "db_password = " + RedactedSecret},
		{"SECRET env", "JWT_SECRET=abc;next", "JWT_SECRET=" + RedactedSecret + ";next"},
		{"RFC1918 10/8", "node http://10.1.2.3:7717/status", "node http://" + RedactedAddress + ":7717/status"},
		{"RFC1918 172.16/12", "at 172.20.0.5", "at " + RedactedAddress},
		{"RFC1918 192.168/16", "at 192.168.1.20", "at " + RedactedAddress},
		{"loopback", "on 127.0.0.1:8080", "on " + RedactedAddress + ":8080"},
		{"link-local v4", "on 169.254.10.1", "on " + RedactedAddress},
		{"CGNAT overlay", "tailnet 100.101.102.103", "tailnet " + RedactedAddress},
		{"loopback v6", "on [::1]:80", "on [" + RedactedAddress + "]:80"},
		{"ULA v6", "on fd12:3456:789a::1", "on " + RedactedAddress},
		{"link-local v6 zoned", "on fe80::1ff:fe23:4567:890a%eth0", "on " + RedactedAddress},
		{".local host", "built on studio-mac.local", "built on " + RedactedHost},
		{".internal host", "https://ci.corp.internal/job/1", "https://" + RedactedHost + "/job/1"},
		{"localhost", "http://localhost:3000", "http://" + RedactedHost + ":3000"},
		{"vault path", "/srv/team-vault/Projects/notes.md", VaultPlaceholder + "/Projects/notes.md"},
		{"home path", "/home/alice/src/app and /Users/bob/x", HomePlaceholder + "/src/app and " + HomePlaceholder + "/x"},
	} {
		require.Equal(t, c.want, z.String(c.in), c.name)
	}
}

// TestSanitizerMap: keys and values are both sanitised; an empty map stays nil.
func TestSanitizerMap(t *testing.T) {
	t.Parallel()
	z := Sanitizer{}
	got := z.Map(map[string]string{"host 10.0.0.1": "build.local", "ok": "yes"})
	require.Equal(t, map[string]string{"host " + RedactedAddress: RedactedHost, "ok": "yes"}, got)
	require.Nil(t, z.Map(nil))
}
