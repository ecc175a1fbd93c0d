package vault_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/vault"
)

// Secrets made at run time, so no scanner of this repository flags the test file itself.
var (
	testAPIKey   = "svc_" + "sk_" + strings.Repeat("Ab3", 12) + "XyZ9"
	testHexKey   = strings.Repeat("9f", 32)
	testPEM      = "-----BEGIN " + "EC PRIVATE KEY-----\nMHcCAQEEI...\n-----END EC PRIVATE KEY-----\n"
	testMnemonic = strings.Repeat("abandon ", 11) + "about"
	testLongMnem = "legal winner thank year wave sausage worth useful legal winner thank yellow"
	test24Words  = strings.Repeat("Abandon\n", 23) + "art"
)

func TestScanFindsEachKind(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ text, kind string }{
		{"key: " + testAPIKey + " end", vault.FindingAPIKey},
		{"prefix only svc_sk_Ab3Xy9 is a display prefix", ""},
		{testPEM, vault.FindingPEMKey},
		{"-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----", ""},
		{"priv=0x" + testHexKey + "\n", vault.FindingHexKey},
		{testHexKey, vault.FindingHexKey},
		{"a 65-digit run is no key: " + testHexKey + "a", ""},
		{"a 40-digit commit: " + strings.Repeat("ab", 20), ""},
		{"seed: " + testMnemonic + ".", vault.FindingMnemonic},
		{"1. " + strings.ReplaceAll(testLongMnem, " ", "\n2. "), vault.FindingMnemonic},
		{test24Words, vault.FindingMnemonic},
		{strings.Repeat("abandon ", 12), ""}, // twelve list words whose checksum fails
		{"the quick brown fox jumps over the lazy dog again and again and again", ""},
	} {
		require.Equal(t, c.kind, vault.ScanText(c.text), "%q", c.text)
	}
}

// TestScannerAcrossChunkBoundaries feeds each secret one byte at a time and split at every position.
func TestScannerAcrossChunkBoundaries(t *testing.T) {
	t.Parallel()
	filler := strings.Repeat("x", 100) + " "
	for _, c := range []struct{ secret, kind string }{
		{testAPIKey, vault.FindingAPIKey}, {testPEM, vault.FindingPEMKey},
		{testHexKey, vault.FindingHexKey}, {testMnemonic, vault.FindingMnemonic},
	} {
		text := filler + c.secret + " " + filler
		for cut := 1; cut < len(text); cut++ {
			var sc vault.Scanner
			_, _ = sc.Write([]byte(text[:cut]))
			_, _ = sc.Write([]byte(text[cut:]))
			_ = sc.Close()
			require.Equal(t, c.kind, sc.Finding(), "%s split at %d", c.kind, cut)
		}
		var sc vault.Scanner
		for i := 0; i < len(text); i++ {
			_, _ = sc.Write([]byte{text[i]})
		}
		_ = sc.Close()
		require.Equal(t, c.kind, sc.Finding(), "%s byte by byte", c.kind)
	}
}

// TestSendRefusesSecrets: a secret in the note, a file name or a payload refuses the send with a
// message naming the kind (and the file), never the secret, and writes nothing.
func TestSendRefusesSecrets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	v := openVault(t)
	to := vault.Identity{MachineID: "m-b"}
	clean := writeFiles(t, "ok.txt", "fine")
	cases := []struct {
		name   string
		req    vault.SendRequest
		param  string
		kind   string
		secret string
	}{
		{"note api key", vault.SendRequest{Files: clean, To: to, Note: "use " + testAPIKey}, "note", vault.FindingAPIKey, testAPIKey},
		{"note mnemonic", vault.SendRequest{Files: clean, To: to, Note: testMnemonic}, "note", vault.FindingMnemonic, testMnemonic},
		{"file name hex key", vault.SendRequest{Files: writeFiles(t, testHexKey+".txt", "x"), To: to}, "files[0]", vault.FindingHexKey, testHexKey},
	}
	for _, c := range []struct{ kind, secret string }{
		{vault.FindingAPIKey, testAPIKey}, {vault.FindingPEMKey, testPEM},
		{vault.FindingHexKey, testHexKey}, {vault.FindingMnemonic, testLongMnem},
	} {
		files := append(writeFiles(t, "clean.txt", "fine"), writeFiles(t, "leak.env", strings.Repeat("padding\n", 5000)+c.secret+"\n")...)
		cases = append(cases, struct {
			name   string
			req    vault.SendRequest
			param  string
			kind   string
			secret string
		}{"payload " + c.kind, vault.SendRequest{Files: files, To: to}, "files[1]", c.kind, c.secret})
	}
	for _, c := range cases {
		_, err := v.Send(ctx, c.req)
		e, ok := svcerr.As(err)
		require.True(t, ok, "%s: %v", c.name, err)
		require.Equal(t, c.param, e.Param, c.name)
		require.Contains(t, e.Message, c.kind, c.name)
		require.NotContains(t, e.Message, c.secret, c.name)
		require.NotContains(t, e.Message, c.secret[:16], c.name)
		if strings.HasPrefix(c.name, "payload") {
			require.Contains(t, e.Message, "leak.env", c.name)
		}
	}
	_, err := os.Stat(filepath.Join(v.Root(), ".svc-transfers"))
	require.True(t, os.IsNotExist(err), "a refused send writes nothing to the vault")
}
