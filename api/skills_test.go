package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/app/apptest"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/skills"
)

// skillText is a SKILL.md named name with visibility vis and the body text.
func skillText(name, vis, body string) string {
	return "---\nname: " + name + "\ndescription: Helps with " + name + "\ntags: [demo]\nversion: 1\nvisibility: " + vis +
		"\nmetadata:\n  clawdbot:\n    emoji: \"🧪\"\n    requires:\n      bins: [curl]\n---\n" + body + "\n"
}

// postSkill posts a SKILL.md alone.
func postSkill(t *testing.T, env *apptest.Env, key, idem, text string) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/skills", Key: key, Body: text,
		Headers: map[string]string{"Idempotency-Key": idem, "Content-Type": "text/markdown"}})
}

// postSkillZip posts a skill folder zipped.
func postSkillZip(t *testing.T, env *apptest.Env, key, idem string, files map[string]string) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/skills", Key: key, Body: zipOf(t, files),
		Headers: map[string]string{"Idempotency-Key": idem, "Content-Type": "application/zip"}})
}

func skillOf(t *testing.T, resp *apptest.Response) map[string]any {
	t.Helper()
	return resp.Body["skill"].(map[string]any)
}

func skillPaths(t *testing.T, resp *apptest.Response) map[string]string {
	t.Helper()
	out := map[string]string{}
	files, _ := skillOf(t, resp)["files"].([]any)
	for _, f := range files {
		m := f.(map[string]any)
		out[m["path"].(string)] = m["kind"].(string)
	}
	return out
}

func getRaw(t *testing.T, env *apptest.Env, key, path string) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Req{Method: http.MethodGet, Path: path, Key: key})
}

// TestSkillsCreateReadDelete: a SKILL.md alone and a ZIP folder are created, listed, read with their
// body and files, their files read raw; a re-POST replaces (version from the file, a dropped file gone);
// a refusal names the rule; another account's skill is 404; delete removes the row and files.
func TestSkillsCreateReadDelete(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	owner := newArtifactAccount(t, env)

	text := postSkill(t, env, owner.secret, "s1", skillText("notes", "private", "# Notes\nTake notes."))
	require.Equal(t, http.StatusCreated, text.Status, "%s", text.Raw)
	got := skillOf(t, text)
	require.Equal(t, "private", got["visibility"])
	require.Nil(t, got["reviewStatus"])
	require.Equal(t, "🧪", got["emoji"])
	require.Equal(t, "# Notes\nTake notes.\n", got["body"])
	require.Equal(t, map[string]string{"SKILL.md": "skill"}, skillPaths(t, text))

	folder := map[string]string{"SKILL.md": skillText("zipped", "private", "Body"), "references/api.md": "# API\nGET /x",
		"scripts/run.py": "print('hi')", "data/deep/more/x.txt": "deep", "lib/a/b/c/d/six.txt": "six deep"}
	zipped := postSkillZip(t, env, owner.secret, "s2", folder)
	require.Equal(t, http.StatusCreated, zipped.Status, "%s", zipped.Raw)
	require.Equal(t, map[string]string{"SKILL.md": "skill", "references/api.md": "reference", "scripts/run.py": "resource",
		"data/deep/more/x.txt": "resource", "lib/a/b/c/d/six.txt": "resource"}, skillPaths(t, zipped))

	raw := getRaw(t, env, owner.secret, "/v1/skills/zipped/resources/scripts/run.py")
	require.Equal(t, http.StatusOK, raw.Status, "%s", raw.Raw)
	require.Equal(t, "print('hi')", string(raw.Raw))
	require.NotEmpty(t, raw.Header.Get("X-Content-Sha256"))
	raw = getRaw(t, env, owner.secret, "/v1/skills/zipped/resources/data/deep/more/x.txt")
	require.Equal(t, "deep", string(raw.Raw), "%d", raw.Status)
	raw = getRaw(t, env, owner.secret, "/v1/skills/zipped/resources/lib/a/b/c/d/six.txt")
	require.Equal(t, "six deep", string(raw.Raw), "a 6-segment path has its address: %d", raw.Status)
	missing := getRaw(t, env, owner.secret, "/v1/skills/zipped/resources/nothing.txt")
	require.Equal(t, http.StatusNotFound, missing.Status, "%s", missing.Raw)

	bad := postSkill(t, env, owner.secret, "s3", "name: x\n")
	require.Equal(t, http.StatusBadRequest, bad.Status, "%s", bad.Raw)
	require.Equal(t, "frontmatter", bad.Body["error"].(map[string]any)["param"])
	badEmoji := postSkill(t, env, owner.secret, "s4", strings.Replace(skillText("e", "private", "b"), "🧪", "xy", 1))
	require.Equal(t, http.StatusBadRequest, badEmoji.Status, "%s", badEmoji.Raw)
	require.Equal(t, "metadata.clawdbot.emoji", badEmoji.Body["error"].(map[string]any)["param"])
	badPath := postSkillZip(t, env, owner.secret, "s5", map[string]string{"SKILL.md": skillText("p", "private", "b"), "a//b": "x"})
	require.Equal(t, http.StatusBadRequest, badPath.Status, "%s", badPath.Raw)
	require.Equal(t, "files[a//b]", badPath.Body["error"].(map[string]any)["param"])
	wrongType := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/skills", Key: owner.secret, Body: `{"a":1}`,
		Headers: map[string]string{"Idempotency-Key": "s6"}})
	require.Equal(t, http.StatusUnsupportedMediaType, wrongType.Status, "%s", wrongType.Raw)

	// A re-POST replaces: the version comes from the file, a file the new folder lacks is gone.
	delete(folder, "scripts/run.py")
	folder["SKILL.md"] = strings.Replace(folder["SKILL.md"], "version: 1", "version: 3", 1)
	again := postSkillZip(t, env, owner.secret, "s7", folder)
	require.Equal(t, http.StatusCreated, again.Status, "%s", again.Raw)
	require.InDelta(t, 3.0, skillOf(t, again)["version"], 0)
	require.NotContains(t, skillPaths(t, again), "scripts/run.py")
	require.Equal(t, http.StatusNotFound, getRaw(t, env, owner.secret, "/v1/skills/zipped/resources/scripts/run.py").Status)

	list := getRaw(t, env, owner.secret, "/v1/skills")
	require.Equal(t, http.StatusOK, list.Status, "%s", list.Raw)
	names := []string{}
	for _, s := range list.Body["skills"].([]any) {
		names = append(names, s.(map[string]any)["name"].(string))
	}
	require.Equal(t, []string{"notes", "zipped"}, names)

	other := newArtifactAccount(t, env)
	for _, r := range []apptest.Req{
		{Method: http.MethodGet, Path: "/v1/skills/zipped"},
		{Method: http.MethodGet, Path: "/v1/skills/zipped/resources/references/api.md"},
		{Method: http.MethodDelete, Path: "/v1/skills/zipped", Headers: map[string]string{"Idempotency-Key": "x1"}},
	} {
		r.Key = other.secret
		resp := env.Do(t, r)
		require.Equal(t, http.StatusNotFound, resp.Status, "%s %s: %s", r.Method, r.Path, resp.Raw)
	}
	require.Empty(t, getRaw(t, env, other.secret, "/v1/skills").Body["skills"])

	del := env.Do(t, apptest.Req{Method: http.MethodDelete, Path: "/v1/skills/zipped", Key: owner.secret, Headers: map[string]string{"Idempotency-Key": "d1"}})
	require.Equal(t, http.StatusOK, del.Status, "%s", del.Raw)
	require.Equal(t, http.StatusNotFound, getRaw(t, env, owner.secret, "/v1/skills/zipped").Status)
	n, err := env.DB.NewSelect().Table("files").Where("account_id = ? AND purpose = ? AND status = 'active'", owner.accountID, skills.Purpose("zipped")).
		Count(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "the skill's files are deleted")
}

// TestSkillsLimitPerAccount: the 51st skill is 409 naming the limit; replacing an existing one still works.
func TestSkillsLimitPerAccount(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	owner := newArtifactAccount(t, env)
	for i := range skills.MaxPerAccount {
		resp := postSkill(t, env, owner.secret, fmt.Sprintf("l%d", i), skillText(fmt.Sprintf("s%02d", i), "private", "b"))
		require.Equal(t, http.StatusCreated, resp.Status, "%d: %s", i, resp.Raw)
	}
	over := postSkill(t, env, owner.secret, "over", skillText("one-more", "private", "b"))
	require.Equal(t, http.StatusConflict, over.Status, "%s", over.Raw)
	e := over.Body["error"].(map[string]any)
	require.Equal(t, "skills", e["param"])
	require.Contains(t, e["message"], "at most 50 skills")
	replace := postSkill(t, env, owner.secret, "rep", skillText("s07", "private", "new body"))
	require.Equal(t, http.StatusCreated, replace.Status, "%s", replace.Raw)
}

// TestSkillsPublicReviewAndInstall: a public skill is listed (without a key) only once review approves it; install
// refuses one's own and an unreviewed skill, copies every file, and a later change of the original
// leaves the copy unchanged.
func TestSkillsPublicReviewAndInstall(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	ctx := context.Background()
	author, user := newArtifactAccount(t, env), newArtifactAccount(t, env)
	folder := map[string]string{"SKILL.md": skillText("shared", "public", "Original body"), "references/ref.md": "# Ref v1",
		"tools/helper.txt": "helper v1"}
	created := postSkillZip(t, env, author.secret, "p1", folder)
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Raw)
	require.Equal(t, "pending_review", skillOf(t, created)["reviewStatus"])

	publicNames := func() []string {
		resp := env.Do(t, apptest.Req{Method: http.MethodGet, Path: "/v1/skills/public"}) // no key: the directory is public
		require.Equal(t, http.StatusOK, resp.Status, "%s", resp.Raw)
		out := []string{}
		for _, s := range resp.Body["skills"].([]any) {
			m := s.(map[string]any)
			for k := range m {
				require.Contains(t, []string{"owner", "name", "description", "tags", "version", "emoji"}, k, "only directory fields")
			}
			if m["owner"] == author.accountID {
				out = append(out, m["name"].(string))
			}
		}
		return out
	}
	require.Empty(t, publicNames(), "not listed before review")
	install := func(idem, owner string) *apptest.Response {
		return env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/skills/install", Key: user.secret,
			Body: map[string]any{"owner": owner, "name": "shared"}, Headers: map[string]string{"Idempotency-Key": idem}})
	}
	unreviewed := install("i1", author.accountID)
	require.Equal(t, http.StatusConflict, unreviewed.Status, "%s", unreviewed.Raw)
	require.Contains(t, unreviewed.Body["error"].(map[string]any)["message"], "not approved")

	store := skills.NewStore(env.DB, nil, nil, nil, nil)
	pending, err := store.ListPending(ctx)
	require.NoError(t, err)
	require.True(t, containsSkill(pending, author.accountID, "shared"))
	_, err = store.Review(ctx, author.accountID, "shared", true, "fine")
	require.NoError(t, err)
	require.Equal(t, []string{"shared"}, publicNames())

	own := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/skills/install", Key: author.secret,
		Body: map[string]any{"owner": author.accountID, "name": "shared"}, Headers: map[string]string{"Idempotency-Key": "i0"}})
	require.Equal(t, http.StatusBadRequest, own.Status, "%s", own.Raw)
	require.Equal(t, "owner", own.Body["error"].(map[string]any)["param"])

	copied := install("i2", author.accountID)
	require.Equal(t, http.StatusCreated, copied.Status, "%s", copied.Raw)
	c := skillOf(t, copied)
	require.Equal(t, "private", c["visibility"])
	require.Equal(t, map[string]any{"owner": author.accountID, "name": "shared"}, c["source"])
	require.Len(t, skillPaths(t, copied), 3)

	// The author changes the original; the copy keeps what it had.
	folder["SKILL.md"] = skillText("shared", "public", "Changed body")
	folder["tools/helper.txt"] = "helper v2"
	changed := postSkillZip(t, env, author.secret, "p2", folder)
	require.Equal(t, http.StatusCreated, changed.Status, "%s", changed.Raw)
	require.Equal(t, "pending_review", skillOf(t, changed)["reviewStatus"], "a change goes back to review")
	require.Empty(t, publicNames())
	require.Equal(t, "helper v1", string(getRaw(t, env, user.secret, "/v1/skills/shared/resources/tools/helper.txt").Raw))
	full := skills.NewStore(env.DB, file.NewStore(env.DB, file.Options{}), blob.WithPrefix(env.Blobs, app.FilePrefix), nil, nil)
	loaded, err := full.Load(ctx, user.accountID, "shared")
	require.NoError(t, err)
	require.Equal(t, "Original body\n", loaded.Body)
	require.Equal(t, []skills.Inline{{Path: "references/ref.md", Bytes: 8, Text: "# Ref v1"}}, loaded.References)
	require.Equal(t, []skills.Inline{{Path: "tools/helper.txt", Bytes: 9, Text: "helper v1"}}, loaded.Resources)
	require.False(t, loaded.Truncated)
	mine := getRaw(t, env, user.secret, "/v1/skills/shared")
	require.Equal(t, "Original body\n", skillOf(t, mine)["body"])

	// The author's own name clash: the user's own skill of the same name is not overwritten by install.
	other := newArtifactAccount(t, env)
	require.Equal(t, http.StatusCreated, postSkill(t, env, other.secret, "o1", skillText("shared", "private", "mine")).Status)
	_, err = store.Review(ctx, author.accountID, "shared", true, "")
	require.NoError(t, err)
	clash := env.Do(t, apptest.Req{Method: http.MethodPost, Path: "/v1/skills/install", Key: other.secret,
		Body: map[string]any{"owner": author.accountID, "name": "shared"}, Headers: map[string]string{"Idempotency-Key": "o2"}})
	require.Equal(t, http.StatusConflict, clash.Status, "%s", clash.Raw)
	require.Equal(t, "name", clash.Body["error"].(map[string]any)["param"])
}

func containsSkill(list []skills.Skill, owner, name string) bool {
	for _, s := range list {
		if s.AccountID == owner && s.Name == name {
			return true
		}
	}
	return false
}

// TestSkillsLoadInlineBudget: Load answers the body, text references and resources inline, lists a
// binary resource without text, and leaves out what passes the 200 KB budget (Truncated).
func TestSkillsLoadInlineBudget(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	owner := newArtifactAccount(t, env)
	big := strings.Repeat("b", skills.MaxInlineBytes-10)
	resp := postSkillZip(t, env, owner.secret, "b1", map[string]string{"SKILL.md": skillText("loader", "private", "Load me"),
		"references/a.md": "# A", "blob.bin": "\x00\x01\x02", "big.txt": big, "small.txt": "0123456789abcdef"})
	require.Equal(t, http.StatusCreated, resp.Status, "%s", resp.Raw)

	store := skills.NewStore(env.DB, file.NewStore(env.DB, file.Options{}), blob.WithPrefix(env.Blobs, app.FilePrefix), nil, nil)
	loaded, err := store.Load(context.Background(), owner.accountID, "loader")
	require.NoError(t, err)
	require.Equal(t, "Load me\n", loaded.Body)
	require.Equal(t, []skills.Inline{{Path: "references/a.md", Bytes: 3, Text: "# A"}}, loaded.References)
	require.Equal(t, []skills.Inline{
		{Path: "big.txt", Bytes: int64(len(big)), Text: big},
		{Path: "blob.bin", Bytes: 3, Omitted: skills.OmittedBinary},
		{Path: "small.txt", Bytes: 16, Omitted: skills.OmittedBudget},
	}, loaded.Resources)
	require.True(t, loaded.Truncated)

	list, err := store.List(context.Background(), owner.accountID)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, "🧪", list[0].Emoji)
	_, err = store.Load(context.Background(), newArtifactAccount(t, env).accountID, "loader")
	require.Error(t, err, "another account's skill is not found")
}
