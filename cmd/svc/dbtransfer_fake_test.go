package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcplatform/svc/client"
)

func init() {
	// Tests split archives of a few KiB into parts, and retry a part at once.
	minPartSize = 1 << 10
	partRetryWait = 10 * time.Millisecond
}

// fakeTransfers stands in for the transfer routes of the API, with faults to inject.
type fakeTransfers struct {
	srv *httptest.Server

	mu        sync.Mutex
	next      int
	transfers map[string]*fakeTransfer
	requests  []string // "METHOD path" of every request
	// archive is the content of every export.
	archive []byte
	// exportFails makes the next export fail with this error once it runs.
	exportFails *client.DatabaseTransferError
	// tamperArchive serves this many archives with a byte changed.
	tamperArchive int
	// restoreFails makes the imports completed from now on fail with this error.
	restoreFails *client.DatabaseTransferError
	// restoreHangs keeps the imports completed while it is set running, calling onHang on each read.
	restoreHangs bool
	onHang       func()
	// failPart answers the upload of this part number with failStatus, failTimes times.
	failPart, failStatus, failTimes int
}

// fakeTransfer is a transfer and what the fake keeps of it.
type fakeTransfer struct {
	t     client.DatabaseTransfer
	parts map[int][]byte
	polls int
	fail  *client.DatabaseTransferError
}

// fakePublicKey is the key the fake says signed its archives.
const fakePublicKey = "MCowBQYDK2VwAyEAfakefakefakefakefakefakefakefakefake="

func newFakeTransfers(t *testing.T) *fakeTransfers {
	t.Helper()
	f := &fakeTransfers{transfers: map[string]*fakeTransfer{}, archive: []byte(strings.Repeat("PK archive bytes\n", 300))}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// vars is the CLI's environment against the fake.
func (f *fakeTransfers) vars(t *testing.T) map[string]string {
	env := testEnv(t, nil)
	env["SVC_BASE_URL"], env["SVC_API_KEY"] = f.srv.URL, goodKey
	return env
}

// get is a copy of a transfer.
func (f *fakeTransfers) get(id string) (client.DatabaseTransfer, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ft, ok := f.transfers[id]
	if !ok {
		return client.DatabaseTransfer{}, false
	}
	return ft.snapshot(), true
}

// count is the number of requests whose "METHOD path" is req, or starts with it when req ends in a space.
func (f *fakeTransfers) count(req string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if r == req || strings.HasSuffix(req, " ") && strings.HasPrefix(r, req) {
			n++
		}
	}
	return n
}

// snapshot is the transfer with its parts listed by number.
func (ft *fakeTransfer) snapshot() client.DatabaseTransfer {
	t := ft.t
	t.Parts = []client.DatabaseTransferPart{}
	for n := 1; n <= client.MaxTransferParts && len(t.Parts) < len(ft.parts); n++ {
		if b, ok := ft.parts[n]; ok {
			sum := sha256.Sum256(b)
			t.Parts = append(t.Parts, client.DatabaseTransferPart{PartNumber: n, Bytes: int64(len(b)), SHA256: hex.EncodeToString(sum[:])})
		}
	}
	return t
}

func (f *fakeTransfers) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.Path)
	fail := func(status int, code, msg string) {
		reply(w, status, map[string]any{"ok": false, "error": map[string]any{"code": code, "message": msg, "requestId": "req_fake"}})
	}
	if r.Header.Get("Authorization") != "Bearer "+goodKey {
		fail(http.StatusUnauthorized, "unauthenticated", "bad key")
		return
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1/databases/transfers")
	if !ok {
		fail(http.StatusNotFound, "not_found", "no route")
		return
	}
	if rest == "" && r.Method == http.MethodPost {
		var req client.CreateDatabaseTransferRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		f.next++
		expires := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
		ft := &fakeTransfer{t: client.DatabaseTransfer{ID: fmt.Sprintf("xfer_%d", f.next), Kind: req.Kind,
			AllowUnsigned: req.AllowUnsigned, CreatedAt: time.Now(), ExpiresAt: &expires}, parts: map[int][]byte{}}
		if req.Kind == client.TransferKindExport {
			ft.t.Status, ft.t.Progress.TablesTotal, ft.fail = client.TransferStatusRunning, 2, f.exportFails
		} else {
			ft.t.Status = client.TransferStatusAwaitingParts
		}
		f.transfers[ft.t.ID] = ft
		reply(w, http.StatusCreated, client.DatabaseTransferEnvelope{OK: true, Transfer: ft.snapshot()})
		return
	}
	parts := strings.Split(strings.TrimPrefix(rest, "/"), "/")
	ft, found := f.transfers[parts[0]]
	if !found {
		fail(http.StatusNotFound, "not_found", "no such transfer")
		return
	}
	t := &ft.t
	switch {
	case len(parts) == 1 && r.Method == http.MethodGet:
		ft.polls++
		if t.Status == client.TransferStatusRunning {
			t.Progress.TablesDone = min(ft.polls, 2)
			t.Progress.Bytes = int64(ft.polls) * 1000
			t.Progress.TablesTotal = 2
			hangs := t.Kind == client.TransferKindImport && f.restoreHangs
			if hangs && f.onHang != nil {
				f.onHang()
			}
			if ft.polls >= 2 && !hangs {
				f.finish(ft)
			}
		}
	case len(parts) == 1 && r.Method == http.MethodDelete:
		t.Status, t.CancelRequested = client.TransferStatusCancelled, true
	case len(parts) == 3 && parts[1] == "parts" && r.Method == http.MethodPut:
		n, _ := strconv.Atoi(parts[2])
		body, _ := io.ReadAll(r.Body)
		if n == f.failPart && f.failTimes > 0 {
			f.failTimes--
			fail(f.failStatus, "injected", "part refused by the test")
			return
		}
		sum := sha256.Sum256(body)
		if want := r.Header.Get(client.HeaderContentSHA256); want != hex.EncodeToString(sum[:]) {
			fail(http.StatusBadRequest, "content_mismatch", "sha256 differs")
			return
		}
		if t.Status != client.TransferStatusAwaitingParts {
			fail(http.StatusConflict, "conflict", "not awaiting parts")
			return
		}
		if old, ok := ft.parts[n]; ok && string(old) != string(body) {
			fail(http.StatusConflict, "conflict", "other bytes under an accepted part")
			return
		}
		ft.parts[n] = body
		reply(w, http.StatusOK, client.DatabaseTransferPartEnvelope{OK: true, Part: client.DatabaseTransferPart{PartNumber: n,
			Bytes: int64(len(body)), SHA256: hex.EncodeToString(sum[:])}})
		return
	case len(parts) == 2 && parts[1] == "complete" && r.Method == http.MethodPost:
		if t.Status != client.TransferStatusAwaitingParts {
			fail(http.StatusConflict, "conflict", "not awaiting parts")
			return
		}
		var all []byte
		for n := 1; n <= len(ft.parts); n++ {
			all = append(all, ft.parts[n]...)
		}
		sum := sha256.Sum256(all)
		t.Status, ft.polls, ft.fail = client.TransferStatusRunning, 0, f.restoreFails
		t.Archive = &client.DatabaseArchive{Bytes: int64(len(all)), SHA256: hex.EncodeToString(sum[:]), PublicKey: fakePublicKey}
		reply(w, http.StatusAccepted, client.DatabaseTransferEnvelope{OK: true, Transfer: ft.snapshot()})
		return
	case len(parts) == 2 && parts[1] == "archive" && r.Method == http.MethodGet:
		if t.Status != client.TransferStatusCompleted || t.Kind != client.TransferKindExport {
			fail(http.StatusConflict, "conflict", "no archive")
			return
		}
		sum := sha256.Sum256(f.archive)
		w.Header().Set("Content-Type", client.MediaTypeZip)
		w.Header().Set("Content-Length", strconv.Itoa(len(f.archive)))
		w.Header().Set(client.HeaderContentSHA256, hex.EncodeToString(sum[:]))
		w.Header().Set(client.HeaderArchivePublicKey, fakePublicKey)
		body := f.archive
		if f.tamperArchive > 0 {
			f.tamperArchive--
			body = append([]byte{'X'}, f.archive[1:]...)
		}
		_, _ = w.Write(body)
		return
	default:
		fail(http.StatusNotFound, "not_found", "no route")
		return
	}
	reply(w, http.StatusOK, client.DatabaseTransferEnvelope{OK: true, Transfer: ft.snapshot()})
}

// finish ends a running transfer: completed, or failed when the fake was told so.
func (f *fakeTransfers) finish(ft *fakeTransfer) {
	now := time.Now()
	ft.t.CompletedAt = &now
	if ft.fail != nil {
		ft.t.Status, ft.t.Error = client.TransferStatusFailed, ft.fail
		return
	}
	ft.t.Status = client.TransferStatusCompleted
	if ft.t.Kind == client.TransferKindExport {
		sum := sha256.Sum256(f.archive)
		ft.t.Archive = &client.DatabaseArchive{Bytes: int64(len(f.archive)), SHA256: hex.EncodeToString(sum[:]), PublicKey: fakePublicKey}
	}
}
