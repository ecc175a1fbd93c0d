package apps

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/svcplatform/svc/internal/folder"
	"github.com/svcplatform/svc/internal/strictjson"
	"github.com/svcplatform/svc/internal/svcerr"
)

// MaxUploadBytes bounds the body of POST /v1/apps (a ZIP or the JSON form).
const MaxUploadBytes = MaxAppBytes + 1<<20

// ReadZip unpacks a ZIP of an app folder into its files by path. manifest.json is at the archive's root,
// or every entry is under one top folder holding it (a zipped folder), which is then stripped. Folder
// entries are skipped; more than MaxFiles files or MaxAppBytes unpacked bytes are refused.
func ReadZip(data []byte) (map[string][]byte, error) {
	return folder.ReadZip(data, folder.ZipRules{Marker: ManifestPath, Noun: "app", Article: "an app",
		MaxFiles: MaxFiles, MaxBytes: MaxAppBytes})
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
