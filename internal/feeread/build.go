package feeread

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
)

// Claimable is seed 002's claimable-fees lookup: eligible when who holds shares of token's pool.
func (r *Reader) Claimable(ctx context.Context, token, who common.Address) (*client.ClaimableFees, error) {
	return cached(r.cache, fmt.Sprintf("claimable/%s/%s", lower(token), lower(who)), func() (*client.ClaimableFees, error) {
		p, err := r.poolOf(ctx, token)
		if err != nil {
			return nil, err
		}
		shares, err := r.shares(ctx, p, who)
		if err != nil {
			return nil, err
		}
		out := &client.ClaimableFees{OK: true, TokenAddress: token.Hex()}
		if shares.Sign() == 0 {
			return out, nil
		}
		pending, err := r.pending(ctx, p, who)
		if err != nil {
			return nil, err
		}
		out.Eligible, out.Share = true, Percent(shares)
		out.ClaimableFees = &client.ClaimableFeeAmount{Token0: Ether(pending[0]), Token1: Ether(pending[1]),
			Token0Label: p.label(p.Token0), Token1Label: p.label(p.Token1)}
		return out, nil
	})
}

// fees are the gas prices every transaction of one build carries.
type fees struct{ maxFee, tip *big.Int }

// gasPrices reads the priority fee the node suggests and allows twice the latest base fee on top.
func (r *Reader) gasPrices(ctx context.Context) (fees, error) {
	tip, err := r.client.SuggestGasTipCap(ctx)
	if err != nil {
		return fees{}, fmt.Errorf("read the suggested priority fee: %w", err)
	}
	head, err := r.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return fees{}, fmt.Errorf("read the latest header: %w", err)
	}
	base := head.BaseFee
	if base == nil {
		base = new(big.Int)
	}
	return fees{maxFee: new(big.Int).Add(new(big.Int).Mul(base, big.NewInt(2)), tip), tip: tip}, nil
}

// unsigned builds the unsigned call of data to the manager from who: gas estimated from who plus 30 %.
func (r *Reader) unsigned(ctx context.Context, p pool, who common.Address, data []byte, f fees, description string) (client.UnsignedFeeTx, error) {
	to := r.opts.Manager
	gas, err := r.client.EstimateGas(ctx, ethereum.CallMsg{From: who, To: &to, Data: data})
	if err != nil {
		return client.UnsignedFeeTx{}, fmt.Errorf("estimate gas: %w", err)
	}
	return client.UnsignedFeeTx{TokenAddress: common.HexToAddress(p.Token).Hex(), TokenName: p.Name, TokenSymbol: p.Symbol,
		To: to.Hex(), Data: hexutil.Encode(data), ChainID: r.opts.ChainID, GasEstimate: fmt.Sprint(gas + gas*3/10),
		MaxFeePerGas: f.maxFee.String(), MaxPriorityFeePerGas: f.tip.String(), Description: description}, nil
}

// BuildClaim builds an unsigned collectFees transaction per token for who to sign; tokens it cannot
// build (a bad address, an unknown token, no shares and nothing pending, a failing estimate) are in the
// answer's errors while the others succeed. Each token is built once.
func (r *Reader) BuildClaim(ctx context.Context, who common.Address, tokens []string) (*client.BuildClaimResult, error) {
	if len(tokens) == 0 || len(tokens) > client.BuildClaimMaxTokens {
		return nil, svcerr.Invalid("tokenAddresses", "tokenAddresses must list 1 to %d token addresses", client.BuildClaimMaxTokens)
	}
	f, err := r.gasPrices(ctx)
	if err != nil {
		return nil, err
	}
	out := &client.BuildClaimResult{OK: true, Transactions: []client.UnsignedFeeTx{}, Errors: []client.BuildError{}}
	seen := map[string]bool{}
	for _, t := range tokens {
		if seen[strings.ToLower(t)] {
			continue
		}
		seen[strings.ToLower(t)] = true
		tx, err := r.claimTx(ctx, who, t, f)
		if err != nil {
			out.Errors = append(out.Errors, buildError(t, err))
			continue
		}
		out.Transactions = append(out.Transactions, tx)
	}
	return out, nil
}

// claimTx builds one token's collectFees.
func (r *Reader) claimTx(ctx context.Context, who common.Address, token string, f fees) (client.UnsignedFeeTx, error) {
	addr, err := ParseAddress("tokenAddresses", token)
	if err != nil {
		return client.UnsignedFeeTx{}, err
	}
	p, err := r.poolOf(ctx, addr)
	if err != nil {
		return client.UnsignedFeeTx{}, err
	}
	shares, err := r.shares(ctx, p, who)
	if err != nil {
		return client.UnsignedFeeTx{}, err
	}
	pending, err := r.pending(ctx, p, who)
	if err != nil {
		return client.UnsignedFeeTx{}, err
	}
	if shares.Sign() == 0 && pending[0].Sign() == 0 && pending[1].Sign() == 0 {
		return client.UnsignedFeeTx{}, errNotBeneficiary(who, p)
	}
	desc := fmt.Sprintf("Claim %s's fees of %s (%s): %s %s and %s %s", who.Hex(), p.Name, p.Symbol,
		Ether(pending[0]), p.label(p.Token0), Ether(pending[1]), p.label(p.Token1))
	return r.unsigned(ctx, p, who, feesABI.PackCollectFees(p.poolID()), f, desc)
}

// errNotBeneficiary is the 403 of an address without shares of p.
func errNotBeneficiary(who common.Address, p pool) error {
	return svcerr.New(svcerr.Forbidden, "%s is not a beneficiary of %s (%s)", who.Hex(), p.Name, common.HexToAddress(p.Token).Hex())
}

// buildError is the errors entry of a token a build failed on.
func buildError(token string, err error) client.BuildError {
	e, ok := svcerr.As(err)
	switch {
	case ok && e.Code == svcerr.InvalidRequest:
		return client.BuildError{TokenAddress: token, Code: "invalid_address", Message: "not a 0x address of 40 hex digits"}
	case ok && e.Code == svcerr.NotFound:
		return client.BuildError{TokenAddress: token, Code: "not_found", Message: e.Message}
	case ok && e.Code == svcerr.Forbidden:
		return client.BuildError{TokenAddress: token, Code: "not_beneficiary", Message: e.Message}
	}
	return client.BuildError{TokenAddress: token, Code: "unavailable", Message: "the chain could not build this claim: " + rootMessage(err)}
}

// rootMessage is the innermost error's message (a revert reason, a node's refusal).
func rootMessage(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// BuildTransfer builds the unsigned updateBeneficiary call moving current's shares of token's pool to
// next: 403 when current holds no shares.
func (r *Reader) BuildTransfer(ctx context.Context, token, current, next common.Address) (*client.BuildTransferResult, error) {
	p, shares, err := r.transferable(ctx, token, current, next)
	if err != nil {
		return nil, err
	}
	f, err := r.gasPrices(ctx)
	if err != nil {
		return nil, err
	}
	desc := fmt.Sprintf("Transfer %s's beneficiary share (%s %%) of %s (%s) to %s; its pending fees are paid to it first",
		current.Hex(), Percent(shares), p.Name, p.Symbol, next.Hex())
	tx, err := r.unsigned(ctx, p, current, feesABI.PackUpdateBeneficiary(p.poolID(), next), f, desc)
	if err != nil {
		return nil, err
	}
	return &client.BuildTransferResult{OK: true, UnsignedFeeTx: tx}, nil
}

// transferable checks a transfer of current's share of token's pool to next: 400 naming newBeneficiary
// for the zero address or current itself, 404 for an unknown token, 403 when current holds no shares. It
// answers the pool and current's shares.
func (r *Reader) transferable(ctx context.Context, token, current, next common.Address) (pool, *big.Int, error) {
	if next == (common.Address{}) {
		return pool{}, nil, svcerr.Invalid("newBeneficiary", "newBeneficiary must not be the zero address")
	}
	if next == current {
		return pool{}, nil, svcerr.Invalid("newBeneficiary", "newBeneficiary must differ from the current beneficiary %s", current.Hex())
	}
	p, err := r.poolOf(ctx, token)
	if err != nil {
		return pool{}, nil, err
	}
	shares, err := r.shares(ctx, p, current)
	if err != nil {
		return pool{}, nil, err
	}
	if shares.Sign() == 0 {
		return pool{}, nil, errNotBeneficiary(current, p)
	}
	return p, shares, nil
}

// TransferPlan is a beneficiary transfer checked against the chain: the pool, the shares that move and
// what pendingFees showed the current beneficiary before (it is paid that first).
type TransferPlan struct {
	PoolID  common.Hash
	Shares  *big.Int
	Pending [2]*big.Int
}

// PlanTransfer checks a transfer of current's share of token's pool to next (see transferable) and
// simulates updateBeneficiary from current with eth_call (a refusal answers 409 with the chain's reason).
func (r *Reader) PlanTransfer(ctx context.Context, token, current, next common.Address) (*TransferPlan, error) {
	p, shares, err := r.transferable(ctx, token, current, next)
	if err != nil {
		return nil, err
	}
	pending, err := r.pending(ctx, p, current)
	if err != nil {
		return nil, err
	}
	to := r.opts.Manager
	data := feesABI.PackUpdateBeneficiary(p.poolID(), next)
	if _, err := r.client.CallContract(ctx, ethereum.CallMsg{From: current, To: &to, Data: data}, nil); err != nil {
		return nil, svcerr.New(svcerr.Conflict, "the chain refuses updateBeneficiary from %s for %s: %s", current.Hex(), token.Hex(), rootMessage(err))
	}
	return &TransferPlan{PoolID: p.poolID(), Shares: shares, Pending: pending}, nil
}

// ClaimPlan is a claim of one token's fees checked against the chain: the pool whose collectFees the
// claimer sends, and what pendingFees showed before.
type ClaimPlan struct {
	PoolID  common.Hash
	Pending [2]*big.Int
}

// PlanClaim checks that who may claim token's fees (403 when it holds no shares and nothing is pending)
// and simulates collectFees from who with eth_call (a refusal answers 409 with the chain's reason).
func (r *Reader) PlanClaim(ctx context.Context, token, who common.Address) (*ClaimPlan, error) {
	p, err := r.poolOf(ctx, token)
	if err != nil {
		return nil, err
	}
	shares, err := r.shares(ctx, p, who)
	if err != nil {
		return nil, err
	}
	pending, err := r.pending(ctx, p, who)
	if err != nil {
		return nil, err
	}
	if shares.Sign() == 0 && pending[0].Sign() == 0 && pending[1].Sign() == 0 {
		return nil, errNotBeneficiary(who, p)
	}
	data := feesABI.PackCollectFees(p.poolID())
	to := r.opts.Manager
	if _, err := r.client.CallContract(ctx, ethereum.CallMsg{From: who, To: &to, Data: data}, nil); err != nil {
		return nil, svcerr.New(svcerr.Conflict, "the chain refuses collectFees from %s for %s: %s", who.Hex(), token.Hex(), rootMessage(err))
	}
	return &ClaimPlan{PoolID: p.poolID(), Pending: pending}, nil
}

// Manager is the FeesManager the reader reads.
func (r *Reader) Manager() common.Address { return r.opts.Manager }
