package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/internal/skills"
)

// skillJSON is how svcd prints a skill under review.
type skillJSON struct {
	Owner        string   `json:"owner"`
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Version      float64  `json:"version"`
	Tags         []string `json:"tags"`
	ReviewStatus string   `json:"reviewStatus"`
	ReviewReason string   `json:"reviewReason,omitempty"`
	UpdatedAt    string   `json:"updatedAt"`
}

func toSkillJSON(s *skills.Skill) skillJSON {
	return skillJSON{Owner: s.AccountID, Name: s.Name, Description: s.Description, Version: s.Version, Tags: s.Tags,
		ReviewStatus: s.ReviewStatus, ReviewReason: s.ReviewReason, UpdatedAt: s.UpdatedAt.UTC().Format(time.RFC3339)}
}

// skillsAdmin runs `svcd skills review`: with no decision it prints the skills pending review, one JSON
// line each; with --owner, --name and --approve or --refuse it records the decision and prints the skill.
func skillsAdmin(ctx context.Context, cfg app.Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "review" {
		return usageError{"skills needs a subcommand: review"}
	}
	fs := flag.NewFlagSet("skills review", flag.ContinueOnError)
	fs.SetOutput(stderr)
	owner := fs.String("owner", "", "the skill owner's account id (acct_...)")
	name := fs.String("name", "", "the skill's name")
	approve := fs.Bool("approve", false, "approve the skill: the public directory lists it")
	refuse := fs.Bool("refuse", false, "refuse the skill")
	reason := fs.String("reason", "", "why (shown to the owner)")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	enc := json.NewEncoder(stdout)
	if !*approve && !*refuse {
		if *owner != "" || *name != "" {
			return usageError{"skills review --owner --name needs --approve or --refuse"}
		}
		list, err := app.ListPendingSkills(ctx, cfg, stderr)
		if err != nil {
			return err
		}
		for i := range list {
			if err := enc.Encode(toSkillJSON(&list[i])); err != nil {
				return err
			}
		}
		return nil
	}
	if *approve && *refuse {
		return usageError{"skills review takes --approve or --refuse, not both"}
	}
	if *owner == "" || *name == "" {
		return usageError{fmt.Sprintf("skills review --%s needs --owner ACCOUNT_ID and --name NAME", map[bool]string{true: "approve", false: "refuse"}[*approve])}
	}
	s, err := app.ReviewSkill(ctx, cfg, *owner, *name, *approve, *reason, stderr)
	if err != nil {
		return err
	}
	return enc.Encode(toSkillJSON(s))
}
