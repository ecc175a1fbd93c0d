package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/file"
	"github.com/svcplatform/svc/internal/partner"
	"github.com/svcplatform/svc/internal/pg"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/schema"
)

// adminTarget is the system an admin command works on: its database and where its master key is.
type adminTarget struct {
	databaseURL   string
	encryptionKey string // SVC_ENCRYPTION_KEY, when set
	keyFile       string // the recorded dev system's key file, when it names the same database
}

// resolveAdmin finds the system admin commands work on, creating nothing: DATABASE_URL when set (with the
// recorded dev system's key file if that system uses the same database), else the running svcd dev
// recorded at cfg.DevRecord; with neither, an error that says what to do.
func resolveAdmin(cfg Config) (adminTarget, error) {
	t := adminTarget{databaseURL: cfg.DatabaseURL, encryptionKey: cfg.EncryptionKey}
	if cfg.DatabaseURL != "" {
		if rec, err := runningDevRecord(cfg.DevRecord); err == nil && rec.DatabaseURL == cfg.DatabaseURL {
			t.keyFile = rec.KeyFile
		}
		return t, nil
	}
	rec, err := runningDevRecord(cfg.DevRecord)
	if err != nil {
		return adminTarget{}, err
	}
	t.databaseURL, t.keyFile = rec.DatabaseURL, rec.KeyFile
	return t, nil
}

// box is the target's secret box; it reads the key and never creates one.
func (t adminTarget) box() (*secretbox.Box, error) {
	var key []byte
	var err error
	switch {
	case t.encryptionKey != "":
		key, err = secretbox.ParseKey(t.encryptionKey)
	case t.keyFile != "":
		var data []byte
		if data, err = os.ReadFile(t.keyFile); err == nil {
			key, err = secretbox.ParseKey(string(data))
		}
	default:
		return nil, errors.New("SVC_ENCRYPTION_KEY is required: set it to the key your API uses " +
			"(a dev system started with SVC_ENCRYPTION_KEY records no key file)")
	}
	if err != nil {
		return nil, fmt.Errorf("encryption key: %w", err)
	}
	return secretbox.New(key)
}

// openAdmin opens the admin target's database. With migrate it applies pending migrations (svcd
// migrate); otherwise a schema that is behind is an error, as for svcd api.
func openAdmin(ctx context.Context, cfg Config, migrate bool, progress io.Writer) (*bun.DB, adminTarget, error) {
	target, err := resolveAdmin(cfg)
	if err != nil {
		return nil, adminTarget{}, err
	}
	if migrate {
		db, err := openAndMigrate(ctx, target.databaseURL, cfg, progress)
		return db, target, err
	}
	db, err := pg.Open(ctx, target.databaseURL, pg.Options{MaxOpenConns: 2})
	if err != nil {
		return nil, adminTarget{}, err
	}
	pending, err := schema.Pending(ctx, db)
	if err == nil && len(pending) > 0 {
		err = fmt.Errorf("database schema is behind (pending %v): run `svcd migrate` first", pending)
	}
	if err != nil {
		_ = db.Close()
		return nil, adminTarget{}, err
	}
	return db, target, nil
}

// recordDevSystem writes the dev record admin commands find (see DevRecord).
func recordDevSystem(cfg Config, databaseURL string, progress io.Writer) error {
	rec, err := newDevRecord(cfg, databaseURL)
	if err != nil {
		return err
	}
	if err := writeDevRecord(cfg.DevRecord, rec); err != nil {
		return err
	}
	fmt.Fprintf(progress, "dev: recorded in %s for svcd accounts and svcd migrate in other terminals\n", cfg.DevRecord)
	return nil
}

// SetAccountTier sets an account's tier (standard or club), which selects its storage limits: `svcd
// accounts set-tier`. It needs the database only, not the system's key.
func SetAccountTier(ctx context.Context, cfg Config, accountID, tier string, progress io.Writer) error {
	if !file.ValidTier(tier) {
		return fmt.Errorf("tier %q is neither %s nor %s", tier, schema.TierStandard, schema.TierClub)
	}
	db, _, err := openAdmin(ctx, cfg, false, progress)
	if err != nil {
		return err
	}
	defer db.Close()
	return file.SetTier(ctx, db, accountID, tier)
}

// CreatePartner makes a partner key (X-Partner-Key) named name for accountID; the answer holds its
// secret, shown this once.
func CreatePartner(ctx context.Context, cfg Config, accountID, name string, progress io.Writer) (partner.Created, error) {
	db, _, err := openAdmin(ctx, cfg, false, progress)
	if err != nil {
		return partner.Created{}, err
	}
	defer db.Close()
	return partner.NewStore(db).Create(ctx, accountID, name)
}

// ListPartners answers the partner keys of accountID ("" for every account), newest first.
func ListPartners(ctx context.Context, cfg Config, accountID string, progress io.Writer) ([]schema.Partner, error) {
	db, _, err := openAdmin(ctx, cfg, false, progress)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return partner.NewStore(db).List(ctx, accountID)
}

// RevokePartner revokes partner key id.
func RevokePartner(ctx context.Context, cfg Config, id string, progress io.Writer) (*schema.Partner, error) {
	db, _, err := openAdmin(ctx, cfg, false, progress)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return partner.NewStore(db).Revoke(ctx, id)
}
