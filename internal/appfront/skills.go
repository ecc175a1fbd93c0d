package appfront

import (
	"context"
	"encoding/json"

	"github.com/svcplatform/svc/internal/svcerr"
)

// Skills installs public skills from an app's frontend (internal/skills.Store, adapted in app/).
type Skills interface {
	// Install copies owner's approved public skill name into accountID and answers the installed
	// skill's name; owner "" means the one approved public skill of that name (ambiguous: 409).
	Install(ctx context.Context, accountID, owner, name string) (string, error)
}

// installSkillParams are svc.installSkill's params: the skill's name and, optionally, its owner's
// account id.
type installSkillParams struct {
	Name  string `json:"name"`
	Owner string `json:"owner"`
}

// installSkillMethod installs an approved public skill into the account of the app's owner, who must
// be the signed-in viewer: the skill changes what the owner's agent may be told to do, so no other
// viewer may add one. It needs no manifest permission (seed 002 names none for it).
func installSkillMethod(ctx context.Context, s *Service, c call) (json.RawMessage, error) {
	var p installSkillParams
	if err := decode(c.params, &p); err != nil {
		return nil, err
	}
	if err := required("name", p.Name); err != nil {
		return nil, err
	}
	switch {
	case c.viewer.Anonymous:
		return nil, svcerr.New(svcerr.Forbidden, "anonymous viewers cannot install skills: sign in (svc.auth.requireSignIn())").
			WithDetails("rule", "anonymous")
	case !c.viewer.Owner:
		return nil, svcerr.New(svcerr.Forbidden, "installSkill installs into the app owner's account: only app %s's owner may call it", c.app.Slug).
			WithDetails("rule", "owner")
	case s.Skills == nil:
		return nil, notAvailable(c.method, "skills are not configured on this server")
	}
	name, err := s.Skills.Install(ctx, c.app.AccountID, p.Owner, p.Name)
	if err != nil {
		return nil, err
	}
	return marshal(map[string]any{"name": name, "installed": true})
}
