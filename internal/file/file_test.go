package file_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/page"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

// testTiers are small limits, so tests fill them with few bytes.
var testTiers = file.Tiers{
	schema.TierStandard: {StorageBytes: 1000, FileBytes: 100, MonthlyDownloadBytes: 500},
	schema.TierClub:     {StorageBytes: 10000, FileBytes: 500, MonthlyDownloadBytes: 5000},
}

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

type fixture struct {
	db      *bun.DB
	store   *file.Store
	clock   *clock
	account string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	db := testdb.New(t)
	c := &clock{t: time.Now()}
	f := &fixture{db: db, clock: c, store: file.NewStore(db, file.Options{Tiers: testTiers, Now: c.Now})}
	f.account = f.newAccount(t)
	return f
}

func (f *fixture) newAccount(t *testing.T) string {
	t.Helper()
	id := ids.New(ids.Account)
	_, err := f.db.NewInsert().Model(&schema.Account{ID: id, Name: "files"}).Exec(context.Background())
	require.NoError(t, err)
	return id
}

func (f *fixture) newProject(t *testing.T, accountID string) string {
	t.Helper()
	id := ids.New(ids.Project)
	_, err := f.db.NewInsert().Model(&schema.Project{ID: id, AccountID: accountID, Name: "p", Status: "active"}).Exec(context.Background())
	require.NoError(t, err)
	return id
}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// newFile describes a file of size bytes named name in the scope.
func newFile(scope tenant.Scope, name string, size int64) file.NewFile {
	id := ids.New(ids.File)
	return file.NewFile{ID: id, Scope: scope, Name: name, MediaType: "text/plain", Bytes: size,
		SHA256: sum(id), BlobKey: scope.AccountID + "/" + id}
}

// upload reserves and settles a file, as the route will.
func (f *fixture) upload(t *testing.T, scope tenant.Scope, n file.NewFile) *schema.File {
	t.Helper()
	ctx := context.Background()
	r, err := f.store.Reserve(ctx, scope.AccountID, n.Bytes)
	require.NoError(t, err)
	row, created, err := f.store.Create(ctx, r, n)
	require.NoError(t, err)
	require.True(t, created)
	return row
}

func (f *fixture) usage(t *testing.T, accountID string) file.Usage {
	t.Helper()
	u, err := f.store.Usage(context.Background(), accountID)
	require.NoError(t, err)
	return u
}

func requireCode(t *testing.T, err error, code string) *svcerr.Error {
	t.Helper()
	require.Error(t, err)
	e, ok := svcerr.As(err)
	require.True(t, ok, "not a svcerr: %v", err)
	require.Equal(t, code, e.Code, e.Message)
	return e
}

func TestValidateName(t *testing.T) {
	for _, name := range []string{"report.pdf", "a.exe.txt", "x.com.txt", "shell", "notes .txt", "é.md", strings.Repeat("a", 255)} {
		require.NoError(t, file.ValidateName(name), name)
	}
	for _, name := range []string{"", strings.Repeat("a", 256), "a/b", `a\b`, "/etc/passwd", "..", "a..b", "../x",
		"x\x00y", "x\ny", "x\ty", "x\u0085y", "x\x7fy", "\xff.txt", "...", " . ", "."} {
		e := requireCode(t, file.ValidateName(name), svcerr.InvalidRequest)
		require.Equal(t, "name", e.Param, name)
	}
	for _, name := range []string{"run.exe", "RUN.EXE", "install.Sh", "b.bat", "c.com", "run.exe.", "run.exe. . ", "run.EXE   "} {
		e := requireCode(t, file.ValidateName(name), svcerr.UnsupportedMediaType)
		require.Equal(t, 415, svcerr.Status(e.Code), name)
	}
}

// TestConcurrentReservationsNeverOvershoot races 20 reservations of 55 bytes for a 1000-byte quota: exactly
// 18 fit (990 bytes); then exactly the 10 bytes left can be reserved, and not one more.
func TestConcurrentReservationsNeverOvershoot(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, errs[i] = f.store.Reserve(ctx, f.account, 55)
		}()
	}
	close(start)
	wg.Wait()
	ok, refused := 0, 0
	for _, err := range errs {
		if err == nil {
			ok++
			continue
		}
		requireCode(t, err, svcerr.PayloadTooLarge)
		refused++
	}
	require.Equal(t, 18, ok)
	require.Equal(t, 2, refused)
	require.Equal(t, int64(990), f.usage(t, f.account).ReservedBytes)
	var rows int64
	require.NoError(t, f.db.NewSelect().Model((*schema.StorageReservation)(nil)).ColumnExpr("coalesce(sum(bytes), 0)").
		Where("account_id = ?", f.account).Scan(ctx, &rows))
	require.Equal(t, int64(990), rows, "reserved_bytes is the sum of the reservations")

	_, err := f.store.Reserve(ctx, f.account, 10)
	require.NoError(t, err)
	_, err = f.store.Reserve(ctx, f.account, 1)
	e := requireCode(t, err, svcerr.PayloadTooLarge)
	require.Contains(t, e.Message, "1000 bytes used")
	require.Contains(t, e.Message, "of 1000 bytes total")
	require.Contains(t, e.Message, "needs 1 bytes")
	require.Equal(t, int64(1000), f.usage(t, f.account).ReservedBytes)
}

func TestPerFileCapRefusedEvenWithSpace(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	_, err := f.store.Reserve(ctx, f.account, 101)
	e := requireCode(t, err, svcerr.PayloadTooLarge)
	require.Equal(t, int64(100), e.Details["maxFileBytes"])
	require.Contains(t, e.Message, "101 bytes")
	require.Zero(t, f.usage(t, f.account).ReservedBytes, "a refused reservation holds nothing")
	_, err = f.store.Reserve(ctx, f.account, 100)
	require.NoError(t, err)

	require.NoError(t, file.SetTier(ctx, f.db, f.account, schema.TierClub))
	_, err = f.store.Reserve(ctx, f.account, 101)
	require.NoError(t, err, "the club tier's cap is larger")
	u := f.usage(t, f.account)
	require.Equal(t, schema.TierClub, u.Tier)
	require.Equal(t, int64(201), u.ReservedBytes)

	requireCode(t, file.SetTier(ctx, f.db, f.account, "gold"), svcerr.InvalidRequest)
	requireCode(t, file.SetTier(ctx, f.db, ids.New(ids.Account), schema.TierClub), svcerr.NotFound)
}

func TestReleaseOnFailureGivesTheBytesBack(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	scope := tenant.Scope{AccountID: f.account}
	for range 10 { // fill the quota with reservations of failed uploads, releasing each
		r, err := f.store.Reserve(ctx, f.account, 100)
		require.NoError(t, err)
		require.NoError(t, f.store.Release(ctx, r))
		require.NoError(t, f.store.Release(ctx, r), "release is idempotent")
		_, _, err = f.store.Create(ctx, r, newFile(scope, "late.txt", 10))
		require.Error(t, err, "a released reservation cannot be settled")
	}
	u := f.usage(t, f.account)
	require.Zero(t, u.ReservedBytes)
	require.Zero(t, u.UsedBytes)
	list, _, err := f.store.List(ctx, scope, file.Filter{}, page.Params{Limit: 10})
	require.NoError(t, err)
	require.Empty(t, list)

	// A reservation whose process died is released by the sweep once it expires.
	_, err = f.store.Reserve(ctx, f.account, 100)
	require.NoError(t, err)
	n, err := f.store.ReleaseExpired(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "not expired yet")
	f.clock.Set(f.clock.Now().Add(2 * time.Hour))
	n, err = f.store.ReleaseExpired(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Zero(t, f.usage(t, f.account).ReservedBytes)
}

func TestCreateSettlesAndReplaysAnswerTheSameFile(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	pid := f.newProject(t, f.account)
	scope := tenant.Scope{AccountID: f.account, ProjectID: &pid}
	n := newFile(scope, "a.txt", 80)
	n.MediaType, n.Purpose = "", "report"
	r, err := f.store.Reserve(ctx, f.account, 100)
	require.NoError(t, err)
	row, created, err := f.store.Create(ctx, r, n)
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, file.DefaultMediaType, row.MediaType)
	u := f.usage(t, f.account)
	require.Equal(t, int64(80), u.UsedBytes, "the file's own size counts, not the reservation's")
	require.Zero(t, u.ReservedBytes)

	r2, err := f.store.Reserve(ctx, f.account, 80)
	require.NoError(t, err)
	again, created, err := f.store.Create(ctx, r2, n)
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, row.ID, again.ID)
	require.Equal(t, row.CreatedAt.UTC(), again.CreatedAt.UTC())
	u = f.usage(t, f.account)
	require.Equal(t, int64(80), u.UsedBytes, "a replay stores no second copy")
	require.Zero(t, u.ReservedBytes, "and releases its reservation")

	w := file.ToWire(row)
	require.Equal(t, row.ID, w.ID)
	require.Equal(t, "a.txt", w.Name)
	require.Equal(t, int64(80), w.Bytes)
	require.Equal(t, "report", w.Purpose)
	require.Equal(t, &pid, w.ProjectID)

	r3, err := f.store.Reserve(ctx, f.account, 10)
	require.NoError(t, err)
	_, _, err = f.store.Create(ctx, r3, newFile(scope, "big.txt", 11))
	require.Error(t, err, "a file larger than its reservation is refused")
	_, _, err = f.store.Create(ctx, r3, newFile(scope, "run.exe", 5))
	requireCode(t, err, svcerr.UnsupportedMediaType)
}

func TestSoftDeletedFilesStopCounting(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	scope := tenant.Scope{AccountID: f.account}
	var rows []*schema.File
	for i := range 10 {
		rows = append(rows, f.upload(t, scope, newFile(scope, fmt.Sprintf("f%d.txt", i), 100)))
	}
	_, err := f.store.Reserve(ctx, f.account, 1)
	requireCode(t, err, svcerr.PayloadTooLarge)

	deleted, err := f.store.Delete(ctx, scope, rows[3].ID)
	require.NoError(t, err)
	require.Equal(t, schema.FileDeleted, deleted.Status)
	require.WithinDuration(t, f.clock.Now().Add(file.DefaultPurgeAfter), *deleted.PurgeAt, time.Millisecond)
	_, err = f.store.Get(ctx, scope, rows[3].ID)
	requireCode(t, err, svcerr.NotFound)
	_, err = f.store.Delete(ctx, scope, rows[3].ID)
	requireCode(t, err, svcerr.NotFound)
	list, _, err := f.store.List(ctx, scope, file.Filter{}, page.Params{Limit: 50})
	require.NoError(t, err)
	require.Len(t, list, 9)
	for _, l := range list {
		require.NotEqual(t, rows[3].ID, l.ID)
	}
	require.Equal(t, int64(900), f.usage(t, f.account).UsedBytes)
	_, err = f.store.Reserve(ctx, f.account, 100)
	require.NoError(t, err, "the deleted file's bytes are free again")

	purged, err := f.store.Purge(ctx, rows[3].ID)
	require.NoError(t, err)
	require.Equal(t, rows[3].BlobKey, purged.BlobKey)
	purged, err = f.store.Purge(ctx, rows[3].ID)
	require.NoError(t, err)
	require.Nil(t, purged, "purging twice does nothing")
	purged, err = f.store.Purge(ctx, rows[4].ID)
	require.NoError(t, err)
	require.Nil(t, purged, "a live file is never purged")
	_, err = f.store.Get(ctx, scope, rows[4].ID)
	require.NoError(t, err)
	require.Equal(t, int64(900), f.usage(t, f.account).UsedBytes, "the purge changes no accounting")
}

func TestAnotherScopesFileIsNotFound(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	mine := tenant.Scope{AccountID: f.account}
	row := f.upload(t, mine, newFile(mine, "secret.txt", 10))
	other := f.newAccount(t)
	pid := f.newProject(t, f.account)
	for _, scope := range []tenant.Scope{{AccountID: other}, {AccountID: f.account, ProjectID: &pid}} {
		_, err := f.store.Get(ctx, scope, row.ID)
		requireCode(t, err, svcerr.NotFound)
		_, err = f.store.Delete(ctx, scope, row.ID)
		requireCode(t, err, svcerr.NotFound)
		list, _, err := f.store.List(ctx, scope, file.Filter{}, page.Params{Limit: 50})
		require.NoError(t, err)
		require.Empty(t, list)
	}
	got, err := f.store.Get(ctx, mine, row.ID)
	require.NoError(t, err)
	require.Equal(t, row.ID, got.ID)
	require.Equal(t, int64(10), f.usage(t, f.account).UsedBytes)
	require.Zero(t, f.usage(t, other).UsedBytes)

	r, err := f.store.Reserve(ctx, other, 10)
	require.NoError(t, err)
	n := newFile(tenant.Scope{AccountID: other}, "x.txt", 10)
	n.ID = row.ID
	_, _, err = f.store.Create(ctx, r, n)
	require.Error(t, err, "an id of another account is never answered")
	require.Zero(t, f.usage(t, other).UsedBytes)
}

func TestListFiltersAndPages(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	scope := tenant.Scope{AccountID: f.account}
	for _, name := range []string{"a_1.txt", "ab.txt", "a%.txt", "b.txt"} {
		n := newFile(scope, name, 1)
		if name == "b.txt" {
			n.Purpose = "backup"
		}
		f.upload(t, scope, n)
	}
	names := func(filter file.Filter) []string {
		list, _, err := f.store.List(ctx, scope, filter, page.Params{Limit: 50})
		require.NoError(t, err)
		var out []string
		for _, l := range list {
			out = append(out, l.Name)
		}
		return out
	}
	require.ElementsMatch(t, []string{"a_1.txt"}, names(file.Filter{NamePrefix: "a_"}), "LIKE wildcards are escaped")
	require.ElementsMatch(t, []string{"a%.txt"}, names(file.Filter{NamePrefix: "a%"}))
	require.ElementsMatch(t, []string{"a_1.txt", "ab.txt", "a%.txt"}, names(file.Filter{NamePrefix: "a"}))
	require.Equal(t, []string{"b.txt"}, names(file.Filter{Purpose: "backup"}))

	p := page.Params{Limit: 3}
	first, next, err := f.store.List(ctx, scope, file.Filter{}, p)
	require.NoError(t, err)
	require.Len(t, first, 3)
	require.NotNil(t, next)
	p, err = page.Parse(3, *next)
	require.NoError(t, err)
	rest, next, err := f.store.List(ctx, scope, file.Filter{}, p)
	require.NoError(t, err)
	require.Len(t, rest, 1)
	require.Nil(t, next)
}

// TestMonthlyDownloadVolumeResetsOnTheFirst spends the volume in the last second of November (UTC) and
// finds it whole again at midnight on December 1st.
func TestMonthlyDownloadVolumeResetsOnTheFirst(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.clock.Set(time.Date(2026, 11, 30, 23, 59, 59, 0, time.UTC))
	g, err := f.store.ConsumeDownload(ctx, f.account, 400)
	require.NoError(t, err)
	require.Equal(t, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), g.Month.UTC())
	_, err = f.store.ConsumeDownload(ctx, f.account, 100)
	require.NoError(t, err, "exactly the limit is allowed")
	_, err = f.store.ConsumeDownload(ctx, f.account, 1)
	e := requireCode(t, err, svcerr.LimitExceeded)
	require.Equal(t, 429, svcerr.Status(e.Code))
	require.Equal(t, "2026-12-01T00:00:00Z", e.Details["resetAt"])
	require.Equal(t, int64(1), e.Details["retryAfterSeconds"])
	require.Equal(t, file.DownloadOperation, e.Details["operation"])
	require.Contains(t, e.Message, "500 bytes")
	require.Contains(t, e.Message, "2026-12-01T00:00:00Z")

	require.NoError(t, f.store.RefundDownload(ctx, g, 50), "a download cut short gives back what was not sent")
	_, err = f.store.ConsumeDownload(ctx, f.account, 50)
	require.NoError(t, err)
	_, err = f.store.ConsumeDownload(ctx, f.account, 1)
	requireCode(t, err, svcerr.LimitExceeded)

	// 19:00 on November 30th in UTC-5 is already December 1st in UTC.
	f.clock.Set(time.Date(2026, 11, 30, 19, 0, 0, 0, time.FixedZone("UTC-5", -5*3600)))
	g, err = f.store.ConsumeDownload(ctx, f.account, 500)
	require.NoError(t, err, "the counter resets on the 1st, UTC")
	require.Equal(t, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), g.Month.UTC())
	_, err = f.store.ConsumeDownload(ctx, f.account, 1)
	requireCode(t, err, svcerr.LimitExceeded)

	other := f.newAccount(t)
	require.NoError(t, file.SetTier(ctx, f.db, other, schema.TierClub))
	_, err = f.store.ConsumeDownload(ctx, other, 5000)
	require.NoError(t, err, "the club tier's volume is larger, and each account has its own")
}

// TestSettleAndReleaseRaceOneWins settles and releases the same reservation at once, as a request and
// its failure handler might: exactly one takes effect, and the accounting matches the rows.
func TestSettleAndReleaseRaceOneWins(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	scope := tenant.Scope{AccountID: f.account}
	var files int64
	for range 10 {
		r, err := f.store.Reserve(ctx, f.account, 100)
		require.NoError(t, err)
		start := make(chan struct{})
		var wg sync.WaitGroup
		var createErr, releaseErr error
		var created bool
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			_, created, createErr = f.store.Create(ctx, r, newFile(scope, "r.txt", 50))
		}()
		go func() { defer wg.Done(); <-start; releaseErr = f.store.Release(ctx, r) }()
		close(start)
		wg.Wait()
		require.NoError(t, releaseErr)
		require.Equal(t, createErr == nil, created, "create either settles or fails: %v", createErr)
		if created {
			files++
		}
		u := f.usage(t, f.account)
		require.Zero(t, u.ReservedBytes)
		require.Equal(t, files*50, u.UsedBytes)
	}
	var live int64
	require.NoError(t, f.db.NewSelect().Model((*schema.File)(nil)).ColumnExpr("count(*)").
		Where("account_id = ?", f.account).Scan(ctx, &live))
	require.Equal(t, files, live)
}

func TestParseSize(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"1048576": 1 << 20, "10MiB": 10 << 20, "10 MB": 10 << 20, "1GiB": 1 << 30, "512KB": 512 << 10, "3B": 3, "2TiB": 2 << 40} {
		got, err := file.ParseSize(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "0", "-1MiB", "ten", "1.5GiB", "9999999999TiB", "MiB"} {
		_, err := file.ParseSize(bad)
		require.Error(t, err, bad)
	}
}

// TestValidateNameForFolders: under an app's or a skill's purpose a name may be a path of valid
// segments; under any other purpose it is a plain name.
func TestValidateNameForFolders(t *testing.T) {
	t.Parallel()
	for _, purpose := range []string{file.AppsPurposePrefix + "notes/", file.SkillsPurposePrefix + "weather/"} {
		require.NoError(t, file.ValidateNameFor(purpose, "references/api.md"), purpose)
		require.Error(t, file.ValidateNameFor(purpose, "a/../b"), purpose)
		require.Error(t, file.ValidateNameFor(purpose, "a//b"), purpose)
	}
	require.Error(t, file.ValidateNameFor("/other/", "references/api.md"))
}
