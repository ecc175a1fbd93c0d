package folder_test

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/internal/folder"
	"github.com/svcplatform/svc/internal/svcerr"
)

var rules = folder.ZipRules{Marker: "SKILL.md", Noun: "skill", Article: "a skill", MaxFiles: 3, MaxBytes: 100}

// zipOf zips the entries in order; a name ending in '/' is a folder entry.
func zipOf(t *testing.T, entries ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < len(entries); i += 2 {
		w, err := zw.Create(entries[i])
		require.NoError(t, err)
		_, err = w.Write([]byte(entries[i+1]))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// TestReadZipRootAndTopFolder: the marker at the root keeps paths; one top folder holding it is
// stripped; folder entries are skipped.
func TestReadZipRootAndTopFolder(t *testing.T) {
	t.Parallel()
	got, err := folder.ReadZip(zipOf(t, "SKILL.md", "s", "a/b.txt", "b"), rules)
	require.NoError(t, err)
	require.Equal(t, map[string][]byte{"SKILL.md": []byte("s"), "a/b.txt": []byte("b")}, got)

	got, err = folder.ReadZip(zipOf(t, "tool/", "", "tool/SKILL.md", "s", "tool/a/b.txt", "b"), rules)
	require.NoError(t, err)
	require.Equal(t, map[string][]byte{"SKILL.md": []byte("s"), "a/b.txt": []byte("b")}, got)
}

// TestReadZipRefusals: each refusal names its rule and the folder's kind.
func TestReadZipRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		data []byte
		code string
		says string
	}{
		{"not a zip", []byte("plain"), svcerr.InvalidRequest, "not a ZIP archive"},
		{"outside the folder", zipOf(t, "tool/SKILL.md", "s", "other.txt", "x"), svcerr.InvalidRequest, "outside the skill folder tool/"},
		{"too many files", zipOf(t, "SKILL.md", "s", "a", "a", "b", "b", "c", "c"), svcerr.InvalidRequest, "a skill has at most 3 files"},
		{"too many bytes", zipOf(t, "SKILL.md", strings.Repeat("s", 101)), svcerr.PayloadTooLarge, "the skill's files unpack to more than 100 bytes"},
	}
	for _, tc := range cases {
		_, err := folder.ReadZip(tc.data, rules)
		se, ok := svcerr.As(err)
		require.True(t, ok, "%s: %v", tc.name, err)
		require.Equal(t, tc.code, se.Code, tc.name)
		require.Contains(t, se.Message, tc.says, tc.name)
	}
}
