// Package launch keeps token launches (seed 002's POST /token-launches/deploy, issue 20): the caller's
// managed wallet sends FeesManager.launch as an ordinary wallet transaction (its policy applies) whose
// value seeds the pool's WETH reserve, its gas sponsored by the platform; workflow launch/<id> drives the
// send and records the Launch event's token, pool and poolId.
package launch

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
	"unicode"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/evm/launch"
	"github.com/svcplatform/svc/internal/handles"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/sponsor"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/wallet"
	"github.com/svcplatform/svc/schema"
)

// Daily deploy limits per account and UTC day, by tier (accounts.tier).
const (
	DailyStandard = 50
	DailyClub     = 100
)

// ListSize is how many launches GET /token-launches answers.
const ListSize = 50

// DefaultSeedWei is the dev default of the WETH each launch seeds its pool with (0.01 ETH,
// SVC_LAUNCH_SEED_WEI).
var DefaultSeedWei = big.NewInt(10_000_000_000_000_000)

// Config says where launches go.
type Config struct {
	// FeesManager is the fee manager contract (dev: devchain.FeesManagerAddress).
	FeesManager common.Address
	// Vault receives each launch's vested tokens (dev: devchain.VaultAddress).
	Vault common.Address
	// VaultAmount is how many tokens (18 decimals) go to the vault; the rest seeds the pool.
	VaultAmount *big.Int
	// SeedWei is the launch transaction's value, the pool's WETH reserve (SVC_LAUNCH_SEED_WEI).
	SeedWei *big.Int
}

// Service records launches and starts their workflows.
type Service struct {
	DB      *bun.DB
	Wallets *wallet.Store
	Chain   *wallet.Chain
	Prices  wallet.Prices
	Names   *handles.Resolver
	Engine  wallet.Engine
	Config  Config
}

// Request is a launch as a route asks for it.
type Request struct {
	Scope     tenant.Scope
	KeyID     string
	PartnerID string
	ID        string
	Body      client.TokenLaunchRequest
}

// Deploy records launch r.ID (a replay answers the launch recorded) and its wallet transaction, and
// starts its workflow launch/<id>; its image, tweet and website are stored with it, off chain. It refuses,
// naming the field, a bad name, symbol, fee recipient, image, tweet or website; with 429 an account over
// its daily deploys or a wallet over its sponsored transactions; with the wallet's policy's 403 a send
// the policy refuses (nothing is then recorded).
func (s *Service) Deploy(ctx context.Context, r Request, now time.Time) (*schema.TokenLaunch, error) {
	if l, err := s.get(ctx, s.DB, r.ID); err == nil {
		return l, s.send(ctx, r, l, now)
	}
	name, symbol, err := checkToken(r.Body)
	if err != nil {
		return nil, err
	}
	meta, err := checkMetadata(r.Body.LaunchMetadata)
	if err != nil {
		return nil, err
	}
	creator, err := s.feeRecipient(r.Body.FeeRecipient)
	if err != nil {
		return nil, err
	}
	if s.Wallets == nil || s.Engine == nil {
		return nil, svcerr.New(svcerr.Unavailable, "this server has no managed wallets or no workflow engine")
	}
	w, err := s.Wallets.Pick(ctx, r.Scope, r.Body.WalletID)
	if err != nil {
		return nil, err
	}
	l := &schema.TokenLaunch{ID: r.ID, AccountID: r.Scope.AccountID, ProjectID: r.Scope.ProjectID, KeyID: opt(r.KeyID),
		PartnerID: opt(r.PartnerID), Status: schema.LaunchDeploying, TokenName: name, TokenSymbol: symbol, Chain: w.Chain,
		FeeRecipientType: r.Body.FeeRecipient.Type, FeeRecipientValue: strings.TrimSpace(r.Body.FeeRecipient.Value),
		FeeRecipientAddress: creator.Hex(), DeployerAddress: wallet.Address(w).Hex(), WalletID: w.ID,
		TransactionID: TransactionID(r.ID), Salt: Salt(r.ID).Hex(), VaultAddress: s.Config.Vault.Hex()}
	meta.apply(l)
	s.withPrediction(ctx, l)
	if err := s.record(ctx, l, now); err != nil {
		return nil, err
	}
	return l, s.send(ctx, r, l, now)
}

// send records the launch's wallet transaction (a replay finds it) and starts the launch's workflow. A
// refused send takes the launch back: it never happened.
func (s *Service) send(ctx context.Context, r Request, l *schema.TokenLaunch, now time.Time) error {
	t, err := s.Wallets.CreateTransaction(ctx, s.Chain, s.Prices, wallet.NewTransaction{Scope: r.Scope, KeyID: r.KeyID, WalletID: l.WalletID,
		ID: l.TransactionID, Req: s.call(l)}, now)
	if err != nil {
		if _, ok := svcerr.As(err); ok {
			if derr := s.forget(ctx, l); derr != nil {
				return errors.Join(err, derr)
			}
		}
		return err
	}
	p, err := paramsOf(ctx, s.DB, s.Engine, l, t)
	if err != nil {
		return err
	}
	return Start(ctx, s.Engine, l, p)
}

// call is the launch's wallet send: FeesManager.launch with the seed liquidity as value.
func (s *Service) call(l *schema.TokenLaunch) client.CreateTransactionRequest {
	data := launch.NewFeesManager().PackLaunch(common.HexToHash(l.Salt), l.TokenName, l.TokenSymbol, s.Config.Vault,
		common.HexToAddress(l.FeeRecipientAddress), orZero(s.Config.VaultAmount))
	return client.CreateTransactionRequest{To: s.Config.FeesManager.Hex(), Amount: wallet.FormatUnits(orZero(s.Config.SeedWei), 18),
		Asset: client.AssetNative, Data: "0x" + common.Bytes2Hex(data)}
}

// record inserts the launch and reserves its gas sponsorship, under the account's lock, unless the
// account has made its tier's deploys this UTC day.
func (s *Service) record(ctx context.Context, l *schema.TokenLaunch, now time.Time) error {
	return s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewRaw("SELECT pg_advisory_xact_lock(hashtext(?))", "launches:"+l.AccountID).Exec(ctx); err != nil {
			return fmt.Errorf("lock the launches of %s: %w", l.AccountID, err)
		}
		if err := dailyLimit(ctx, tx, l.AccountID, now); err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(l).Returning("created_at, updated_at").Exec(ctx); err != nil {
			return fmt.Errorf("record launch %s: %w", l.ID, err)
		}
		return sponsor.Reserve(ctx, tx, sponsor.Request{TransactionID: l.TransactionID, WalletID: l.WalletID, AccountID: l.AccountID,
			To: common.HexToAddress(l.DeployerAddress), Purpose: "launch"}, now)
	})
}

// dailyLimit refuses an account that has made its tier's deploys since UTC midnight.
func dailyLimit(ctx context.Context, tx bun.Tx, accountID string, now time.Time) error {
	var tier string
	if err := tx.NewRaw("SELECT tier FROM accounts WHERE id = ?", accountID).Scan(ctx, &tier); err != nil {
		return fmt.Errorf("read the tier of %s: %w", accountID, err)
	}
	limit := DailyStandard
	if tier == "club" {
		limit = DailyClub
	}
	n, err := tx.NewSelect().Model((*schema.TokenLaunch)(nil)).Where("account_id = ? AND created_at >= ?", accountID,
		now.UTC().Truncate(24*time.Hour)).Count(ctx)
	if err != nil {
		return fmt.Errorf("count the launches of %s: %w", accountID, err)
	}
	if int(n) >= limit {
		return svcerr.New(svcerr.LimitExceeded, "the %s tier deploys at most %d tokens per UTC day (limit token_launches_per_day), and this account has deployed %d: retry tomorrow",
			tier, limit, n).WithDetails("limit", "token_launches_per_day").WithDetails("max", limit)
	}
	return nil
}

// forget deletes a launch whose send was refused, with its sponsorship.
func (s *Service) forget(ctx context.Context, l *schema.TokenLaunch) error {
	return s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Model((*schema.GasSponsorship)(nil)).Where("transaction_id = ?", l.TransactionID).Exec(ctx); err != nil {
			return fmt.Errorf("forget the sponsorship of %s: %w", l.ID, err)
		}
		_, err := tx.NewDelete().Model((*schema.TokenLaunch)(nil)).Where("id = ?", l.ID).Exec(ctx)
		return wrap(err, "forget launch "+l.ID)
	})
}

// checkToken validates the token's name (1 to 100 printable characters) and symbol (1 to 10 letters or
// digits).
func checkToken(b client.TokenLaunchRequest) (string, string, error) {
	name, symbol := strings.TrimSpace(b.TokenName), strings.TrimSpace(b.TokenSymbol)
	if n := len([]rune(name)); n < 1 || n > 100 || strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return "", "", svcerr.Invalid("tokenName", "tokenName is 1 to 100 printable characters")
	}
	if n := len([]rune(symbol)); n < 1 || n > 10 || strings.IndexFunc(symbol, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) >= 0 {
		return "", "", svcerr.Invalid("tokenSymbol", "tokenSymbol is 1 to 10 letters or digits")
	}
	return name, symbol, nil
}

// feeRecipient resolves the fee recipient with the handle resolver.
func (s *Service) feeRecipient(f client.FeeRecipient) (common.Address, error) {
	addr, err := s.Names.Resolve(f.Type, f.Value)
	switch {
	case errors.Is(err, handles.ErrUnknownKind):
		return common.Address{}, svcerr.Invalid("feeRecipient.type", "feeRecipient.type is one of %s", strings.Join(handles.Kinds, ", "))
	case errors.Is(err, handles.ErrMalformed):
		return common.Address{}, svcerr.Invalid("feeRecipient.value", "feeRecipient.value is not a %s handle: %v", f.Type, err)
	case errors.Is(err, handles.ErrNotFound):
		return common.Address{}, svcerr.Invalid("feeRecipient.value", "feeRecipient.value: the handle resolver knows no %s %q", f.Type, strings.TrimSpace(f.Value))
	case err != nil:
		return common.Address{}, fmt.Errorf("resolve feeRecipient: %w", err)
	case addr == (common.Address{}):
		return common.Address{}, svcerr.Invalid("feeRecipient.value", "feeRecipient.value is the zero address")
	}
	return addr, nil
}

// TransactionID is the id of launch id's wallet transaction.
func TransactionID(launchID string) string {
	return ids.Derive(ids.WalletTransaction, "launch", launchID)
}

// Salt is the CREATE2 salt launch id passes to FeesManager.launch.
func Salt(launchID string) common.Hash { return crypto.Keccak256Hash([]byte(launchID)) }

// Get reads the scope's launch id (another account's is not found).
func (s *Service) Get(ctx context.Context, scope tenant.Scope, id string) (*schema.TokenLaunch, error) {
	l := new(schema.TokenLaunch)
	err := s.DB.NewSelect().Model(l).Where("id = ? AND account_id = ?", id, scope.AccountID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("token launch %s not found", id)
	}
	return l, wrap(err, "read launch "+id)
}

func (s *Service) get(ctx context.Context, db bun.IDB, id string) (*schema.TokenLaunch, error) {
	l := new(schema.TokenLaunch)
	if err := db.NewSelect().Model(l).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("read launch %s: %w", id, err)
	}
	return l, nil
}

// List answers the ListSize newest launches of every account, newest first.
func List(ctx context.Context, db bun.IDB) ([]schema.TokenLaunch, error) {
	out := []schema.TokenLaunch{}
	err := db.NewSelect().Model(&out).OrderExpr("created_at DESC, id DESC").Limit(ListSize).Scan(ctx)
	return out, wrap(err, "list launches")
}

func opt(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}

func wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}
