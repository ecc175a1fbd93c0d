package wallet

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// QuoteTTL is how long a quote can be executed.
const QuoteTTL = 60 * time.Second

// Prices turn amounts into USD: USDC is one dollar; the native asset has a configured price (cents per
// whole unit; 0 when none is known).
type Prices struct {
	NativeCents int64
}

// transferSelector is the selector of ERC-20 transfer(address,uint256).
var transferSelector = []byte{0xa9, 0x05, 0x9c, 0xbb}

// send is a send request resolved: what goes on chain and what it is worth.
type send struct {
	to, txTo     common.Address
	asset        string
	token        *common.Address
	atomic       *big.Int
	decimals     int
	value        *big.Int
	data         []byte
	contractCall bool
	usdCents     *int64
}

// resolve reads a quote request: the recipient, the asset, the amount in the asset's units, the call
// data, and the USD value. Errors name the field.
func (c *Chain) resolve(ctx context.Context, r client.TransactionQuoteRequest, prices Prices) (*send, error) {
	to, err := parseAddress("to", r.To)
	if err != nil {
		return nil, err
	}
	s := &send{to: to, txTo: to}
	switch strings.ToLower(r.Asset) {
	case client.AssetNative:
		s.asset, s.decimals = client.AssetNative, 18
	case client.AssetUSDC, strings.ToLower(c.USDC.Hex()):
		token := c.USDC
		s.asset, s.decimals, s.token = client.AssetUSDC, usdcDecimals, &token
	default:
		return nil, svcerr.Invalid("asset", "asset is native, usdc or a known token's address; %q is none of them", r.Asset)
	}
	if s.atomic, err = parseUnits("amount", r.Amount, s.decimals); err != nil {
		if r.Data == "" || s.asset != client.AssetNative || strings.TrimSpace(r.Amount) != "0" {
			return nil, err
		}
		s.atomic = new(big.Int) // a contract call may move no value
	}
	if r.Data != "" {
		if s.asset != client.AssetNative {
			return nil, svcerr.Invalid("data", "data goes with asset native: a token transfer's call data is the platform's")
		}
		if s.data, err = parseHex("data", r.Data); err != nil {
			return nil, err
		}
	}
	if err := c.shape(ctx, s); err != nil {
		return nil, err
	}
	s.usdCents = prices.cents(s)
	return s, nil
}

// shape sets what the transaction carries on chain, and whether it is a contract call.
func (c *Chain) shape(ctx context.Context, s *send) error {
	if s.token != nil {
		s.txTo, s.value = *s.token, new(big.Int)
		s.data = append(append([]byte{}, transferSelector...), append(common.LeftPadBytes(s.to.Bytes(), 32),
			common.LeftPadBytes(s.atomic.Bytes(), 32)...)...)
		return nil
	}
	s.value = s.atomic
	if len(s.data) > 0 {
		s.contractCall = true
		return nil
	}
	code, err := c.RPC.CodeAt(ctx, s.to, nil)
	if err != nil {
		return svcerr.New(svcerr.Unavailable, "the chain did not answer: %v", err)
	}
	s.contractCall = len(code) > 0
	return nil
}

// cents is s's USD value in cents (rounded up), nil without a price.
func (p Prices) cents(s *send) *int64 {
	per := int64(100)
	if s.asset == client.AssetNative {
		per = p.NativeCents
	}
	if per <= 0 {
		return nil
	}
	num := new(big.Int).Mul(s.atomic, big.NewInt(per))
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(s.decimals)), nil)
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return nil
	}
	v := q.Int64()
	return &v
}

// parseUnits reads a positive decimal amount with at most decimals digits after the point (evm.ParseUnits),
// naming field when it cannot.
func parseUnits(field, s string, decimals int) (*big.Int, error) {
	v, err := evm.ParseUnits(strings.TrimSpace(s), decimals)
	if err != nil {
		return nil, svcerr.Invalid(field, "%s: %v (a decimal string such as 12.5, at most %d decimals)", field, err, decimals)
	}
	if v.Sign() <= 0 {
		return nil, svcerr.Invalid(field, "%s must be more than 0", field)
	}
	return v, nil
}

// parseHex reads 0x-prefixed hex bytes.
func parseHex(field, s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil || !strings.HasPrefix(s, "0x") {
		return nil, svcerr.Invalid(field, "%s is hex bytes starting 0x", field)
	}
	return b, nil
}

// fee estimates what sending s from from costs at most; an error says why it cannot.
func (c *Chain) fee(ctx context.Context, from common.Address, s *send) (*client.TransactionFee, error) {
	gas, err := c.RPC.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &s.txTo, Value: s.value, Data: s.data})
	if err != nil {
		return nil, err
	}
	_, maxFee, err := evm.Fees(ctx, c.RPC)
	if err != nil {
		return nil, err
	}
	total := new(big.Int).Mul(maxFee, new(big.Int).SetUint64(gas))
	return &client.TransactionFee{GasLimit: gas, MaxFeePerGasWei: maxFee.String(), EstimateWei: total.String(), Estimate: FormatUnits(total, 18)}, nil
}

// Spent answers the USD cents wallet id sent or holds reserved in the 24 hours before now.
func Spent(ctx context.Context, db bun.IDB, walletID string, now time.Time) (int64, error) {
	var total int64
	err := db.NewRaw("SELECT coalesce(sum(cents), 0) FROM wallet_spends WHERE wallet_id = ? AND released_at IS NULL AND created_at > ?",
		walletID, now.Add(-24*time.Hour)).Scan(ctx, &total)
	if err != nil {
		return 0, fmt.Errorf("sum the spend of wallet %s: %w", walletID, err)
	}
	return total, nil
}

// Quote prices and judges a send from the scope's wallet walletID and records the quote (quoteID).
func (s *Store) Quote(ctx context.Context, c *Chain, prices Prices, scope tenant.Scope, walletID, quoteID string, r client.TransactionQuoteRequest, now time.Time) (client.TransactionQuote, error) {
	w, err := s.Get(ctx, scope, walletID)
	if err != nil {
		return client.TransactionQuote{}, err
	}
	if c == nil {
		return client.TransactionQuote{}, svcerr.New(svcerr.Unavailable, "this server reads no chain (SVC_CHAIN_RPC_URL)")
	}
	snd, err := c.resolve(ctx, r, prices)
	if err != nil {
		return client.TransactionQuote{}, err
	}
	policy, err := PolicyOf(w)
	if err != nil {
		return client.TransactionQuote{}, err
	}
	spent, err := Spent(ctx, s.db, w.ID, now)
	if err != nil {
		return client.TransactionQuote{}, err
	}
	verdict := policy.Evaluate(Outbound{From: Address(w), To: snd.to, USDCents: snd.usdCents, ContractCall: snd.contractCall, SpentCents: spent}, now)
	screening, err := s.screener.Screen(ctx, s.db, w, snd, now)
	if err != nil {
		return client.TransactionQuote{}, err
	}
	q := client.TransactionQuote{Screening: &screening, ID: quoteID, WalletID: w.ID, To: snd.to.Hex(), Asset: snd.asset, Amount: FormatUnits(snd.atomic, snd.decimals),
		Atomic: snd.atomic.String(), Decimals: snd.decimals, USDValue: usd(snd.usdCents), ContractCall: snd.contractCall,
		SpentLast24hUSD: float64(spent) / 100, Verdict: client.PolicyVerdict(verdict), ExpiresAt: now.Add(QuoteTTL).UTC()}
	if snd.token != nil {
		t := snd.token.Hex()
		q.Token = &t
	}
	if q.Fee, err = c.fee(ctx, Address(w), snd); err != nil {
		q.FeeError = "the chain cannot estimate this send (" + err.Error() + ")"
	}
	return q, s.recordQuote(ctx, w, snd, q)
}

// recordQuote stores the quote for its execution.
func (s *Store) recordQuote(ctx context.Context, w *schema.Wallet, snd *send, q client.TransactionQuote) error {
	verdict, err := json.Marshal(q.Verdict)
	if err != nil {
		return fmt.Errorf("encode the verdict: %w", err)
	}
	data := snd.data
	if snd.token != nil {
		data = nil // a token transfer's call data is the platform's, rebuilt when it is sent
	}
	row := &schema.WalletQuote{ID: q.ID, WalletID: w.ID, AccountID: w.AccountID, ToAddress: q.To, Asset: q.Asset, Token: q.Token,
		Atomic: q.Atomic, Decimals: q.Decimals, USDCents: snd.usdCents, ContractCall: q.ContractCall, Data: data,
		Verdict: verdict, ExpiresAt: q.ExpiresAt}
	if _, err := s.db.NewInsert().Model(row).On("CONFLICT (id) DO NOTHING").Exec(ctx); err != nil {
		return fmt.Errorf("record quote: %w", err)
	}
	return nil
}
