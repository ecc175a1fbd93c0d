package apps

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/svcplatform/svc/internal/strictjson"
	"github.com/svcplatform/svc/internal/svcerr"
)

// MaxUploadBytes bounds the body of POST /v1/apps (a ZIP or the JSON form).
const MaxUploadBytes = MaxAppBytes + 1<<20

// ReadZip unpacks a ZIP of an app folder into its files by path. manifest.json is at the archive's root,
// or every entry is under one top folder holding it (a zipped folder), which is then stripped. Folder
// entries are skipped; more than MaxFiles files or MaxAppBytes unpacked bytes are refused.
func ReadZip(data []byte) (map[string][]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, svcerr.Invalid("body", "the body is not a ZIP archive: %v", err)
	}
	prefix := zipRoot(zr.File)
	out := map[string][]byte{}
	total := int64(0)
	for _, f := range zr.File {
		if f.FileInfo().IsDir() {
			continue
		}
		name, ok := strings.CutPrefix(f.Name, prefix)
		if !ok {
			return nil, svcerr.Invalid("files["+f.Name+"]", "%s lies outside the app folder %s", f.Name, prefix)
		}
		if len(out) >= MaxFiles {
			return nil, svcerr.Invalid("files", "an app has at most %d files", MaxFiles)
		}
		if _, dup := out[name]; dup {
			return nil, svcerr.Invalid("files["+name+"]", "the archive holds %s twice", name)
		}
		b, err := readEntry(f, MaxAppBytes-total)
		if err != nil {
			return nil, err
		}
		total += int64(len(b))
		out[name] = b
	}
	return out, nil
}

// zipRoot is the folder prefix to strip: "" when manifest.json is at the root, "<dir>/" when the
// archive is one folder holding it.
func zipRoot(files []*zip.File) string {
	for _, f := range files {
		if f.Name == ManifestPath {
			return ""
		}
	}
	for _, f := range files {
		if dir, ok := strings.CutSuffix(f.Name, "/"+ManifestPath); ok && !strings.Contains(dir, "/") {
			return dir + "/"
		}
	}
	return ""
}

// readEntry reads one entry of at most budget bytes, whatever its header claims.
func readEntry(f *zip.File, budget int64) ([]byte, error) {
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
		return nil, svcerr.New(svcerr.PayloadTooLarge, "the app's files unpack to more than %d bytes", MaxAppBytes)
	}
	return b, nil
}

// createJSON is the JSON form of a create: {manifest, files: {path: content}}.
type createJSON struct {
	Manifest json.RawMessage   `json:"manifest"`
	Files    map[string]string `json:"files"`
}

// ReadJSON reads the JSON form of a create into the folder's files by path: the manifest object becomes
// manifest.json, each of files its path. The document is decoded strictly; file contents are free
// text.
func ReadJSON(data []byte) (map[string][]byte, error) {
	free := func(p strictjson.Path) bool {
		return len(p) == 2 && (p[0].Key == "files" || p[0].Key == "manifest" && p[1].Key == "description")
	}
	if _, err := strictjson.Decode(data, strictjson.Options{FreeText: free}); err != nil {
		var se *strictjson.Error
		if errors.As(err, &se) {
			return nil, svcerr.Invalid(prefixed(se.Param()), "%s", se.Message)
		}
		return nil, svcerr.Invalid("body", "%v", err)
	}
	var in createJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, svcerr.Invalid("body", "the body is {manifest, files: {path: content}}: %v", err)
	}
	if len(in.Manifest) == 0 || string(in.Manifest) == "null" {
		return nil, svcerr.Invalid("manifest", "manifest is required: manifest.json's document")
	}
	if _, ok := in.Files[ManifestPath]; ok {
		return nil, svcerr.Invalid("files[manifest.json]", "the manifest goes in manifest, not in files")
	}
	if len(in.Files) >= MaxFiles {
		return nil, svcerr.Invalid("files", "an app has at most %d files", MaxFiles)
	}
	out := make(map[string][]byte, len(in.Files)+1)
	out[ManifestPath] = in.Manifest
	for p, content := range in.Files {
		out[p] = []byte(content)
	}
	return out, nil
}
