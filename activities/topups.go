package activities

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/topup"
	"github.com/svcplatform/svc/internal/x402"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// Reasons a top-up's payment cannot settle (TopUpSettlement.Reason).
const (
	ReasonAuthorizationExpired  = "authorization_expired"
	ReasonAuthorizationCanceled = "authorization_canceled"
	ReasonInsufficientFunds     = "insufficient_funds"
	ReasonSettlementRefused     = "settlement_refused"
)

// FaultStallAfterSettle, as TopUps.Fault, makes SettleTopUp stop (without heartbeats, until its
// context ends) right after the transfer is mined and before it is recorded: the crash test kills the
// worker there. Never set it in production.
const FaultStallAfterSettle = "stall-after-settle"

// receiptWait is how long one attempt waits for a sent settlement to be mined before it lets the
// workflow retry (the retry reconciles from the chain first).
const receiptWait = 20 * time.Second

// TopUps settle x402 top-ups on chain and credit them.
type TopUps struct {
	Store *topup.Store
	Chain *evm.Chain
	// Facilitator, when set, settles through an external x402 facilitator instead of submitting with
	// the chain's facilitator key; the chain is still read to reconcile.
	Facilitator *x402.HTTPFacilitator
	// X402 is what payments are made in (the requirements an external facilitator is shown).
	X402 *x402.Config
	// Fault injects a test fault (FaultStallAfterSettle); empty in production.
	Fault string
}

// SettleTopUp makes sure a top-up's transfer is on chain, exactly once: it first asks the chain whether
// the authorization was used (an earlier attempt's transfer, whose answer was lost, is found and
// recorded), then waits for a transaction an earlier attempt sent, and only then sends one. A payment
// that can never settle is recorded failed with the reason; anything uncertain is an error, retried.
func (a *TopUps) SettleTopUp(ctx context.Context, id string) (workflows.TopUpSettlement, error) {
	if a.Chain == nil {
		return workflows.TopUpSettlement{}, errors.New("this worker has no chain to settle on: set SVC_CHAIN_RPC_URL")
	}
	t, err := a.Store.Get(ctx, id)
	if errors.Is(err, topup.ErrMissing) {
		return workflows.TopUpSettlement{}, temporal.NewNonRetryableApplicationError(err.Error(), "TopUpMissing", err)
	}
	if err != nil {
		return workflows.TopUpSettlement{}, err
	}
	if s, done := finished(t); done {
		return s, nil
	}
	auth, err := authorizationOf(t)
	if err != nil {
		return workflows.TopUpSettlement{}, temporal.NewNonRetryableApplicationError(err.Error(), "TopUpCorrupt", err)
	}
	if s, done, err := a.reconcile(ctx, t, auth); done || err != nil {
		return s, err
	}
	if t.TxHash != nil {
		if s, done, err := a.awaitSent(ctx, t, auth, common.HexToHash(*t.TxHash)); done || err != nil {
			return s, err
		}
	}
	return a.send(ctx, t, auth)
}

// finished is the settlement of a top-up past settling.
func finished(t *schema.TopUp) (workflows.TopUpSettlement, bool) {
	switch t.Status {
	case topup.Settled, topup.Credited:
		return workflows.TopUpSettlement{Settled: true, TxHash: *t.TxHash}, true
	case topup.Failed:
		reason, message := topup.Failure(t)
		return workflows.TopUpSettlement{Reason: reason, Message: message}, true
	}
	return workflows.TopUpSettlement{}, false
}

// reconcile reads the authorization's state on chain: used by a transfer (settled, whoever sent it),
// cancelled by the payer (failed), or unused (not done).
func (a *TopUps) reconcile(ctx context.Context, t *schema.TopUp, auth x402.Authorization) (workflows.TopUpSettlement, bool, error) {
	used, err := a.Chain.AuthorizationState(ctx, auth.From, auth.Nonce)
	if err != nil || !used {
		return workflows.TopUpSettlement{}, false, err
	}
	tx, found, err := a.Chain.FindAuthorization(ctx, auth.From, auth.Nonce)
	if err != nil {
		return workflows.TopUpSettlement{}, false, err
	}
	if !found {
		return a.fail(ctx, t, ReasonAuthorizationCanceled, "the payer cancelled this authorization on chain")
	}
	return a.settled(ctx, t, tx)
}

// awaitSent waits for a transaction an earlier attempt sent, while the node still knows it and it has not
// failed; a dropped or reverted one is sent again (the new attempt's simulation gives the definite reason
// when it cannot succeed).
func (a *TopUps) awaitSent(ctx context.Context, t *schema.TopUp, auth x402.Authorization, tx common.Hash) (workflows.TopUpSettlement, bool, error) {
	r, err := a.Chain.Receipt(ctx, tx)
	if err != nil || (r != nil && r.Status != types.ReceiptStatusSuccessful) {
		return workflows.TopUpSettlement{}, false, err
	}
	known, err := a.Chain.Known(ctx, tx)
	if err != nil || !known {
		return workflows.TopUpSettlement{}, false, err
	}
	return a.mined(ctx, t, auth, tx)
}

// send checks that the payment can still settle and sends it (built-in facilitator or external).
func (a *TopUps) send(ctx context.Context, t *schema.TopUp, auth x402.Authorization) (workflows.TopUpSettlement, error) {
	if time.Now().Add(2 * time.Second).After(time.Unix(auth.ValidBefore.Int64(), 0)) {
		s, _, err := a.fail(ctx, t, ReasonAuthorizationExpired, "the authorization expired before it could be settled; sign a new payment")
		return s, err
	}
	bal, err := a.Chain.BalanceOf(ctx, auth.From)
	if err != nil {
		return workflows.TopUpSettlement{}, err
	}
	if bal.Cmp(auth.Value) < 0 {
		s, _, err := a.fail(ctx, t, ReasonInsufficientFunds, fmt.Sprintf("the payer %s holds %s USDC, the payment is %s USDC",
			auth.From.Hex(), usdcString(bal), usdcString(auth.Value)))
		return s, err
	}
	tx, err := a.submit(ctx, t, auth)
	var revert *evm.RevertError
	if errors.As(err, &revert) {
		if s, done, err := a.reconcile(ctx, t, auth); done || err != nil {
			return s, err
		}
		s, _, err := a.fail(ctx, t, ReasonSettlementRefused, revert.Reason)
		return s, err
	}
	if err != nil {
		return workflows.TopUpSettlement{}, err
	}
	if err := a.Store.RecordSubmission(ctx, t.ID, tx.Hex()); err != nil {
		return workflows.TopUpSettlement{}, err
	}
	s, _, err := a.mined(ctx, t, auth, tx)
	return s, err
}

// submit sends the transfer: through the external facilitator when there is one, else with the
// chain's facilitator key.
func (a *TopUps) submit(ctx context.Context, t *schema.TopUp, auth x402.Authorization) (common.Hash, error) {
	if a.Facilitator == nil {
		return a.Chain.SubmitTransfer(ctx, auth)
	}
	amount, _ := new(big.Int).SetString(t.Value, 10)
	want := a.X402.Requirements(amount)
	res, err := a.Facilitator.Settle(ctx, paymentOf(t, want), want)
	if err != nil {
		if errors.Is(err, x402.ErrAmbiguous) {
			return common.Hash{}, fmt.Errorf("facilitator settlement unconfirmed (reconciling from the chain next): %w", err)
		}
		return common.Hash{}, &evm.RevertError{Reason: err.Error()}
	}
	return common.HexToHash(res.Transaction), nil
}

// mined waits for tx's receipt: success settles the top-up; a revert or no receipt yet is retried (the
// retry reconciles first, then finds the definite reason by simulating again).
func (a *TopUps) mined(ctx context.Context, t *schema.TopUp, auth x402.Authorization, tx common.Hash) (workflows.TopUpSettlement, bool, error) {
	r, err := a.Chain.WaitMined(ctx, tx, receiptWait, func() { activity.RecordHeartbeat(ctx) })
	if err != nil {
		return workflows.TopUpSettlement{}, false, err
	}
	if r == nil {
		return workflows.TopUpSettlement{}, false, fmt.Errorf("settlement %s not mined within %s; will reconcile", tx.Hex(), receiptWait)
	}
	if r.Status != types.ReceiptStatusSuccessful {
		return workflows.TopUpSettlement{}, false, fmt.Errorf("settlement %s reverted; will reconcile", tx.Hex())
	}
	if a.Fault == FaultStallAfterSettle {
		<-ctx.Done()
		return workflows.TopUpSettlement{}, false, ctx.Err()
	}
	return a.settled(ctx, t, tx)
}

func (a *TopUps) settled(ctx context.Context, t *schema.TopUp, tx common.Hash) (workflows.TopUpSettlement, bool, error) {
	if err := a.Store.MarkSettled(ctx, t.ID, tx.Hex()); err != nil {
		return workflows.TopUpSettlement{}, false, err
	}
	return workflows.TopUpSettlement{Settled: true, TxHash: tx.Hex()}, true, nil
}

func (a *TopUps) fail(ctx context.Context, t *schema.TopUp, reason, message string) (workflows.TopUpSettlement, bool, error) {
	if err := a.Store.MarkFailed(ctx, t.ID, reason, message); err != nil {
		return workflows.TopUpSettlement{}, false, err
	}
	return workflows.TopUpSettlement{Reason: reason, Message: message}, true, nil
}

// CreditTopUp posts a settled top-up's credits with its credits.topped_up event; it is idempotent.
func (a *TopUps) CreditTopUp(ctx context.Context, id string) error {
	_, err := a.Store.Credit(ctx, id)
	return err
}

// authorizationOf parses the stored authorization.
func authorizationOf(t *schema.TopUp) (x402.Authorization, error) {
	sig, err := hexutil.Decode(t.Signature)
	if err != nil {
		return x402.Authorization{}, fmt.Errorf("top-up %s signature: %w", t.ID, err)
	}
	nonce, err := hexutil.Decode(t.Nonce)
	if err != nil || len(nonce) != 32 {
		return x402.Authorization{}, fmt.Errorf("top-up %s nonce %q is not 32 bytes", t.ID, t.Nonce)
	}
	a := x402.Authorization{From: common.HexToAddress(t.Payer), To: common.HexToAddress(t.PayTo), Signature: sig}
	copy(a.Nonce[:], nonce)
	for _, f := range []struct {
		dst **big.Int
		src string
	}{{&a.Value, t.Value}, {&a.ValidAfter, t.ValidAfter}, {&a.ValidBefore, t.ValidBefore}} {
		n, ok := new(big.Int).SetString(f.src, 10)
		if !ok {
			return x402.Authorization{}, fmt.Errorf("top-up %s holds a bad number %q", t.ID, f.src)
		}
		*f.dst = n
	}
	return a, nil
}

// paymentOf rebuilds the v2 payment of a stored top-up, for an external facilitator.
func paymentOf(t *schema.TopUp, want x402.PaymentRequirements) x402.PaymentPayload {
	return x402.PaymentPayload{X402Version: x402.Version, Scheme: x402.SchemeExact, Network: t.Network, Accepted: &want,
		Payload: x402.ExactEVMPayload{Signature: t.Signature, Authorization: &x402.EIP3009Authorization{
			From: common.HexToAddress(t.Payer).Hex(), To: common.HexToAddress(t.PayTo).Hex(), Value: t.Value,
			ValidAfter: t.ValidAfter, ValidBefore: t.ValidBefore, Nonce: t.Nonce}}}
}

// usdcString renders atomic USDC (6 decimals) as a decimal.
func usdcString(atomic *big.Int) string {
	q, r := new(big.Int).QuoRem(atomic, big.NewInt(1_000_000), new(big.Int))
	return fmt.Sprintf("%s.%06s", q, r.String())
}
