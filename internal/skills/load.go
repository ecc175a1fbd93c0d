package skills

import (
	"bytes"
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/svcplatform/svc/internal/svcerr"
)

// Reasons a file of a loaded skill is listed without its text.
const (
	OmittedBinary = "binary"
	OmittedBudget = "over the 200 KB inline budget"
)

// Inline is a reference or resource of a loaded skill: its text, or why it is left out.
type Inline struct {
	Path  string
	Bytes int64
	Text  string
	// Omitted is "" when Text holds the file, else OmittedBinary or OmittedBudget.
	Omitted string
}

// Loaded is a skill as the agent loads it: the row, SKILL.md's body, and its references and resources
// inline up to MaxInlineBytes in all (references first, each in path order).
type Loaded struct {
	Skill
	Body       string
	References []Inline
	Resources  []Inline
	// Truncated reports that some file was left out for the inline budget.
	Truncated bool
}

// Body answers the markdown body of the skill's SKILL.md (after the frontmatter).
func (s *Store) Body(ctx context.Context, sk *Skill) (string, error) {
	raw, _, err := s.ReadFile(ctx, sk, SkillFile)
	if err != nil {
		return "", err
	}
	doc, err := Parse(raw)
	if err != nil {
		return "", fmt.Errorf("stored SKILL.md of skill %s: %w", sk.Name, err)
	}
	return doc.Body, nil
}

// Load answers the account's skill name with its body and its references and resources inline, up to
// MaxInlineBytes of them; binary resources are listed without text. Another account's skill is not_found.
func (s *Store) Load(ctx context.Context, accountID, name string) (*Loaded, error) {
	sk, err := s.Get(ctx, accountID, name)
	if err != nil {
		return nil, err
	}
	body, err := s.Body(ctx, sk)
	if err != nil {
		return nil, err
	}
	rows, err := s.folderFiles(ctx, sk.scope(), sk.Name)
	if err != nil {
		return nil, err
	}
	out := &Loaded{Skill: *sk, Body: body, References: []Inline{}, Resources: []Inline{}}
	budget := int64(MaxInlineBytes)
	for _, pass := range []string{"reference", "resource"} {
		for i := range rows {
			f := &rows[i]
			if Kind(f.Name) != pass {
				continue
			}
			in := Inline{Path: f.Name, Bytes: f.Bytes}
			if f.Bytes > budget {
				in.Omitted, out.Truncated = OmittedBudget, true
			} else {
				data, err := s.readBlob(ctx, f, budget)
				if err != nil {
					return nil, err
				}
				if isText(data) {
					in.Text, budget = string(data), budget-int64(len(data))
				} else {
					in.Omitted = OmittedBinary
				}
			}
			if pass == "reference" {
				out.References = append(out.References, in)
			} else {
				out.Resources = append(out.Resources, in)
			}
		}
	}
	return out, nil
}

// isText reports UTF-8 without NUL bytes.
func isText(b []byte) bool { return utf8.Valid(b) && !bytes.Contains(b, []byte{0}) }

// Install copies owner's approved public skill name, with all its files, into accountID as a private
// skill recording its source; a later change of the original leaves the copy as it is. Installing one's
// own skill is 400; a skill that is not public or absent is 404; one not approved is 409; the
// per-account limit applies.
func (s *Store) Install(ctx context.Context, accountID, keyID, ownerAccountID, name string) (*Skill, error) {
	if ownerAccountID == accountID {
		return nil, svcerr.Invalid("owner", "skill %q is already yours: install copies another account's skill", name)
	}
	src, err := s.Get(ctx, ownerAccountID, name)
	if err != nil || src.Visibility != VisibilityPublic {
		return nil, svcerr.NotFoundf("no public skill %q of %s", name, ownerAccountID).WithDetails("name", name)
	}
	if src.ReviewStatus != ReviewApproved {
		return nil, (&svcerr.Error{Code: svcerr.Conflict, Param: "name",
			Message: fmt.Sprintf("skill %q of %s is %s, not approved: only approved public skills are installed", name, ownerAccountID, src.ReviewStatus)}).
			WithDetails("reviewStatus", src.ReviewStatus)
	}
	files, err := s.readAll(ctx, src)
	if err != nil {
		return nil, err
	}
	var key *string
	if keyID != "" {
		key = &keyID
	}
	return s.store(ctx, NewSkill{AccountID: accountID, KeyID: key, Files: files}, &Source{AccountID: ownerAccountID, Name: name})
}

// readAll reads every file of the skill's folder by path.
func (s *Store) readAll(ctx context.Context, sk *Skill) (map[string][]byte, error) {
	rows, err := s.folderFiles(ctx, sk.scope(), sk.Name)
	if err != nil {
		return nil, err
	}
	out := make(map[string][]byte, len(rows))
	for i := range rows {
		data, err := s.readBlob(ctx, &rows[i], MaxSkillTotalBytes)
		if err != nil {
			return nil, err
		}
		out[rows[i].Name] = data
	}
	return out, nil
}
