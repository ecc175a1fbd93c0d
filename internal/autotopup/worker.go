package autotopup

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/club"
	"github.com/svcplatform/svc/internal/feeclaim"
	"github.com/svcplatform/svc/internal/feeread"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Worker does the work of the auto top-up workflow's activities.
type Worker struct {
	DB *bun.DB
	// Claims starts fee claims; nil fails rounds that find the balance low (retried until a worker
	// has a chain).
	Claims *feeclaim.Service
	// NativeCents is the native asset's USD price in cents (SVC_NATIVE_USD_PRICE); 0 credits nothing.
	NativeCents int64
	// AfterCredit, when set, runs after a round's credits committed and before the activity answers (a
	// crash test's fault). Never set it in production.
	AfterCredit func(context.Context)
}

// ErrNoClaims is a worker without a chain, fee reader or workflow engine for fee claims.
var ErrNoClaims = errors.New("this worker cannot start fee claims (no chain, fee reader or managed wallets)")

// errClaimsPending is a round whose claims have not all ended (the activity is retried).
var errClaimsPending = errors.New("the auto top-up round's fee claims have not ended yet")

// Begin reads the account's setting and balance: disabled answers Enabled false; under the threshold
// it records a round for runKey (a retry answers the round recorded) and answers its number.
func (w *Worker) Begin(ctx context.Context, in workflows.AutoTopUpBeginInput) (workflows.AutoTopUpBegun, error) {
	var n int
	err := w.DB.NewRaw("SELECT round FROM autotopup_rounds WHERE account_id = ? AND run_key = ?", in.AccountID, in.RunKey).Scan(ctx, &n)
	if err == nil {
		return workflows.AutoTopUpBegun{Enabled: true, Round: n}, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return workflows.AutoTopUpBegun{}, fmt.Errorf("read auto top-up round %s: %w", in.RunKey, err)
	}
	set, err := club.NewStore(w.DB).GetAutoTopUp(ctx, in.AccountID)
	if err != nil || !set.Enabled {
		return workflows.AutoTopUpBegun{}, err
	}
	b, err := ledger.New(w.DB).Balance(ctx, in.AccountID)
	if err != nil {
		return workflows.AutoTopUpBegun{}, err
	}
	if b.Available >= set.Below*1000 {
		return workflows.AutoTopUpBegun{Enabled: true}, nil
	}
	_, err = w.DB.NewRaw(`INSERT INTO autotopup_rounds (account_id, round, run_key, available_millicredits)
		SELECT ?0, coalesce(max(round), 0) + 1, ?1, ?2 FROM autotopup_rounds WHERE account_id = ?0
		ON CONFLICT (account_id, run_key) DO NOTHING`, in.AccountID, in.RunKey, b.Available).Exec(ctx)
	if err != nil {
		return workflows.AutoTopUpBegun{}, fmt.Errorf("record auto top-up round %s: %w", in.RunKey, err)
	}
	if err := w.DB.NewRaw("SELECT round FROM autotopup_rounds WHERE account_id = ? AND run_key = ?", in.AccountID, in.RunKey).Scan(ctx, &n); err != nil {
		return workflows.AutoTopUpBegun{}, fmt.Errorf("read auto top-up round %s: %w", in.RunKey, err)
	}
	return workflows.AutoTopUpBegun{Enabled: true, Round: n}, nil
}

// source is a launched token of the account whose fee recipient is one of its managed wallets.
type source struct {
	Token     string  `bun:"token_address"`
	WalletID  string  `bun:"wallet_id"`
	Address   string  `bun:"address"`
	ProjectID *string `bun:"project_id"`
}

// sources are the account's deployed launches whose fee recipient is a managed wallet of the account.
func (w *Worker) sources(ctx context.Context, accountID string) ([]source, error) {
	var out []source
	err := w.DB.NewRaw(`SELECT l.token_address, w.id AS wallet_id, w.address, w.project_id
		FROM token_launches l JOIN wallets w ON w.account_id = l.account_id AND lower(w.address) = lower(l.fee_recipient_address)
		WHERE l.account_id = ? AND l.status = ? AND l.token_address IS NOT NULL ORDER BY l.created_at, l.id`,
		accountID, schema.LaunchDeployed).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("read the launched tokens of %s: %w", accountID, err)
	}
	return out, nil
}

// Claim starts the round's fee claims: one per launched token with native fees pending, or whose claim
// this round already recorded (a retry). A claim the service refuses (the wallet's policy, its
// sponsored-transaction limit, the chain) is left out; the round's claim ids are recorded.
func (w *Worker) Claim(ctx context.Context, in workflows.AutoTopUpRoundInput) (workflows.AutoTopUpClaims, error) {
	if w.Claims == nil || w.Claims.Fees == nil {
		return workflows.AutoTopUpClaims{}, ErrNoClaims
	}
	srcs, err := w.sources(ctx, in.AccountID)
	if err != nil {
		return workflows.AutoTopUpClaims{}, err
	}
	claimIDs := []string{}
	for _, s := range srcs {
		id, err := w.claimOne(ctx, in, s)
		if err != nil {
			return workflows.AutoTopUpClaims{}, err
		}
		if id != "" {
			claimIDs = append(claimIDs, id)
		}
	}
	_, err = w.DB.NewUpdate().Model((*Round)(nil)).Set("claim_ids = ?", pgdialect.Array(claimIDs)).
		Where("account_id = ? AND round = ?", in.AccountID, in.Round).Exec(ctx)
	if err != nil {
		return workflows.AutoTopUpClaims{}, fmt.Errorf("record the claims of auto top-up round %d: %w", in.Round, err)
	}
	return workflows.AutoTopUpClaims{ClaimIDs: claimIDs}, nil
}

// claimOne starts (or, recorded before, resumes) the round's claim of one token; "" when there is
// nothing to claim or the claim is refused.
func (w *Worker) claimOne(ctx context.Context, in workflows.AutoTopUpRoundInput, s source) (string, error) {
	id := ClaimID(in.AccountID, s.Token, in.Round)
	exists, err := w.DB.NewSelect().Model((*schema.FeeClaim)(nil)).Where("id = ? AND account_id = ?", id, in.AccountID).Exists(ctx)
	if err != nil {
		return "", fmt.Errorf("look for fee claim %s: %w", id, err)
	}
	token := common.HexToAddress(s.Token)
	if !exists {
		pending, err := w.Claims.Fees.PendingNative(ctx, token, common.HexToAddress(s.Address))
		if _, refused := svcerr.As(err); refused {
			return "", nil // not indexed yet
		}
		if err != nil {
			return "", fmt.Errorf("read the pending fees of %s: %w", s.Token, err)
		}
		if pending.Sign() == 0 {
			return "", nil
		}
	}
	r := feeclaim.Request{Scope: tenant.Scope{AccountID: in.AccountID, ProjectID: s.ProjectID}, ID: id, Token: token,
		Body: client.FeeClaimRequest{WalletID: s.WalletID}}
	_, err = w.Claims.Claim(ctx, r, time.Now())
	if _, refused := svcerr.As(err); refused && !exists {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("claim the fees of %s: %w", s.Token, err)
	}
	return id, nil
}

// Await answers nil once every claim of the round has ended (claimed or failed), errClaimsPending before.
func (w *Worker) Await(ctx context.Context, in workflows.AutoTopUpRoundInput) error {
	r, err := load(ctx, w.DB, in.AccountID, in.Round)
	if err != nil || len(r.ClaimIDs) == 0 {
		return err
	}
	n, err := w.DB.NewSelect().Model((*schema.FeeClaim)(nil)).Where("account_id = ? AND id IN (?) AND status = ?",
		in.AccountID, bun.List(r.ClaimIDs), schema.FeeClaimClaiming).Count(ctx)
	if err != nil {
		return fmt.Errorf("read the claims of auto top-up round %d: %w", in.Round, err)
	}
	if n > 0 {
		return errClaimsPending
	}
	return nil
}

// claimed is a claimed claim of a round with its pool's first currency.
type claimed struct {
	ID      string  `bun:"id"`
	Token   string  `bun:"token_address"`
	Amount0 *string `bun:"amount0"`
	Amount1 *string `bun:"amount1"`
	Token0  *string `bun:"token0"`
}

// native is the claim's native amount (wei).
func (c claimed) native() *big.Int {
	amt := c.Amount0
	if c.Token0 != nil && feeread.NativeSide(*c.Token0, common.HexToAddress(c.Token)) == 1 {
		amt = c.Amount1
	}
	v, ok := new(big.Int), false
	if amt != nil {
		v, ok = v.SetString(*amt, 10)
	}
	if !ok {
		return new(big.Int)
	}
	return v
}

// Credit posts one top-up per claimed claim of the round (reference autotopup:<claimId>) for its native
// amount at NativeCents, each capped so the balance does not exceed the target, and records the round
// finished with what it claimed and credited, in one transaction. A finished round answers its record.
func (w *Worker) Credit(ctx context.Context, in workflows.AutoTopUpRoundInput) (workflows.AutoTopUpCredited, error) {
	var out workflows.AutoTopUpCredited
	err := w.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		r := new(Round)
		if err := tx.NewSelect().Model(r).Where("account_id = ? AND round = ?", in.AccountID, in.Round).For("UPDATE").Scan(ctx); err != nil {
			return fmt.Errorf("read auto top-up round %d: %w", in.Round, err)
		}
		if r.FinishedAt != nil {
			out = workflows.AutoTopUpCredited{ClaimedWei: r.ClaimedWei, Millicredits: r.Millicredits}
			return nil
		}
		var err error
		out, err = w.credit(ctx, tx, r)
		return err
	})
	if err != nil {
		return workflows.AutoTopUpCredited{}, err
	}
	if w.AfterCredit != nil {
		w.AfterCredit(ctx)
	}
	return out, nil
}

// credit tops the account up for the round's claimed claims and records the round finished, in tx.
func (w *Worker) credit(ctx context.Context, tx bun.Tx, r *Round) (workflows.AutoTopUpCredited, error) {
	set, err := club.NewStore(w.DB).GetAutoTopUp(ctx, r.AccountID)
	if err != nil {
		return workflows.AutoTopUpCredited{}, err
	}
	var claims []claimed
	if len(r.ClaimIDs) > 0 {
		err = tx.NewRaw(`SELECT c.id, c.token_address, c.amount0, c.amount1, p.token0 FROM fee_claims c
			LEFT JOIN fee_pools p ON p.token = lower(c.token_address) AND lower(p.pool_id) = lower(c.pool_id)
			WHERE c.account_id = ? AND c.id IN (?) AND c.status = ? ORDER BY c.id`,
			r.AccountID, bun.List(r.ClaimIDs), schema.FeeClaimClaimed).Scan(ctx, &claims)
		if err != nil {
			return workflows.AutoTopUpCredited{}, fmt.Errorf("read the claimed claims of auto top-up round %d: %w", r.Round, err)
		}
	}
	book := ledger.New(tx)
	wei, total := new(big.Int), int64(0)
	for _, c := range claims {
		amount := c.native()
		wei.Add(wei, amount)
		b, err := book.Balance(ctx, r.AccountID)
		if err != nil {
			return workflows.AutoTopUpCredited{}, err
		}
		m := min(Millicredits(amount, w.NativeCents), set.Target*1000-b.Available)
		if m <= 0 {
			continue
		}
		if err := book.TopUp(ctx, tx, r.AccountID, m, Reference(c.ID)); err != nil {
			return workflows.AutoTopUpCredited{}, fmt.Errorf("credit claim %s: %w", c.ID, err)
		}
		total += m
	}
	_, err = tx.NewUpdate().Model((*Round)(nil)).Set("claimed_wei = ?, credited_millicredits = ?, finished_at = now()", wei.String(), total).
		Where("account_id = ? AND round = ?", r.AccountID, r.Round).Exec(ctx)
	if err != nil {
		return workflows.AutoTopUpCredited{}, fmt.Errorf("record auto top-up round %d: %w", r.Round, err)
	}
	return workflows.AutoTopUpCredited{ClaimedWei: wei.String(), Millicredits: total}, nil
}
