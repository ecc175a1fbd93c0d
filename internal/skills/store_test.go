package skills_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/skills"
	"github.com/svcplatform/svc/internal/testdb"
	"github.com/svcplatform/svc/schema"
)

// smallTiers refuse any file over 1000 bytes, so a test makes the files capability refuse one write.
var smallTiers = file.Tiers{
	schema.TierStandard: {StorageBytes: 1 << 20, FileBytes: 1000, MonthlyDownloadBytes: 1 << 20},
	schema.TierClub:     {StorageBytes: 1 << 20, FileBytes: 1000, MonthlyDownloadBytes: 1 << 20},
}

// newStore answers a skills store on a fresh schema with small file limits, and a new account's id.
func newStore(t *testing.T) (*skills.Store, *bun.DB, string) {
	t.Helper()
	db := testdb.New(t)
	account := ids.New(ids.Account)
	_, err := db.NewInsert().Model(&schema.Account{ID: account, Name: "skills"}).Exec(context.Background())
	require.NoError(t, err)
	return skills.NewStore(db, file.NewStore(db, file.Options{Tiers: smallTiers}), blob.NewLocal(t.TempDir()), nil, nil), db, account
}

func toolMD(version, body string) []byte {
	return []byte("---\nname: tool\ndescription: A tool\nversion: " + version + "\n---\n" + body + "\n")
}

// folderOf reads every file of the account's skill tool by path.
func folderOf(t *testing.T, st *skills.Store, account string) map[string]string {
	t.Helper()
	ctx := context.Background()
	sk, err := st.Get(ctx, account, "tool")
	require.NoError(t, err)
	files, err := st.Files(ctx, sk)
	require.NoError(t, err)
	out := map[string]string{}
	for _, f := range files {
		data, _, err := st.ReadFile(ctx, sk, f.Path)
		require.NoError(t, err)
		out[f.Path] = string(data)
	}
	return out
}

// TestSkillsReplaceFailingMidwayKeepsPrevious: a replace whose third write the files capability refuses
// (a resource over the file size limit, after valid ones) fails, and the previous version is still
// served whole: same row, same files, same contents; the staged files are gone.
func TestSkillsReplaceFailingMidwayKeepsPrevious(t *testing.T) {
	t.Parallel()
	st, db, account := newStore(t)
	ctx := context.Background()
	v1 := map[string][]byte{"SKILL.md": toolMD("1", "first"), "a.txt": []byte("alpha one"), "old.txt": []byte("only in v1")}
	_, err := st.Create(ctx, skills.NewSkill{AccountID: account, Files: v1})
	require.NoError(t, err)

	v2 := map[string][]byte{"SKILL.md": toolMD("2", "second"), "a.txt": []byte("alpha two"), "b.txt": []byte("bravo"),
		"z-big.bin": []byte(strings.Repeat("z", 2000))}
	_, err = st.Create(ctx, skills.NewSkill{AccountID: account, Files: v2})
	require.Error(t, err)

	sk, err := st.Get(ctx, account, "tool")
	require.NoError(t, err)
	require.InDelta(t, 1.0, sk.Version, 0)
	require.Equal(t, map[string]string{"SKILL.md": string(v1["SKILL.md"]), "a.txt": "alpha one", "old.txt": "only in v1"},
		folderOf(t, st, account))
	live, err := db.NewSelect().Model((*schema.File)(nil)).Where("account_id = ? AND status = ?", account, schema.FileActive).Count(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 3, live, "the staged files of the failed replace are deleted")

	v3 := map[string][]byte{"SKILL.md": toolMD("3", "third"), "b.txt": []byte("bravo")}
	_, err = st.Create(ctx, skills.NewSkill{AccountID: account, Files: v3})
	require.NoError(t, err)
	require.Equal(t, map[string]string{"SKILL.md": string(v3["SKILL.md"]), "b.txt": "bravo"}, folderOf(t, st, account))
}

// TestSkillsConcurrentCreatesDoNotInterleave: creates of one name at the same time leave exactly one
// of the folders, never a mix of both.
func TestSkillsConcurrentCreatesDoNotInterleave(t *testing.T) {
	t.Parallel()
	st, _, account := newStore(t)
	ctx := context.Background()
	folders := []map[string][]byte{
		{"SKILL.md": toolMD("1", "one"), "a.txt": []byte("from one"), "one.txt": []byte("1")},
		{"SKILL.md": toolMD("2", "two"), "a.txt": []byte("from two"), "two.txt": []byte("2")},
	}
	var wg sync.WaitGroup
	errs := make([]error, len(folders))
	for i := range folders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = st.Create(ctx, skills.NewSkill{AccountID: account, Files: folders[i]})
		}()
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	got := folderOf(t, st, account)
	want := map[string]string{}
	for p, b := range folders[0] {
		want[p] = string(b)
	}
	if got["a.txt"] == "from two" {
		want = map[string]string{}
		for p, b := range folders[1] {
			want[p] = string(b)
		}
	}
	require.Equal(t, want, got)
}
