package app

import (
	"context"
	"io"

	"github.com/svcplatform/svc/internal/skills"
)

// ListPendingSkills answers the public skills waiting for review, oldest first: `svcd skills review`.
// It needs the database only, not the system's key.
func ListPendingSkills(ctx context.Context, cfg Config, progress io.Writer) ([]skills.Skill, error) {
	db, _, err := openAdmin(ctx, cfg, false, progress)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return skills.NewStore(db, nil, nil, nil, nil).ListPending(ctx)
}

// ReviewSkill approves or refuses owner's public skill name with reason: `svcd skills review --owner
// --name --approve|--refuse`. An approved skill joins the public directory.
func ReviewSkill(ctx context.Context, cfg Config, owner, name string, approve bool, reason string, progress io.Writer) (*skills.Skill, error) {
	db, _, err := openAdmin(ctx, cfg, false, progress)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return skills.NewStore(db, nil, nil, nil, nil).Review(ctx, owner, name, approve, reason)
}
