package apps

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/svcplatform/svc/internal/folder"
	"github.com/svcplatform/svc/internal/strictjson"
	"github.com/svcplatform/svc/internal/svcerr"
)

// RecordPrefix starts the appKV keys kept per viewer in the record store; they are never public.
const RecordPrefix = "record:"

// MaxKeyLen bounds an appKV key; MaxValueBytes its JSON value.
const (
	MaxKeyLen     = 128
	MaxValueBytes = 64 << 10
)

var keyPattern = regexp.MustCompile(`^[A-Za-z0-9_:-][A-Za-z0-9._:-]{0,127}$`)

// ValidateKey checks an appKV key: 1 to 128 letters, digits, '.', '_', ':' or '-', not starting with '.'
// and without "..", so never a path; a record: key names something after its prefix. Errors name param.
func ValidateKey(param, key string) error {
	if !keyPattern.MatchString(key) || strings.Contains(key, "..") || key == RecordPrefix {
		return svcerr.Invalid(param, "%s %q is not an appKV key: 1 to %d letters, digits, '.', '_', ':' or '-', not starting with '.', without '..' or '/'",
			param, key, MaxKeyLen)
	}
	return nil
}

// IsRecordKey reports whether key goes to the per-viewer record store.
func IsRecordKey(key string) bool { return strings.HasPrefix(key, RecordPrefix) }

// Viewer is who reads or writes an app's appKV: the app's owner, a signed-in account that is not the
// owner, or an anonymous visitor.
type Viewer struct {
	// AccountID is the viewer's account ("" when Anonymous); the record store keys records by it.
	AccountID string
	// Owner is set when the viewer is the app's owner (AccountID is then the app's account).
	Owner bool
	// Anonymous is set for a visitor who is not signed in.
	Anonymous bool
}

// visible answers not_found when the viewer may not see the app at all: a private app to anyone but its
// owner, and a viewer claiming to own another account's app.
func visible(a *App, v Viewer) error {
	switch {
	case v.Owner && v.AccountID == a.AccountID:
		return nil
	case v.Owner, a.Sharing == SharingPrivate:
		return svcerr.NotFoundf("no app %q", a.Slug).WithDetails("slug", a.Slug)
	case !v.Anonymous && v.AccountID == "":
		return fmt.Errorf("appKV of app %s: a signed-in viewer without an account", a.Slug)
	}
	return nil
}

// forbidden is a 403 naming the key.
func forbidden(key, format string, args ...any) error {
	return (&svcerr.Error{Code: svcerr.Forbidden, Param: "key", Message: fmt.Sprintf(format, args...)}).WithDetails("key", key)
}

// CanRead answers whether the viewer may read key of the app's appKV (seed 002): the owner every key; a
// signed-in viewer of a shared app their own record: keys and the publicDataKeys; an anonymous viewer
// only the publicDataKeys (403 naming the key otherwise, record: keys never). A private app is
// not_found to anyone but its owner.
func CanRead(a *App, v Viewer, key string) error {
	if err := ValidateKey("key", key); err != nil {
		return err
	}
	if err := visible(a, v); err != nil || v.Owner {
		return err
	}
	switch {
	case IsRecordKey(key) && v.Anonymous:
		return forbidden(key, "%s is a record: key, which anonymous viewers never read", key)
	case IsRecordKey(key):
		return nil
	case !slices.Contains(a.Manifest.PublicDataKeys, key):
		return forbidden(key, "%s is not one of the app's publicDataKeys, the only keys its viewers may read", key)
	}
	return nil
}

// CanWrite answers whether the viewer may write (set or delete) key of the app's appKV: the owner every
// key; a signed-in viewer of a shared app their own record: keys; an anonymous viewer none (403 naming
// the key).
func CanWrite(a *App, v Viewer, key string) error {
	if err := ValidateKey("key", key); err != nil {
		return err
	}
	if err := visible(a, v); err != nil || v.Owner {
		return err
	}
	switch {
	case v.Anonymous:
		return forbidden(key, "anonymous viewers never write appKV (key %s)", key)
	case !IsRecordKey(key):
		return forbidden(key, "%s is the app's own data, which only its owner writes; viewers write record: keys", key)
	}
	return nil
}

// checkValue checks an appKV value: one strict JSON document of at most MaxValueBytes.
func checkValue(param string, value []byte) error {
	if len(value) > MaxValueBytes {
		return svcerr.New(svcerr.PayloadTooLarge, "%s has %d bytes, more than %d", param, len(value), MaxValueBytes).WithDetails("param", param)
	}
	if _, err := strictjson.Decode(value, strictjson.Options{FreeText: func(strictjson.Path) bool { return true }}); err != nil {
		return svcerr.Invalid(param, "%s is not a JSON value: %v", param, err)
	}
	return nil
}

// dataPath is the file of a plain key.
func dataPath(key string) string { return dataDir + key + ".json" }

// KVGet answers the value of key for the viewer (CanRead's rules); not_found naming the key when unset.
func (s *Store) KVGet(ctx context.Context, a *App, v Viewer, key string) (json.RawMessage, error) {
	if err := CanRead(a, v, key); err != nil {
		return nil, err
	}
	if !IsRecordKey(key) {
		data, err := s.readFile(ctx, a.Scope(), a.Slug, dataPath(key), MaxValueBytes)
		if svcerr.Is(err, svcerr.NotFound) {
			return nil, unset(key)
		}
		return data, err
	}
	var values []string // a slice: no row is an empty one
	err := s.db.NewRaw("SELECT value::text FROM app_records WHERE app_id = ? AND viewer_id = ? AND key = ?", a.ID, v.AccountID, key).
		Scan(ctx, &values)
	if err != nil && !isNoRows(err) {
		return nil, fmt.Errorf("read appKV %s of app %s: %w", key, a.Slug, err)
	}
	if len(values) == 0 {
		return nil, unset(key)
	}
	return json.RawMessage(values[0]), nil
}

func unset(key string) error {
	return svcerr.NotFoundf("no appKV value %s", key).WithDetails("key", key)
}

// KVSet sets key to value (a JSON document of at most MaxValueBytes) for the viewer (CanWrite's rules).
func (s *Store) KVSet(ctx context.Context, a *App, v Viewer, key string, value json.RawMessage) error {
	if err := CanWrite(a, v, key); err != nil {
		return err
	}
	if err := checkValue("value", value); err != nil {
		return err
	}
	if !IsRecordKey(key) {
		_, err := s.writeFile(ctx, folder.Writer{Scope: a.Scope()}, a.Slug, dataPath(key), value)
		return err
	}
	_, err := s.db.NewRaw(`INSERT INTO app_records (app_id, viewer_id, key, value) VALUES (?, ?, ?, ?)
		ON CONFLICT (app_id, viewer_id, key) DO UPDATE SET value = EXCLUDED.value, updated_at = now()`,
		a.ID, v.AccountID, key, string(value)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("write appKV %s of app %s: %w", key, a.Slug, err)
	}
	return nil
}

// KVDelete removes key for the viewer (CanWrite's rules); not_found naming the key when unset.
func (s *Store) KVDelete(ctx context.Context, a *App, v Viewer, key string) error {
	if err := CanWrite(a, v, key); err != nil {
		return err
	}
	if !IsRecordKey(key) {
		f, err := s.fileRow(ctx, a.Scope(), a.Slug, dataPath(key))
		if svcerr.Is(err, svcerr.NotFound) {
			return unset(key)
		}
		if err != nil {
			return err
		}
		return s.folder.Supersede(ctx, folderOf(a.Scope(), a.Slug), f.Name, "")
	}
	res, err := s.db.NewRaw("DELETE FROM app_records WHERE app_id = ? AND viewer_id = ? AND key = ?", a.ID, v.AccountID, key).Exec(ctx)
	if err != nil {
		return fmt.Errorf("delete appKV %s of app %s: %w", key, a.Slug, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return unset(key)
	}
	return nil
}

// KVList answers the keys the viewer may read that hold a value, sorted: for the owner every plain key
// and their own records, for a signed-in viewer the publicDataKeys set and their own records, for an
// anonymous viewer the publicDataKeys set.
func (s *Store) KVList(ctx context.Context, a *App, v Viewer) ([]string, error) {
	if err := visible(a, v); err != nil {
		return nil, err
	}
	rows, err := s.folderFiles(ctx, a.Scope(), a.Slug)
	if err != nil {
		return nil, err
	}
	keys := []string{}
	for _, r := range rows {
		key, ok := strings.CutPrefix(r.Name, dataDir)
		key, isJSON := strings.CutSuffix(key, ".json")
		if ok && isJSON && (v.Owner || slices.Contains(a.Manifest.PublicDataKeys, key)) {
			keys = append(keys, key)
		}
	}
	if !v.Anonymous {
		var records []string
		err := s.db.NewRaw("SELECT key FROM app_records WHERE app_id = ? AND viewer_id = ? ORDER BY key", a.ID, v.AccountID).Scan(ctx, &records)
		if err != nil && !isNoRows(err) {
			return nil, fmt.Errorf("list appKV records of app %s: %w", a.Slug, err)
		}
		keys = append(keys, records...)
	}
	slices.Sort(keys)
	return keys, nil
}
