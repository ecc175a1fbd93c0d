// Package sponsor pays the gas of managed wallets' sponsored transactions (token launches, fee
// claims): before such a transaction is signed, the platform's sponsor account sends its wallet enough
// ETH for the gas, once per transaction (a row in gas_sponsorships keyed by the transaction id), at most
// DailyLimit sponsored transactions per wallet per UTC day.
package sponsor

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// DailyLimit is how many transactions of one wallet the platform sponsors per UTC day.
const DailyLimit = 10

// Statuses of a sponsorship.
const (
	StatusReserved  = "reserved"
	StatusSent      = "sent"
	StatusConfirmed = "confirmed"
	StatusSkipped   = "skipped"
)

// Request is a sponsorship as a route reserves it.
type Request struct {
	// TransactionID is the wallet transaction whose gas is sponsored (at most one sponsorship each).
	TransactionID string
	WalletID      string
	AccountID     string
	// To is the wallet's address.
	To common.Address
	// Purpose says what is sponsored (launch, claim).
	Purpose string
}

// Reserve records the sponsorship of r's transaction, within db's transaction, unless the wallet has
// had DailyLimit sponsorships this UTC day (429 naming the limit). A transaction reserved before is fine.
func Reserve(ctx context.Context, db bun.IDB, r Request, now time.Time) error {
	if _, err := db.NewRaw("SELECT pg_advisory_xact_lock(hashtext(?))", "sponsor:"+r.WalletID).Exec(ctx); err != nil {
		return fmt.Errorf("lock the sponsorships of wallet %s: %w", r.WalletID, err)
	}
	n, err := db.NewSelect().Model((*schema.GasSponsorship)(nil)).Where("transaction_id = ?", r.TransactionID).Count(ctx)
	if err != nil || n > 0 {
		return wrap(err, "read the sponsorship of "+r.TransactionID)
	}
	day := now.UTC().Format(time.DateOnly) // the UTC day, whatever the session's time zone
	used, err := db.NewSelect().Model((*schema.GasSponsorship)(nil)).Where("wallet_id = ? AND day = ?::date", r.WalletID, day).Count(ctx)
	if err != nil {
		return fmt.Errorf("count the sponsorships of wallet %s: %w", r.WalletID, err)
	}
	if used >= DailyLimit {
		return svcerr.New(svcerr.LimitExceeded, "the platform sponsors the gas of at most %d transactions per wallet per UTC day (limit gas_sponsorships_per_day), and wallet %s has had them: retry tomorrow",
			DailyLimit, r.WalletID).WithDetails("limit", "gas_sponsorships_per_day").WithDetails("max", DailyLimit)
	}
	if _, err := db.NewRaw(`INSERT INTO gas_sponsorships (transaction_id, wallet_id, account_id, purpose, day, sponsor_address, to_address,
		amount_wei, status) VALUES (?, ?, ?, ?, ?::date, '', ?, 0, ?)`, r.TransactionID, r.WalletID, r.AccountID, r.Purpose, day, r.To.Hex(),
		StatusReserved).Exec(ctx); err != nil {
		return fmt.Errorf("record the sponsorship of %s: %w", r.TransactionID, err)
	}
	return nil
}

func wrap(err error, what string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Sponsor sends the reserved top-ups from the sponsor account.
type Sponsor struct {
	DB      *bun.DB
	RPC     *ethclient.Client
	ChainID *big.Int
	// Key is the sponsor account's key (dev: devchain.SponsorKey; otherwise SVC_GAS_SPONSOR_KEY).
	Key *ecdsa.PrivateKey
}

// Address is the sponsor account's address.
func (s *Sponsor) Address() common.Address { return crypto.PubkeyToAddress(s.Key.PublicKey) }

// gasMargin is how much more than the estimate the top-up covers, in percent.
const gasMargin = 150

// Fund tops the wallet of transaction txID up with the gas of that transaction and waits for the
// top-up's receipt (beat keeps an activity alive); it answers the top-up's hash ("" when the wallet
// already holds enough). Idempotent: the top-up is signed once, its bytes stored with the sponsor's
// nonce before they are sent, and a retry re-sends the same bytes.
func (s *Sponsor) Fund(ctx context.Context, txID string, beat func()) (string, error) {
	row, err := s.Prepare(ctx, txID)
	if err != nil || row.Status == StatusSkipped {
		return "", err
	}
	signed := new(types.Transaction)
	if err := signed.UnmarshalBinary(row.RawTx); err != nil {
		return "", fmt.Errorf("decode the top-up of %s: %w", txID, err)
	}
	if err := s.RPC.SendTransaction(ctx, signed); err != nil && !s.known(ctx, signed.Hash(), err) {
		return "", fmt.Errorf("send the top-up of %s: %w", txID, err)
	}
	r, err := evm.WaitReceipt(ctx, s.RPC, signed.Hash(), beat)
	if err != nil {
		return "", fmt.Errorf("wait for the top-up of %s: %w", txID, err)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return "", fmt.Errorf("the top-up %s of %s reverted", signed.Hash().Hex(), txID)
	}
	_, err = s.DB.NewUpdate().Model((*schema.GasSponsorship)(nil)).Set("status = ?, updated_at = now()", StatusConfirmed).
		Where("transaction_id = ?", txID).Exec(ctx)
	return signed.Hash().Hex(), wrap(err, "record the top-up of "+txID)
}

// Prepare works out and signs transaction txID's top-up once (or records it skipped when the wallet
// needs none), and answers the sponsorship as stored.
func (s *Sponsor) Prepare(ctx context.Context, txID string) (*schema.GasSponsorship, error) {
	row, err := s.load(ctx, s.DB, txID, "")
	if err != nil || row.Status == StatusSkipped || row.RawTx != nil {
		return row, err
	}
	return s.sign(ctx, txID)
}

// known reports whether the chain already has hash (sending it again answered err).
func (s *Sponsor) known(ctx context.Context, hash common.Hash, err error) bool {
	if strings.Contains(err.Error(), "already known") {
		return true
	}
	if _, _, terr := s.RPC.TransactionByHash(ctx, hash); terr == nil {
		return true
	}
	r, rerr := s.RPC.TransactionReceipt(ctx, hash)
	return rerr == nil && r != nil
}

func (s *Sponsor) load(ctx context.Context, db bun.IDB, txID, lock string) (*schema.GasSponsorship, error) {
	row := new(schema.GasSponsorship)
	q := db.NewSelect().Model(row).Where("transaction_id = ?", txID)
	if lock != "" {
		q = q.For(lock)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, fmt.Errorf("read the sponsorship of %s: %w", txID, err)
	}
	return row, nil
}

// sign works out the top-up (the gas of the wallet's transaction at the current fee cap, with a margin,
// less what the wallet holds beyond the transaction's value) and stores it signed, or skipped.
func (s *Sponsor) sign(ctx context.Context, txID string) (*schema.GasSponsorship, error) {
	t := new(schema.WalletTransaction)
	if err := s.DB.NewSelect().Model(t).Where("id = ?", txID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("read wallet transaction %s: %w", txID, err)
	}
	amount, err := s.need(ctx, t)
	if err != nil {
		return nil, err
	}
	tip, feeCap, err := evm.Fees(ctx, s.RPC)
	if err != nil {
		return nil, err
	}
	pending, err := s.RPC.PendingNonceAt(ctx, s.Address())
	if err != nil {
		return nil, fmt.Errorf("read the sponsor's nonce: %w", err)
	}
	var row *schema.GasSponsorship
	err = s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var err error
		row, err = s.signLocked(ctx, tx, txID, amount, types.DynamicFeeTx{ChainID: s.ChainID, GasTipCap: tip, GasFeeCap: feeCap, Gas: 21_000}, pending)
		return err
	})
	return row, err
}

// need is how much the wallet of t lacks for t's value and gas.
func (s *Sponsor) need(ctx context.Context, t *schema.WalletTransaction) (*big.Int, error) {
	w := new(schema.Wallet)
	if err := s.DB.NewSelect().Model(w).Where("id = ?", t.WalletID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("read wallet %s: %w", t.WalletID, err)
	}
	from, to := common.HexToAddress(w.Address), common.HexToAddress(t.TxTo)
	value, _ := new(big.Int).SetString(t.Value, 10)
	if value == nil {
		value = new(big.Int)
	}
	gas, err := s.RPC.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: value, Data: t.Data})
	if err != nil {
		if msg := err.Error(); strings.Contains(msg, "revert") || strings.Contains(msg, "insufficient funds") {
			return nil, &Refused{Reason: msg}
		}
		return nil, fmt.Errorf("estimate the gas of %s: %w", t.ID, err)
	}
	_, feeCap, err := evm.Fees(ctx, s.RPC)
	if err != nil {
		return nil, err
	}
	bal, err := s.RPC.BalanceAt(ctx, from, nil)
	if err != nil {
		return nil, fmt.Errorf("read the balance of %s: %w", from.Hex(), err)
	}
	cost := new(big.Int).Mul(new(big.Int).SetUint64(gas*gasMargin/100), feeCap)
	lack := new(big.Int).Sub(new(big.Int).Add(cost, value), bal)
	if lack.Sign() < 0 {
		lack.SetInt64(0)
	}
	return lack, nil
}

// signLocked takes the sponsor's nonce and stores the signed top-up, under the nonce's and the
// sponsorship's row locks.
func (s *Sponsor) signLocked(ctx context.Context, tx bun.Tx, txID string, amount *big.Int, unsigned types.DynamicFeeTx, pending uint64) (*schema.GasSponsorship, error) {
	row, err := s.load(ctx, tx, txID, "UPDATE")
	if err != nil || row.RawTx != nil || row.Status == StatusSkipped {
		return row, err
	}
	if amount.Sign() == 0 {
		row.Status = StatusSkipped
		_, err := tx.NewUpdate().Model(row).Set("status = ?, sponsor_address = ?, updated_at = now()", StatusSkipped, s.Address().Hex()).WherePK().Exec(ctx)
		return row, wrap(err, "record the sponsorship of "+txID+" skipped")
	}
	addr := s.Address().Hex()
	if _, err := tx.NewRaw("INSERT INTO sponsor_nonces (address, next_nonce) VALUES (?, ?) ON CONFLICT DO NOTHING", addr, pending).Exec(ctx); err != nil {
		return nil, fmt.Errorf("start the sponsor's nonce counter: %w", err)
	}
	var next uint64
	if err := tx.NewRaw("SELECT next_nonce FROM sponsor_nonces WHERE address = ? FOR UPDATE", addr).Scan(ctx, &next); err != nil {
		return nil, fmt.Errorf("lock the sponsor's nonce counter: %w", err)
	}
	to := common.HexToAddress(row.ToAddress)
	unsigned.Nonce, unsigned.To, unsigned.Value = max(next, pending), &to, amount
	signed, err := types.SignNewTx(s.Key, types.LatestSignerForChainID(s.ChainID), &unsigned)
	if err != nil {
		return nil, fmt.Errorf("sign the top-up of %s: %w", txID, err)
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("encode the top-up of %s: %w", txID, err)
	}
	nonce, hash := int64(unsigned.Nonce), signed.Hash().Hex()
	row.RawTx, row.TxHash, row.Nonce, row.Status, row.AmountWei, row.SponsorAddress = raw, &hash, &nonce, StatusSent, amount.String(), addr
	if _, err := tx.NewUpdate().Model(row).Column("raw_tx", "tx_hash", "nonce", "status", "amount_wei", "sponsor_address").WherePK().Exec(ctx); err != nil {
		return nil, fmt.Errorf("store the top-up of %s: %w", txID, err)
	}
	if _, err := tx.NewRaw("UPDATE sponsor_nonces SET next_nonce = ? WHERE address = ?", unsigned.Nonce+1, addr).Exec(ctx); err != nil {
		return nil, fmt.Errorf("advance the sponsor's nonce: %w", err)
	}
	return row, nil
}

// ErrNoSponsor is a worker without a sponsor key or chain.
var ErrNoSponsor = errors.New("this worker has no gas sponsor (SVC_GAS_SPONSOR_KEY) or chain")

// Refused is a transaction the chain refuses already (it reverts, or the wallet lacks its value): it is
// not sponsored.
type Refused struct{ Reason string }

// Error implements error.
func (r *Refused) Error() string { return "the chain refuses the sponsored transaction: " + r.Reason }

// AsRefused returns the Refused in err's chain, if any.
func AsRefused(err error) (*Refused, bool) {
	var r *Refused
	ok := errors.As(err, &r)
	return r, ok
}
