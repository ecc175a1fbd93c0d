// Package topup keeps x402 credit top-ups. A top-up is reserved when its signed payment (an EIP-3009
// transferWithAuthorization) has been verified and before anything is sent to the chain: its id is
// derived from the authorization (chain, asset, payer, nonce), so concurrent or repeated copies of one
// signature find one top-up and it credits once. The workflow topup/<id> then settles it on chain and
// credits the ledger; a payment that cannot settle ends failed with a reason.
package topup

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/ledger"
	"github.com/svcplatform/svc/internal/outbox"
	"github.com/svcplatform/svc/schema"
)

// Statuses of a top-up.
const (
	// Pending: reserved; the transfer is not known to have happened on chain yet.
	Pending = "pending"
	// Settled: the transfer is on chain (tx_hash); the credits are not posted yet.
	Settled = "settled"
	// Credited: the credits are posted; final.
	Credited = "credited"
	// Failed: the payment could not settle (and never will); nothing moved. Final.
	Failed = "failed"
)

// CreditsPerUSD is what one US dollar buys (CONTRACT.md): an amount in cents is the same number of
// credits.
const CreditsPerUSD = 100

// Limits of amountUsd (seed 000), in cents.
const (
	MinCents = 500
	MaxCents = 50_000
)

// ErrMissing is the error of a top-up id that has no row.
var ErrMissing = errors.New("no such top-up")

// ID derives a top-up's id from the authorization that pays it: one authorization, one top-up.
func ID(chainID, asset, payer, nonce string) string {
	return ids.Derive(ids.TopUp, chainID, strings.ToLower(asset), strings.ToLower(payer), strings.ToLower(nonce))
}

// ReceiptID is the purchase receipt id of a top-up.
func ReceiptID(topUpID string) string { return ids.Derive(ids.Receipt, topUpID) }

// Store reads and writes top-ups.
type Store struct {
	db     *bun.DB
	ledger *ledger.Ledger
}

// NewStore returns a Store on db.
func NewStore(db *bun.DB) *Store { return &Store{db: db, ledger: ledger.New(db)} }

// Reserve inserts t (whose ID must be ID(...) of its authorization) unless a top-up of the same
// authorization exists, and returns the stored top-up and whether this call created it. The caller must
// check that an existing one belongs to the same account before showing it.
func (s *Store) Reserve(ctx context.Context, t *schema.TopUp) (*schema.TopUp, bool, error) {
	t.Asset, t.PayTo, t.Payer, t.Nonce = strings.ToLower(t.Asset), strings.ToLower(t.PayTo), strings.ToLower(t.Payer), strings.ToLower(t.Nonce)
	t.ReceiptID, t.Status = ReceiptID(t.ID), Pending
	res, err := s.db.NewInsert().Model(t).On("CONFLICT DO NOTHING").Returning("*").Exec(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("reserve top-up: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return t, true, nil
	}
	var existing schema.TopUp
	err = s.db.NewSelect().Model(&existing).
		Where("id = ? OR (chain_id = ? AND asset = ? AND payer = ? AND nonce = ?)", t.ID, t.ChainID, t.Asset, t.Payer, t.Nonce).
		Limit(1).Scan(ctx)
	if err != nil {
		return nil, false, fmt.Errorf("find reserved top-up: %w", err)
	}
	return &existing, false, nil
}

// Get returns a top-up by id (unscoped: for the workflow's activities).
func (s *Store) Get(ctx context.Context, id string) (*schema.TopUp, error) {
	var t schema.TopUp
	err := s.db.NewSelect().Model(&t).Where("id = ?", id).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("top-up %s: %w", id, ErrMissing)
	}
	if err != nil {
		return nil, fmt.Errorf("read top-up %s: %w", id, err)
	}
	return &t, nil
}

// ForKey returns the account's latest top-up reserved by a request with idempotencyKey that has not
// failed, or nil: a retry of a request that paid gets that top-up's outcome instead of a new 402.
func (s *Store) ForKey(ctx context.Context, accountID, idempotencyKey string) (*schema.TopUp, error) {
	var t schema.TopUp
	err := s.db.NewSelect().Model(&t).Where("account_id = ? AND idempotency_key = ? AND status <> ?", accountID, idempotencyKey, Failed).
		Order("created_at DESC").Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("find top-up of Idempotency-Key: %w", err)
	}
	return &t, nil
}

// RecordSubmission remembers the hash of a settlement transaction sent for a pending top-up, so a later
// attempt looks for its receipt before sending another.
func (s *Store) RecordSubmission(ctx context.Context, id, txHash string) error {
	_, err := s.db.NewUpdate().Model((*schema.TopUp)(nil)).Set("tx_hash = ?, updated_at = now()", txHash).
		Where("id = ? AND status = ?", id, Pending).Exec(ctx)
	if err != nil {
		return fmt.Errorf("record settlement transaction of %s: %w", id, err)
	}
	return nil
}

// MarkSettled records that the transfer is on chain in txHash. A top-up already settled or credited is
// left as it is.
func (s *Store) MarkSettled(ctx context.Context, id, txHash string) error {
	_, err := s.db.NewUpdate().Model((*schema.TopUp)(nil)).
		Set("status = ?, tx_hash = ?, settled_at = now(), updated_at = now()", Settled, txHash).
		Where("id = ? AND status IN (?)", id, bun.List([]string{Pending, Failed})).Exec(ctx)
	if err != nil {
		return fmt.Errorf("mark top-up %s settled: %w", id, err)
	}
	return nil
}

// MarkFailed records that a pending top-up's payment cannot settle, with a machine reason and a message.
func (s *Store) MarkFailed(ctx context.Context, id, reason, message string) error {
	_, err := s.db.NewUpdate().Model((*schema.TopUp)(nil)).
		Set("status = ?, failure_reason = ?, failure_message = ?, updated_at = now()", Failed, reason, message).
		Where("id = ? AND status = ?", id, Pending).Exec(ctx)
	if err != nil {
		return fmt.Errorf("mark top-up %s failed: %w", id, err)
	}
	return nil
}

// Credit posts a settled top-up's credits, marks it credited and records its credits.topped_up event,
// in one transaction. Crediting a credited top-up changes nothing; crediting one that is not settled is
// an error.
func (s *Store) Credit(ctx context.Context, id string) (*schema.TopUp, error) {
	var t schema.TopUp
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := tx.NewSelect().Model(&t).Where("id = ?", id).For("UPDATE").Scan(ctx); err != nil {
			return fmt.Errorf("lock top-up %s: %w", id, err)
		}
		switch t.Status {
		case Credited:
			return nil
		case Settled:
		default:
			return fmt.Errorf("top-up %s is %s, not settled: nothing to credit", id, t.Status)
		}
		if err := s.ledger.TopUp(ctx, tx, t.AccountID, t.Millicredits, "topup/"+t.ID); err != nil {
			return err
		}
		now := time.Now().UTC()
		t.Status, t.CreditedAt = Credited, &now
		if _, err := tx.NewUpdate().Model(&t).Column("status", "credited_at").Set("updated_at = now()").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("mark top-up %s credited: %w", id, err)
		}
		return outbox.Emit(ctx, tx, outbox.Event{AccountID: t.AccountID, ProjectID: t.ProjectID, Type: outbox.CreditsToppedUp,
			Subject: t.ID, Data: EventData(&t)})
	})
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// Event is the data of a credits.topped_up event.
type Event struct {
	TopUpID         string  `json:"topUpId"`
	ReceiptID       string  `json:"receiptId"`
	CreditedUSD     float64 `json:"creditedUsd"`
	CreditedCredits float64 `json:"creditedCredits"`
	Network         string  `json:"network"`
	Payer           string  `json:"payer"`
	Transaction     string  `json:"transaction"`
}

// EventData is the event a credited top-up records.
func EventData(t *schema.TopUp) Event {
	e := Event{TopUpID: t.ID, ReceiptID: t.ReceiptID, CreditedUSD: float64(t.AmountCents) / 100,
		CreditedCredits: float64(t.Millicredits) / 1000, Network: t.Network, Payer: common.HexToAddress(t.Payer).Hex()}
	e.Transaction = Transaction(t)
	return e
}

// Transaction is the hash of a top-up's settlement transaction, "" before one is known.
func Transaction(t *schema.TopUp) string {
	if t.TxHash == nil {
		return ""
	}
	return *t.TxHash
}

// Failure is why a failed top-up's payment could not settle: a machine reason and a message.
func Failure(t *schema.TopUp) (reason, message string) {
	if t.FailureReason != nil {
		reason = *t.FailureReason
	}
	if t.FailureMessage != nil {
		message = *t.FailureMessage
	}
	return reason, message
}

// ResultToWire is a credited top-up as the API answers it, with the account's balance after it.
func ResultToWire(t *schema.TopUp, balance client.Balance) client.TopUpResult {
	ev := EventData(t)
	return client.TopUpResult{OK: true, CreditedUSD: ev.CreditedUSD, CreditedCredits: ev.CreditedCredits,
		ReceiptID: t.ReceiptID, TopUpID: t.ID, Network: t.Network, Payer: ev.Payer, Transaction: Transaction(t),
		Balance: balance}
}
