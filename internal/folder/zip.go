package folder

import (
	"archive/zip"
	"bytes"
	"io"
	"strings"

	"github.com/svcplatform/svc/internal/svcerr"
)

// ZipRules are what ReadZip accepts of one kind of folder.
type ZipRules struct {
	// Marker is the file at the folder's root that finds it in the archive (manifest.json, SKILL.md).
	Marker string
	// Noun names the folder's kind in messages ("app"), Article with its article ("an app").
	Noun, Article string
	// MaxFiles and MaxBytes bound the files and their unpacked bytes.
	MaxFiles int
	MaxBytes int64
}

// ReadZip unpacks a ZIP of a folder into its files by path. The marker is at the archive's root, or
// every entry is under one top folder holding it (a zipped folder), which is then stripped. Folder
// entries are skipped; more than MaxFiles files or MaxBytes unpacked bytes are refused.
func ReadZip(data []byte, r ZipRules) (map[string][]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, svcerr.Invalid("body", "the body is not a ZIP archive: %v", err)
	}
	prefix := zipRoot(zr.File, r.Marker)
	out := map[string][]byte{}
	total := int64(0)
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		name, ok := strings.CutPrefix(f.Name, prefix)
		if !ok {
			return nil, svcerr.Invalid("files["+f.Name+"]", "%s lies outside the %s folder %s", f.Name, r.Noun, prefix)
		}
		if len(out) >= r.MaxFiles {
			return nil, svcerr.Invalid("files", "%s has at most %d files", r.Article, r.MaxFiles)
		}
		if _, dup := out[name]; dup {
			return nil, svcerr.Invalid("files["+name+"]", "the archive holds %s twice", name)
		}
		b, err := readEntry(f, r.MaxBytes-total, r)
		if err != nil {
			return nil, err
		}
		total += int64(len(b))
		out[name] = b
	}
	return out, nil
}

// zipRoot is the folder prefix to strip: "" when marker is at the root, "<dir>/" when the archive is
// one folder holding it.
func zipRoot(files []*zip.File, marker string) string {
	for _, f := range files {
		if f.Name == marker {
			return ""
		}
	}
	for _, f := range files {
		if dir, ok := strings.CutSuffix(f.Name, "/"+marker); ok && !strings.Contains(dir, "/") {
			return dir + "/"
		}
	}
	return ""
}

// readEntry reads one entry of at most budget bytes, whatever its header claims.
func readEntry(f *zip.File, budget int64, r ZipRules) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, svcerr.Invalid("files["+f.Name+"]", "%s does not open: %v", f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, budget+1))
	if err != nil {
		return nil, svcerr.Invalid("files["+f.Name+"]", "%s does not unpack: %v", f.Name, err)
	}
	if int64(len(b)) > budget {
		return nil, svcerr.New(svcerr.PayloadTooLarge, "the %s's files unpack to more than %d bytes", r.Noun, r.MaxBytes)
	}
	return b, nil
}
