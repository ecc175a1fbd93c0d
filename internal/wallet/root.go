package wallet

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/handles"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
)

// This file serves seed 002's wallet routes at the host root (/wallet/transfer, /wallet/submit,
// /wallet/portfolio): which wallet a key means, the handle resolver, and the translation of their bodies
// into the one send request CreateTransaction takes.

// Pick is the scope's wallet id, or, when id is "", the scope's first wallet (the oldest): the wallet a
// seed 002 key means when it names none.
func (s *Store) Pick(ctx context.Context, scope tenant.Scope, id string) (*schema.Wallet, error) {
	if id != "" {
		return s.Get(ctx, scope, id)
	}
	w := new(schema.Wallet)
	err := scope.Where(s.db.NewSelect().Model(w)).OrderExpr("created_at, id").Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("this account has no wallet: create one (POST /v1/wallets)")
	}
	if err != nil {
		return nil, fmt.Errorf("read the first wallet: %w", err)
	}
	return w, nil
}

// ResolveRecipient answers the address field stands for: an address as it is, or an ENS-style name
// (alice.eth) the handle resolver knows.
func ResolveRecipient(r *handles.Resolver, field, to string) (string, error) {
	to = strings.TrimSpace(to)
	if strings.HasPrefix(to, "0x") || !strings.Contains(to, ".") {
		_, err := parseAddress(field, to)
		return to, err
	}
	addr, err := r.Resolve(handles.KindENS, to)
	switch {
	case errors.Is(err, handles.ErrMalformed):
		return "", svcerr.Invalid(field, "%s is neither an address (0x…) nor an ENS-style name (alice.eth)", field)
	case errors.Is(err, handles.ErrNotFound):
		return "", svcerr.Invalid(field, "%s: the handle resolver knows no name %s (names are configured with SVC_WALLET_NAMES or SVC_HANDLE_RESOLVER_FILE)", field, strings.ToLower(to))
	case err != nil:
		return "", fmt.Errorf("resolve %s: %w", field, err)
	}
	return addr.Hex(), nil
}

// CheckChain refuses a chain (CAIP-2 or numeric id; "" is the wallet's) that is not wallet w's.
func CheckChain(field, chain string, w *schema.Wallet) error {
	if chain == "" || chain == w.Chain || "eip155:"+chain == w.Chain {
		return nil
	}
	return svcerr.Invalid(field, "wallet %s is on %s; %s %q is not served here", w.ID, w.Chain, field, chain)
}

// TransferRequest is a POST /wallet/transfer body as the send CreateTransaction takes (to resolved by
// names).
func TransferRequest(w *schema.Wallet, names *handles.Resolver, r client.WalletTransferRequest) (client.CreateTransactionRequest, error) {
	if err := CheckChain("chain", r.Chain, w); err != nil {
		return client.CreateTransactionRequest{}, err
	}
	asset := r.Token
	switch {
	case r.Native && r.Token != "":
		return client.CreateTransactionRequest{}, svcerr.Invalid("token", "give token or native, not both")
	case r.Native:
		asset = client.AssetNative
	case r.Token == "":
		return client.CreateTransactionRequest{}, svcerr.Invalid("token", "give token (usdc or a known token's address) or native: true")
	case strings.EqualFold(r.Token, client.AssetNative):
		return client.CreateTransactionRequest{}, svcerr.Invalid("token", "the native asset is native: true, not a token")
	case !strings.EqualFold(r.Token, client.AssetUSDC) && !common.IsHexAddress(r.Token):
		return client.CreateTransactionRequest{}, svcerr.Invalid("token", "token is usdc or a known token's address; %q is neither", r.Token)
	}
	to, err := ResolveRecipient(names, "to", r.To)
	if err != nil {
		return client.CreateTransactionRequest{}, err
	}
	return client.CreateTransactionRequest{To: to, Amount: r.Amount, Asset: asset}, nil
}

// SubmitRequest is a POST /wallet/submit body as the send CreateTransaction takes: a USDC
// transfer(to, amount) of no value is that much USDC to its recipient (a known-token transfer); anything
// else is its native value to its address with its call data (a contract call when it has data or goes to
// a contract).
func (c *Chain) SubmitRequest(w *schema.Wallet, r client.WalletSubmitRequest) (client.CreateTransactionRequest, error) {
	chainID, err := strconv.ParseInt(strings.TrimPrefix(w.Chain, "eip155:"), 10, 64)
	if err != nil || !strings.HasPrefix(w.Chain, "eip155:") {
		return client.CreateTransactionRequest{}, svcerr.Invalid("walletId", "wallet %s is on %s, not an EVM chain", w.ID, w.Chain)
	}
	var to common.Address
	var value *big.Int
	var data []byte
	if r.Transaction != "" {
		if r.To != "" || r.ChainID != nil || r.Value != "" || r.Data != "" {
			return client.CreateTransactionRequest{}, svcerr.Invalid("transaction", "give a raw transaction or to, chainId, value and data, not both")
		}
		if to, value, data, err = rawFields(w, chainID, r.Transaction); err != nil {
			return client.CreateTransactionRequest{}, err
		}
	} else {
		if r.ChainID == nil {
			return client.CreateTransactionRequest{}, svcerr.Invalid("chainId", "chainId is required (%d for wallet %s)", chainID, w.ID)
		}
		if *r.ChainID != chainID {
			return client.CreateTransactionRequest{}, svcerr.Invalid("chainId", "chainId %d is not wallet %s's chain (%d)", *r.ChainID, w.ID, chainID)
		}
		if to, err = parseAddress("to", r.To); err != nil {
			return client.CreateTransactionRequest{}, err
		}
		if value, err = weiValue("value", r.Value); err != nil {
			return client.CreateTransactionRequest{}, err
		}
		if r.Data != "" {
			if data, err = parseHex("data", r.Data); err != nil {
				return client.CreateTransactionRequest{}, err
			}
		}
	}
	if c != nil && to == c.USDC && value.Sign() == 0 && len(data) == 4+64 && bytes.Equal(data[:4], transferSelector) {
		return client.CreateTransactionRequest{To: common.BytesToAddress(data[4:36]).Hex(),
			Amount: FormatUnits(new(big.Int).SetBytes(data[36:68]), usdcDecimals), Asset: client.AssetUSDC}, nil
	}
	out := client.CreateTransactionRequest{To: to.Hex(), Amount: FormatUnits(value, 18), Asset: client.AssetNative}
	if len(data) > 0 {
		out.Data = hexOf(data)
	}
	return out, nil
}

// rawFields reads a raw transaction signed by wallet w for chain chainID: its recipient, value and data.
func rawFields(w *schema.Wallet, chainID int64, raw string) (common.Address, *big.Int, []byte, error) {
	b, err := parseHex("transaction", raw)
	if err != nil {
		return common.Address{}, nil, nil, err
	}
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(b); err != nil {
		return common.Address{}, nil, nil, svcerr.Invalid("transaction", "transaction is not a signed raw transaction (RLP or EIP-2718): %v", err)
	}
	if tx.ChainId().Cmp(big.NewInt(chainID)) != 0 {
		return common.Address{}, nil, nil, svcerr.Invalid("transaction", "transaction is for chain %s, not wallet %s's chain (%d)", tx.ChainId(), w.ID, chainID)
	}
	from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
	if err != nil {
		return common.Address{}, nil, nil, svcerr.Invalid("transaction", "transaction's signature cannot be verified: %v", err)
	}
	if from != Address(w) {
		return common.Address{}, nil, nil, svcerr.Invalid("transaction", "transaction is signed by %s, not by wallet %s (%s)", from.Hex(), w.ID, Address(w).Hex())
	}
	if tx.To() == nil {
		return common.Address{}, nil, nil, svcerr.Invalid("transaction", "transaction creates a contract: wallets do not deploy contracts")
	}
	return *tx.To(), tx.Value(), tx.Data(), nil
}

// weiValue reads a wei amount, decimal or 0x hex; "" is 0.
func weiValue(field, s string) (*big.Int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return new(big.Int), nil
	}
	v, ok := new(big.Int), false
	if hexDigits, isHex := strings.CutPrefix(s, "0x"); isHex {
		_, ok = v.SetString(hexDigits, 16)
	} else if strings.Trim(s, "0123456789") == "" {
		_, ok = v.SetString(s, 10)
	}
	if !ok || v.Sign() < 0 {
		return nil, svcerr.Invalid(field, "%s is wei: a whole decimal number or 0x hex", field)
	}
	return v, nil
}

// Portfolio reads wallet w's balances at one block with their USD values (USDC at one dollar, the native
// asset at the configured price; none when unknown).
func (c *Chain) Portfolio(ctx context.Context, prices Prices, w *schema.Wallet) (client.WalletPortfolio, error) {
	bal, block, err := c.Balances(ctx, Address(w))
	if err != nil {
		return client.WalletPortfolio{}, err
	}
	out := client.WalletPortfolio{WalletID: w.ID, Name: w.Name, Address: Address(w).Hex(), Chain: w.Chain, Block: block,
		Balances: make([]client.PortfolioBalance, 0, len(bal))}
	var total int64
	for _, b := range bal {
		pb := client.PortfolioBalance{WalletBalance: b}
		one := &send{asset: b.Asset, atomic: big.NewInt(1), decimals: 0}
		if perUnit := prices.cents(one); perUnit != nil {
			pb.USDPrice = usd(perUnit)
			cents := prices.cents(&send{asset: b.Asset, atomic: mustBig(b.Atomic), decimals: b.Decimals})
			if cents != nil {
				total += *cents
				pb.USDValue = usd(cents)
			}
		}
		out.Balances = append(out.Balances, pb)
	}
	out.TotalUSD = float64(total) / 100
	return out, nil
}
