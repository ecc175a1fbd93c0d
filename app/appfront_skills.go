package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/appfront"
	"github.com/svcplatform/svc/internal/blob"
	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/skills"
	"github.com/svcplatform/svc/internal/svcerr"
)

// frontSkills adapts skills.Store to appfront.Skills: svc.installSkill of an app's owner.
type frontSkills struct {
	store *skills.Store
	db    bun.IDB
}

// frontSkillsOf is the frontend's skills over the platform's files (nil without a database).
func frontSkillsOf(d APIDeps) appfront.Skills {
	if d.DB == nil {
		return nil
	}
	files := file.NewStore(d.DB, d.Files)
	var purges *file.Purges // a re-install replaces the copy's files: the old ones' purge is scheduled
	if d.Temporal != nil {
		purges = &file.Purges{Store: files, Engine: d.Temporal}
	}
	return frontSkills{store: skills.NewStore(d.DB, files, blob.WithPrefix(platformBlobs(d), FilePrefix), purges, d.Logger), db: d.DB}
}

// maxPublishers bounds the owners an ambiguous name's refusal lists.
const maxPublishers = 5

// Install implements appfront.Skills: the skill's name is checked first, an absent owner is the one
// other account with an approved public skill of that name, then skills.Store.Install copies it (no key:
// the owner acts through the app's page).
func (f frontSkills) Install(ctx context.Context, accountID, owner, name string) (string, error) {
	if err := skills.ValidateName("params.name", name); err != nil {
		return "", err
	}
	if owner == "" {
		var err error
		if owner, err = f.publisher(ctx, accountID, name); err != nil {
			return "", err
		}
	}
	sk, err := f.store.Install(ctx, accountID, "", owner, name)
	if err != nil {
		return "", err
	}
	return sk.Name, nil
}

// publisher is the account of the only approved public skill called name (the caller's own left out):
// none is 404, several is 409 listing owners to choose from.
func (f frontSkills) publisher(ctx context.Context, accountID, name string) (string, error) {
	var owners []string
	if err := f.db.NewSelect().Table("skills").Column("account_id").
		Where("name = ? AND review_status = ? AND account_id <> ?", name, skills.ReviewApproved, accountID).
		OrderExpr("created_at DESC").Limit(maxPublishers).Scan(ctx, &owners); err != nil {
		return "", fmt.Errorf("find the public skill %s: %w", name, err)
	}
	switch len(owners) {
	case 0:
		return "", svcerr.NotFoundf("no approved public skill %q", name).WithDetails("name", name)
	case 1:
		return owners[0], nil
	}
	return "", (&svcerr.Error{Code: svcerr.Conflict, Param: "params.owner",
		Message: fmt.Sprintf("several accounts publish a skill %q: pass owner, one of %s", name, strings.Join(owners, ", "))}).
		WithDetails("owners", owners)
}
