package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/svcplatform/svc/app"
	"github.com/svcplatform/svc/schema"
)

// partnerJSON is how svcd prints a partner key (never its secret, except partnerKey on create).
type partnerJSON struct {
	PartnerID  string  `json:"partnerId"`
	AccountID  string  `json:"accountId"`
	Name       string  `json:"name"`
	PartnerKey string  `json:"partnerKey,omitempty"`
	Prefix     string  `json:"prefix"`
	CreatedAt  string  `json:"createdAt"`
	RevokedAt  *string `json:"revokedAt,omitempty"`
}

func toPartnerJSON(p *schema.Partner) partnerJSON {
	out := partnerJSON{PartnerID: p.ID, AccountID: p.AccountID, Name: p.Name, Prefix: p.Prefix,
		CreatedAt: p.CreatedAt.UTC().Format(time.RFC3339)}
	if p.RevokedAt != nil {
		at := p.RevokedAt.UTC().Format(time.RFC3339)
		out.RevokedAt = &at
	}
	return out
}

// partners runs `svcd partners create|list|revoke`, printing one JSON line per key.
func partners(ctx context.Context, cfg app.Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageError{"partners needs a subcommand: create, list or revoke"}
	}
	fs := flag.NewFlagSet("partners "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	accountID := fs.String("account", "", "account id (acct_...)")
	name := fs.String("name", "", "partner name")
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{err.Error()}
	}
	enc := json.NewEncoder(stdout)
	switch args[0] {
	case "create":
		if *accountID == "" || *name == "" {
			return usageError{"partners create needs --account and --name"}
		}
		created, err := app.CreatePartner(ctx, cfg, *accountID, *name, stderr)
		if err != nil {
			return err
		}
		out := toPartnerJSON(created.Partner)
		out.PartnerKey = created.Secret
		return enc.Encode(out)
	case "list":
		list, err := app.ListPartners(ctx, cfg, *accountID, stderr)
		if err != nil {
			return err
		}
		for i := range list {
			if err := enc.Encode(toPartnerJSON(&list[i])); err != nil {
				return err
			}
		}
		return nil
	case "revoke":
		if fs.NArg() != 1 {
			return usageError{"partners revoke needs PARTNER_ID"}
		}
		p, err := app.RevokePartner(ctx, cfg, fs.Arg(0), stderr)
		if err != nil {
			return err
		}
		return enc.Encode(toPartnerJSON(p))
	}
	return usageError{fmt.Sprintf("unknown partners subcommand %q", args[0])}
}
