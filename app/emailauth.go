package app

import (
	"context"
	"fmt"
	"io"

	"github.com/svcplatform/svc/internal/catalog"
	"github.com/svcplatform/svc/internal/emailauth"
)

// emailAuthService signs in by email: codes hashed with a key derived from the master key, mailed over
// SMTP when SVC_SMTP_URL is set, else kept in the dev mailbox (PostgreSQL) that `svcd dev mail` prints.
func emailAuthService(d APIDeps, cat *catalog.Catalog) (*emailauth.Service, error) {
	var mailer emailauth.Mailer
	if d.SMTPURL != "" {
		smtp, err := emailauth.NewSMTP(d.SMTPURL, d.MailFrom)
		if err != nil {
			return nil, fmt.Errorf("sign-in mail: %w", err)
		}
		mailer = smtp
	} else {
		mailer = emailauth.NewDevMailbox(d.DB)
		if d.Logger != nil {
			d.Logger.Info("sign-in codes go to the dev mailbox (SVC_SMTP_URL is unset): read them with `svcd dev mail`")
		}
	}
	return emailauth.New(d.DB, d.Box.Derive("email-signin-code"), emailauth.Options{Mailer: mailer, Catalog: cat, Now: d.EmailNow, Log: d.Logger}), nil
}

// DevMail reads the newest messages of the dev mailbox (to one address when to is set) of the system
// admin commands work on: DATABASE_URL, else the running svcd dev.
func DevMail(ctx context.Context, cfg Config, to string, last int, progress io.Writer) ([]emailauth.StoredMessage, error) {
	db, _, err := openAdmin(ctx, cfg, false, progress)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return emailauth.NewDevMailbox(db).Last(ctx, to, last)
}
