package wallet

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/secretbox"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/internal/x402"
	"github.com/svcplatform/svc/schema"
)

// PaymentSigner is a managed wallet as an x402.Signer: it opens the wallet's key only inside
// SignAuthorization and drops it when the signature is made. It holds the sealed key, never the key.
type PaymentSigner struct {
	box *secretbox.Box
	w   *schema.Wallet
}

// PaymentSigner answers the scope's wallet walletID as an x402 payment signer (another scope's wallet
// is not found).
func (s *Store) PaymentSigner(ctx context.Context, scope tenant.Scope, walletID string) (*PaymentSigner, error) {
	w, err := s.Get(ctx, scope, walletID)
	if err != nil {
		return nil, err
	}
	return &PaymentSigner{box: s.box, w: w}, nil
}

// Address implements x402.Signer: the wallet's address.
func (p *PaymentSigner) Address() common.Address { return Address(p.w) }

// WalletID is the id of the signing wallet.
func (p *PaymentSigner) WalletID() string { return p.w.ID }

// Chain is the CAIP-2 id of the chain the wallet lives on.
func (p *PaymentSigner) Chain() string { return p.w.Chain }

// SignAuthorization implements x402.Signer: it signs the EIP-3009 authorization a under d with the
// wallet's key. The authorization must be from the wallet.
func (p *PaymentSigner) SignAuthorization(_ context.Context, d x402.Domain, a x402.EIP3009Authorization) (string, error) {
	if !common.IsHexAddress(a.From) || common.HexToAddress(a.From) != Address(p.w) {
		return "", fmt.Errorf("wallet %s signs authorizations from %s only, not from %q", p.w.ID, Address(p.w).Hex(), a.From)
	}
	key, err := OpenKey(p.box, p.w.ID, Address(p.w), Sealed{Key: p.w.SealedKey, DataKey: p.w.SealedDataKey})
	if err != nil {
		return "", err
	}
	sig, err := x402.SignAuthorization(key, d, a)
	if err != nil {
		return "", fmt.Errorf("wallet %s: sign the x402 authorization: %w", p.w.ID, err)
	}
	return sig, nil
}

// Payment is an x402 payment a wallet is about to authorize: atomic USDC (token) to To.
type Payment struct {
	// Ref names the reservation in wallet_spends (the app payment's id).
	Ref    string
	To     common.Address
	Token  common.Address
	Atomic *big.Int
	// USDCents is its USD value, rounded up.
	USDCents int64
}

// ReservePayment judges payment p from the scope's wallet walletID like a USDC send (paused, permitted
// recipients, screening, per-transaction and rolling daily limits) under the wallet's row lock, and
// reserves its USD value in wallet_spends, so that it counts against the wallet's daily limit. A
// refusal is a 403 naming the rule, and so is a payment the policy would hold for an approval (an x402
// call cannot wait for one).
func (s *Store) ReservePayment(ctx context.Context, scope tenant.Scope, walletID string, p Payment, now time.Time) error {
	cents := p.USDCents
	token := p.Token
	snd := &send{to: p.To, txTo: token, asset: client.AssetUSDC, token: &token, atomic: p.Atomic, decimals: usdcDecimals, usdCents: &cents}
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		w, err := s.get(ctx, tx, scope, walletID, "UPDATE")
		if err != nil {
			return err
		}
		v, sc, err := s.judge(ctx, tx, w, snd, now)
		if err != nil {
			return err
		}
		if v.Decision == NeedsApproval || sc.Verdict == client.ScreeningNeedsApproval {
			rule := v.Rule
			if rule == "" {
				rule = sc.Rule
			}
			return svcerr.New(svcerr.Forbidden, "the wallet's policy would hold this x402 payment for an approval (%s), and a pay-per-call payment cannot wait for one", rule).
				WithDetails("rule", rule).WithDetails("decision", NeedsApproval)
		}
		_, err = tx.NewRaw("INSERT INTO wallet_spends (wallet_id, transaction_id, cents) VALUES (?, ?, ?)", w.ID, p.Ref, cents).Exec(ctx)
		if err != nil {
			return fmt.Errorf("reserve the spend of x402 payment %s: %w", p.Ref, err)
		}
		return nil
	})
}

// ReleasePayment releases the reservation of x402 payment ref of wallet walletID (the payment was not
// made).
func (s *Store) ReleasePayment(ctx context.Context, walletID, ref string) error {
	_, err := s.db.NewRaw("UPDATE wallet_spends SET released_at = now() WHERE wallet_id = ? AND transaction_id = ? AND released_at IS NULL",
		walletID, ref).Exec(ctx)
	if err != nil {
		return fmt.Errorf("release the spend of x402 payment %s: %w", ref, err)
	}
	return nil
}
