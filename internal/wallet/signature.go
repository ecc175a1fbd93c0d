package wallet

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	gethmath "github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/uptrace/bun"
	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	sdkclient "go.temporal.io/sdk/client"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/approval"
	"github.com/svcplatform/svc/internal/evm"
	"github.com/svcplatform/svc/internal/ids"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/internal/tenant"
	"github.com/svcplatform/svc/schema"
	"github.com/svcplatform/svc/workflows"
)

// signing is a signature request resolved: the digest that is signed, what the quote shows of it, what
// the signing activity needs (request), and what it lets move (spend; nil for nothing).
type signing struct {
	typ     string
	digest  common.Hash
	request json.RawMessage
	subject client.SignatureSubject
	spend   *send
}

// signedTx is the stored request of an eth_signTransaction: the unsigned transaction, every field set.
type signedTx struct {
	ChainID int64          `json:"chainId"`
	Nonce   uint64         `json:"nonce"`
	Gas     uint64         `json:"gas"`
	FeeCap  string         `json:"maxFeePerGas"`
	TipCap  string         `json:"maxPriorityFeePerGas"`
	To      common.Address `json:"to"`
	Value   string         `json:"value"`
	Data    []byte         `json:"data"`
}

func (t signedTx) tx() *types.DynamicFeeTx {
	to := t.To
	return &types.DynamicFeeTx{ChainID: big.NewInt(t.ChainID), Nonce: t.Nonce, Gas: t.Gas, GasFeeCap: mustBig(t.FeeCap),
		GasTipCap: mustBig(t.TipCap), To: &to, Value: mustBig(t.Value), Data: t.Data}
}

// personalMessage is the stored request of a personal_sign.
type personalMessage struct {
	Message []byte `json:"message"`
}

// resolveSigning reads a signature request of wallet w (errors name the field) and works out its digest,
// what it shows and what it spends.
func (s *Store) resolveSigning(ctx context.Context, c *Chain, prices Prices, w *schema.Wallet, r client.SignatureRequest) (*signing, error) {
	switch r.Type {
	case client.SignPersonal:
		if len(r.TypedData) > 0 || r.Transaction != nil {
			return nil, svcerr.Invalid("message", "personal_sign signs message only (not typedData or transaction)")
		}
		return personalSigning(r.Message)
	case client.SignTypedData:
		if r.Message != "" || r.Transaction != nil {
			return nil, svcerr.Invalid("typedData", "eth_signTypedData_v4 signs typedData only (not message or transaction)")
		}
		return typedSigning(c, prices, r.TypedData)
	case client.SignTransaction:
		if r.Message != "" || len(r.TypedData) > 0 {
			return nil, svcerr.Invalid("transaction", "eth_signTransaction signs transaction only (not message or typedData)")
		}
		return s.transactionSigning(ctx, c, prices, w, r.Transaction)
	}
	return nil, svcerr.Invalid("type", "type is %s, %s or %s; %q is none of them", client.SignPersonal, client.SignTypedData,
		client.SignTransaction, r.Type)
}

// personalSigning is an EIP-191 personal message: text, or 0x-prefixed hex for raw bytes (as wallets'
// personal_sign reads it).
func personalSigning(message string) (*signing, error) {
	if message == "" {
		return nil, svcerr.Invalid("message", "personal_sign needs a message (text, or 0x-prefixed hex bytes)")
	}
	msg := []byte(message)
	if strings.HasPrefix(message, "0x") {
		b, err := parseHex("message", message)
		if err != nil {
			return nil, svcerr.Invalid("message", "message starts with 0x but is not hex bytes: write hex, or text without the 0x prefix")
		}
		msg = b
	}
	req, _ := json.Marshal(personalMessage{Message: msg})
	sub := client.SignatureSubject{MessageHex: hexOrEmpty(msg)}
	if utf8.Valid(msg) {
		text := string(msg)
		sub.Message = &text
	}
	return &signing{typ: client.SignPersonal, digest: common.BytesToHash(accounts.TextHash(msg)), request: req, subject: sub}, nil
}

func hexOrEmpty(b []byte) string {
	if len(b) == 0 {
		return "0x"
	}
	return "0x" + common.Bytes2Hex(b)
}

// typedSigning hashes EIP-712 typed data with go-ethereum's apitypes. types.EIP712Domain, when left
// out, follows from the domain's fields (as viem and ethers derive it).
func typedSigning(c *Chain, prices Prices, raw json.RawMessage) (*signing, error) {
	td, err := parseTypedData(raw)
	if err != nil {
		return nil, err
	}
	hash, _, err := apitypes.TypedDataAndHash(*td)
	if err != nil {
		return nil, svcerr.Invalid("typedData", "typedData does not hash as EIP-712: %v", err)
	}
	normal, err := json.Marshal(td)
	if err != nil {
		return nil, fmt.Errorf("encode typed data: %w", err)
	}
	dom := client.TypedDataDomain{Name: td.Domain.Name, Version: td.Domain.Version, VerifyingContract: td.Domain.VerifyingContract, Salt: td.Domain.Salt}
	if td.Domain.ChainId != nil {
		id := (*big.Int)(td.Domain.ChainId).String()
		dom.ChainID = &id
	}
	sg := &signing{typ: client.SignTypedData, digest: common.BytesToHash(hash), request: normal,
		subject: client.SignatureSubject{TypedData: &client.TypedDataSummary{Domain: dom, PrimaryType: td.PrimaryType}}}
	if sg.spend, err = permitSpend(c, prices, td); err != nil {
		return nil, err
	}
	if sg.spend != nil {
		sg.subject.Spend = spendOf(sg.spend, permitKind(td.PrimaryType))
	}
	return sg, nil
}

// parseTypedData reads typed data (an object, or the object as a JSON string), naming the missing part.
func parseTypedData(raw json.RawMessage) (*apitypes.TypedData, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, svcerr.Invalid("typedData", "eth_signTypedData_v4 needs typedData: {types, primaryType, domain, message}")
	}
	if raw[0] == '"' {
		var inner string
		if err := json.Unmarshal(raw, &inner); err != nil {
			return nil, svcerr.Invalid("typedData", "typedData is not JSON: %v", err)
		}
		raw = []byte(inner)
	}
	var parts map[string]json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return nil, svcerr.Invalid("typedData", "typedData is not a JSON object: %v", err)
	}
	for _, f := range []string{"types", "primaryType", "domain", "message"} {
		if v, ok := parts[f]; !ok || string(v) == "null" {
			return nil, svcerr.Invalid("typedData."+f, "typedData has no %s", f)
		}
	}
	td := new(apitypes.TypedData)
	if err := json.Unmarshal(parts["types"], &td.Types); err != nil {
		return nil, svcerr.Invalid("typedData.types", "typedData.types is not {TypeName: [{name, type}]}: %v", err)
	}
	if err := json.Unmarshal(parts["primaryType"], &td.PrimaryType); err != nil {
		return nil, svcerr.Invalid("typedData.primaryType", "typedData.primaryType is not a string")
	}
	if err := json.Unmarshal(parts["domain"], &td.Domain); err != nil {
		return nil, svcerr.Invalid("typedData.domain", "typedData.domain is not {name, version, chainId, verifyingContract, salt}: %v", err)
	}
	if len(td.Domain.Map()) == 0 {
		return nil, svcerr.Invalid("typedData.domain", "typedData.domain is empty: it needs at least one of name, version, chainId, verifyingContract, salt")
	}
	dec := json.NewDecoder(bytes.NewReader(parts["message"]))
	dec.UseNumber()
	var msg map[string]any
	if err := dec.Decode(&msg); err != nil {
		return nil, svcerr.Invalid("typedData.message", "typedData.message is not an object: %v", err)
	}
	td.Message = numbersAsStrings(msg).(map[string]any)
	if _, ok := td.Types[td.PrimaryType]; !ok || td.PrimaryType == "EIP712Domain" {
		return nil, svcerr.Invalid("typedData.primaryType", "typedData.primaryType %q is not among typedData.types", td.PrimaryType)
	}
	if _, ok := td.Types["EIP712Domain"]; !ok {
		td.Types["EIP712Domain"] = domainTypes(td.Domain)
	}
	return td, nil
}

// numbersAsStrings turns JSON numbers into decimal strings, which apitypes reads exactly (a float64
// would lose the digits of a uint256).
func numbersAsStrings(v any) any {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case map[string]any:
		for k, e := range x {
			x[k] = numbersAsStrings(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = numbersAsStrings(e)
		}
		return x
	}
	return v
}

// domainTypes is EIP712Domain for the fields the domain has, in EIP-712's order.
func domainTypes(d apitypes.TypedDataDomain) []apitypes.Type {
	out := []apitypes.Type{}
	if d.Name != "" {
		out = append(out, apitypes.Type{Name: "name", Type: "string"})
	}
	if d.Version != "" {
		out = append(out, apitypes.Type{Name: "version", Type: "string"})
	}
	if d.ChainId != nil {
		out = append(out, apitypes.Type{Name: "chainId", Type: "uint256"})
	}
	if d.VerifyingContract != "" {
		out = append(out, apitypes.Type{Name: "verifyingContract", Type: "address"})
	}
	if d.Salt != "" {
		out = append(out, apitypes.Type{Name: "salt", Type: "bytes32"})
	}
	return out
}

// permitKind is the spend kind of a permit's primary type.
func permitKind(primaryType string) string {
	switch primaryType {
	case "Permit":
		return client.SpendPermit
	case "TransferWithAuthorization", "ReceiveWithAuthorization":
		return client.SpendAuthorization
	}
	return client.SpendPermit2
}

// permitSpend is what a token permit lets its spender move: EIP-2612 Permit {spender, value} of the
// domain's verifying contract, or Permit2's PermitSingle {details: {token, amount}, spender} and
// PermitTransferFrom {permitted: {token, amount}, spender}, or EIP-3009's Transfer/ReceiveWithAuthorization
// {to, value} (the recipient stands where a spender would). Other typed data spends nothing.
func permitSpend(c *Chain, prices Prices, td *apitypes.TypedData) (*send, error) {
	m := td.Message
	var token, spender, amount any
	switch td.PrimaryType {
	case "Permit":
		if _, ok := m["value"]; !ok {
			return nil, nil // not EIP-2612 (DAI's permit has no value; it is judged as plain typed data)
		}
		token, spender, amount = td.Domain.VerifyingContract, m["spender"], m["value"]
	case "PermitSingle":
		d, _ := m["details"].(map[string]any)
		token, spender, amount = d["token"], m["spender"], d["amount"]
	case "PermitTransferFrom":
		p, _ := m["permitted"].(map[string]any)
		token, spender, amount = p["token"], m["spender"], p["amount"]
	case "TransferWithAuthorization", "ReceiveWithAuthorization":
		// EIP-3009 (USDC's gasless transfer, x402's payment): the signature itself moves value to `to`.
		token, spender, amount = td.Domain.VerifyingContract, m["to"], m["value"]
	default:
		return nil, nil
	}
	tok, ok1 := token.(string)
	sp, ok2 := spender.(string)
	amt, ok3 := amount.(string)
	if !ok1 || !ok2 || !ok3 || !common.IsHexAddress(tok) || !common.IsHexAddress(sp) {
		return nil, svcerr.Invalid("typedData.message", "the %s names no token, spender and amount the platform can read", td.PrimaryType)
	}
	var v gethmath.HexOrDecimal256
	if err := v.UnmarshalText([]byte(amt)); err != nil {
		return nil, svcerr.Invalid("typedData.message", "the %s's amount is not a number: %v", td.PrimaryType, err)
	}
	s := &send{to: common.HexToAddress(sp), txTo: common.HexToAddress(tok), atomic: (*big.Int)(&v)}
	tokAddr := common.HexToAddress(tok)
	s.token = &tokAddr
	s.asset = tokAddr.Hex()
	if c != nil && tokAddr == c.USDC {
		s.asset, s.decimals = client.AssetUSDC, usdcDecimals
		s.usdCents = saturatedCents(prices, s)
	}
	return s, nil
}

// saturatedCents is s's USD value, at most MaxInt64 cents (an unlimited allowance is worth everything).
func saturatedCents(prices Prices, s *send) *int64 {
	if v := prices.cents(s); v != nil {
		return v
	}
	if s.atomic.Sign() > 0 {
		v := int64(math.MaxInt64)
		return &v
	}
	return nil
}

// spendOf is a spend as the API shows it.
func spendOf(s *send, kind string) *client.SignatureSpend {
	out := &client.SignatureSpend{Kind: kind, To: s.to.Hex(), Asset: s.asset, Atomic: s.atomic.String(), USDValue: usd(s.usdCents)}
	if s.token != nil {
		t := s.token.Hex()
		out.Token = &t
	}
	if s.asset == client.AssetNative || s.asset == client.AssetUSDC {
		out.Amount = FormatUnits(s.atomic, s.decimals)
	}
	return out
}

// transactionSigning fills in an eth_signTransaction's transaction (nonce, gas, fees, chain id) and
// values it like a send: a USDC transfer(to, amount) is that much USDC to its recipient; anything else
// is its native value, a contract call when it carries data or goes to a contract.
func (s *Store) transactionSigning(ctx context.Context, c *Chain, prices Prices, w *schema.Wallet, t *client.UnsignedTransaction) (*signing, error) {
	if t == nil {
		return nil, svcerr.Invalid("transaction", "eth_signTransaction needs transaction: {to, value?, data?, nonce?, gas?, ...}")
	}
	if c == nil {
		return nil, svcerr.New(svcerr.Unavailable, "this server reads no chain (SVC_CHAIN_RPC_URL)")
	}
	chainID, ok := chainIDOf(w.Chain)
	if !ok {
		return nil, svcerr.Invalid("type", "wallet %s is on %s, not an EVM chain: it signs no transaction", w.ID, w.Chain)
	}
	to, err := parseAddress("transaction.to", t.To)
	if err != nil {
		return nil, err
	}
	st := signedTx{ChainID: chainID, To: to, Value: "0"}
	if t.ChainID != nil && *t.ChainID != st.ChainID {
		return nil, svcerr.Invalid("transaction.chainId", "transaction.chainId %d is not the wallet's chain (%d)", *t.ChainID, st.ChainID)
	}
	value, err := weiField("transaction.value", t.Value)
	if err != nil {
		return nil, err
	}
	st.Value = value.String()
	if t.Data != "" {
		if st.Data, err = parseHex("transaction.data", t.Data); err != nil {
			return nil, err
		}
	}
	snd := txSend(c, to, value, st.Data)
	if err := c.shape(ctx, snd); err != nil {
		return nil, err
	}
	snd.txTo, snd.value, snd.data = to, value, st.Data // shape rebuilt a token transfer's call: keep the caller's
	snd.usdCents = prices.cents(snd)
	if snd.atomic.Sign() == 0 {
		zero := int64(0)
		snd.usdCents = &zero
	}
	if err := s.fillTx(ctx, c, w, t, &st); err != nil {
		return nil, err
	}
	req, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("encode the transaction: %w", err)
	}
	signer := types.LatestSignerForChainID(big.NewInt(chainID))
	sub := client.SignatureSubject{Transaction: &client.SignedTransactionSummary{To: to.Hex(), Value: st.Value, Data: hexOf(st.Data),
		Nonce: st.Nonce, Gas: st.Gas, MaxFeePerGas: st.FeeCap, MaxPriorityFeePerGas: st.TipCap, ChainID: st.ChainID},
		Spend: spendOf(snd, client.SpendTransaction)}
	return &signing{typ: client.SignTransaction, digest: signer.Hash(types.NewTx(st.tx())), request: req, subject: sub, spend: snd}, nil
}

// txSend reads what a transaction moves: a USDC transfer(to, amount), or its native value.
func txSend(c *Chain, to common.Address, value *big.Int, data []byte) *send {
	if to == c.USDC && value.Sign() == 0 && len(data) == 4+64 && bytes.Equal(data[:4], transferSelector) {
		token := c.USDC
		return &send{to: common.BytesToAddress(data[4:36]), asset: client.AssetUSDC, token: &token, decimals: usdcDecimals,
			atomic: new(big.Int).SetBytes(data[36:68])}
	}
	return &send{to: to, txTo: to, asset: client.AssetNative, decimals: 18, atomic: value, data: data}
}

// fillTx sets the nonce (given, or the wallet's next: the larger of its counter and the chain's pending
// nonce, not reserved), the gas (given, or estimated plus 20%) and the fees (given, or the chain's).
func (s *Store) fillTx(ctx context.Context, c *Chain, w *schema.Wallet, t *client.UnsignedTransaction, st *signedTx) error {
	from := Address(w)
	if t.Nonce != nil {
		st.Nonce = *t.Nonce
	} else {
		pending, err := c.RPC.PendingNonceAt(ctx, from)
		if err != nil {
			return svcerr.New(svcerr.Unavailable, "the chain did not answer: %v", err)
		}
		var next sql.NullInt64
		if err := s.db.NewRaw("SELECT next_nonce FROM wallet_nonces WHERE wallet_id = ?", w.ID).Scan(ctx, &next); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("read the wallet's nonce counter: %w", err)
		}
		st.Nonce = max(pending, uint64(max(next.Int64, 0)))
	}
	if t.Gas != nil {
		st.Gas = *t.Gas
	} else {
		gas, err := c.RPC.EstimateGas(ctx, callMsg(from, st))
		if err != nil {
			return svcerr.Invalid("transaction", "the chain cannot estimate this transaction's gas (give transaction.gas): %v", err)
		}
		st.Gas = gas + gas/5
	}
	tip, feeCap := t.MaxPriorityFeePerGas, t.MaxFeePerGas
	if tip == "" || feeCap == "" {
		chainTip, chainCap, err := evm.Fees(ctx, c.RPC)
		if err != nil {
			return svcerr.New(svcerr.Unavailable, "the chain did not answer its fees: %v", err)
		}
		if tip == "" {
			tip = chainTip.String()
		}
		if feeCap == "" {
			feeCap = chainCap.String()
		}
	}
	tipV, err := weiField("transaction.maxPriorityFeePerGas", tip)
	if err != nil {
		return err
	}
	capV, err := weiField("transaction.maxFeePerGas", feeCap)
	if err != nil {
		return err
	}
	if capV.Cmp(tipV) < 0 {
		return svcerr.Invalid("transaction.maxFeePerGas", "transaction.maxFeePerGas is below transaction.maxPriorityFeePerGas")
	}
	st.TipCap, st.FeeCap = tipV.String(), capV.String()
	return nil
}

// weiField reads a wei amount: decimal or 0x hex, 0 when empty.
func weiField(field, s string) (*big.Int, error) {
	if s == "" {
		return new(big.Int), nil
	}
	var v gethmath.HexOrDecimal256
	if err := v.UnmarshalText([]byte(s)); err != nil || (*big.Int)(&v).Sign() < 0 {
		return nil, svcerr.Invalid(field, "%s is wei, a decimal or 0x hex integer", field)
	}
	return (*big.Int)(&v), nil
}

// NewSignature is a signature as a request asks for it.
type NewSignature struct {
	Scope    tenant.Scope
	KeyID    string
	WalletID string
	ID       string
	Req      client.SignatureRequest
}

// QuoteSignature shows what r would sign with the scope's wallet walletID and the policy's verdict,
// signing and storing nothing.
func (s *Store) QuoteSignature(ctx context.Context, c *Chain, prices Prices, scope tenant.Scope, walletID string, r client.SignatureRequest, now time.Time) (client.SignatureQuote, error) {
	w, err := s.Get(ctx, scope, walletID)
	if err != nil {
		return client.SignatureQuote{}, err
	}
	sg, err := s.resolveSigning(ctx, c, prices, w, r)
	if err != nil {
		return client.SignatureQuote{}, err
	}
	v, spent, err := judgeSigning(ctx, s.db, w, sg, now)
	if err != nil {
		return client.SignatureQuote{}, err
	}
	return client.SignatureQuote{WalletID: w.ID, Address: Address(w).Hex(), Type: sg.typ, Digest: sg.digest.Hex(), Subject: sg.subject,
		SpentLast24hUSD: float64(spent) / 100, Verdict: client.PolicyVerdict(v)}, nil
}

// judgeSigning is the policy's verdict on sg: a paused wallet signs nothing; a signature that spends
// (a permit, a transaction) is judged like a send of its value to its spender or recipient, with the
// rolling 24-hour spend; any other signature is allowed.
func judgeSigning(ctx context.Context, db bun.IDB, w *schema.Wallet, sg *signing, now time.Time) (Verdict, int64, error) {
	p, err := PolicyOf(w)
	if err != nil {
		return Verdict{}, 0, err
	}
	if sg.spend == nil {
		if p.Paused {
			return Verdict{Decision: Refused, Rule: RulePaused, Message: "the wallet is paused: it sends and signs nothing"}, 0, nil
		}
		return Verdict{Decision: Allowed}, 0, nil
	}
	spent, err := Spent(ctx, db, w.ID, now)
	if err != nil {
		return Verdict{}, 0, err
	}
	return p.Evaluate(Outbound{From: Address(w), To: sg.spend.to, USDCents: sg.spend.usdCents, ContractCall: sg.spend.contractCall,
		SpentCents: spent}, now), spent, nil
}

// CreateSignature judges a signature under the wallet's row lock, reserves what it spends against the
// daily limit and records it: queued, for the workflow walletsig/<id> to sign, or pending_approval with
// a pending approval (kind wallet_signature) when the policy asks for one (the reservation is taken
// either way, like a send's). A refusal is a 403 naming the rule and stores nothing. A replay (the same
// id) answers the signature recorded.
func (s *Store) CreateSignature(ctx context.Context, c *Chain, prices Prices, n NewSignature, now time.Time) (*schema.WalletSignature, error) {
	w, err := s.Get(ctx, n.Scope, n.WalletID)
	if err != nil {
		return nil, err
	}
	if existing, err := s.signature(ctx, w.ID, n.ID); err == nil {
		return existing, nil
	}
	sg, err := s.resolveSigning(ctx, c, prices, w, n.Req)
	if err != nil {
		return nil, err
	}
	var row *schema.WalletSignature
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		locked, err := s.get(ctx, tx, n.Scope, w.ID, "UPDATE")
		if err != nil {
			return err
		}
		v, spent, err := judgeSigning(ctx, tx, locked, sg, now)
		if err != nil {
			return err
		}
		if err := verdictError(v, spent, sg); err != nil {
			return err
		}
		if row, err = newSignatureRow(n, locked, sg, v); err != nil {
			return err
		}
		var a *schema.Approval
		if v.Decision == NeedsApproval {
			a = signatureApprovalOf(n, row, w, v, now)
			row.Status, row.ApprovalID = schema.WalletSigPendingApproval, &a.ID
		}
		if _, err := tx.NewInsert().Model(row).Returning("created_at, updated_at").Exec(ctx); err != nil {
			return fmt.Errorf("record signature: %w", err)
		}
		if sg.spend != nil {
			if _, err := tx.NewRaw("INSERT INTO wallet_spends (wallet_id, transaction_id, cents) VALUES (?, ?, ?)",
				w.ID, row.ID, deref64(sg.spend.usdCents)).Exec(ctx); err != nil {
				return fmt.Errorf("reserve the spend of %s: %w", row.ID, err)
			}
		}
		if a == nil {
			return nil
		}
		return approval.Insert(ctx, tx, a)
	})
	return row, err
}

// signatureApprovalOf is the pending approval a signature that needs one waits for: requested by the
// signature's key, expiring after approval.DefaultTTL, its reason the rule that asked for it, its input
// what is signed (the signature's summary) and what it lets move.
func signatureApprovalOf(n NewSignature, row *schema.WalletSignature, w *schema.Wallet, v Verdict, now time.Time) *schema.Approval {
	reason := v.Rule + ": " + v.Message
	input, _ := json.Marshal(map[string]any{"walletId": row.WalletID, "signatureId": row.ID, "address": Address(w).Hex(), "type": row.Type,
		"digest": row.Digest, "subject": row.Summary, "usdValue": usd(row.USDCents), "verdict": v})
	id := ids.New(ids.Approval)
	return &schema.Approval{ID: id, AccountID: row.AccountID, ProjectID: row.ProjectID, KeyID: n.KeyID, Kind: approval.KindWalletSignature,
		ServiceID: client.ServiceManagedWallets, OperationID: client.OpWalletsSignaturesCreate, Input: input, Reason: &reason,
		Status: client.ApprovalPending, WorkflowID: workflows.ApprovalWorkflowID(id), ExpiresAt: now.Add(approval.DefaultTTL).UTC(),
		SignatureID: &row.ID}
}

// verdictError is the 403 of a verdict that refuses the signature, naming the rule in details.rule and
// the decision in details.decision; a signature that needs an approval is not an error.
func verdictError(v Verdict, spent int64, sg *signing) error {
	if v.Decision != Refused {
		return nil
	}
	e := svcerr.New(svcerr.Forbidden, "the wallet's policy refuses this signature (%s): %s", v.Rule, v.Message).
		WithDetails("rule", v.Rule).WithDetails("decision", v.Decision)
	if sg.spend != nil {
		e = e.WithDetails("spentLast24hUsd", float64(spent)/100).WithDetails("usdValue", usd(sg.spend.usdCents))
	}
	return e
}

func newSignatureRow(n NewSignature, w *schema.Wallet, sg *signing, v Verdict) (*schema.WalletSignature, error) {
	verdict, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode the verdict: %w", err)
	}
	summary, err := json.Marshal(sg.subject)
	if err != nil {
		return nil, fmt.Errorf("encode what is signed: %w", err)
	}
	keyID := n.KeyID
	row := &schema.WalletSignature{ID: n.ID, WalletID: w.ID, AccountID: w.AccountID, ProjectID: w.ProjectID, KeyID: &keyID, Type: sg.typ,
		Request: sg.request, Summary: summary, Digest: sg.digest.Hex(), Verdict: verdict, Status: schema.WalletSigQueued}
	if sg.spend != nil {
		row.USDCents = sg.spend.usdCents
	}
	return row, nil
}

// signature reads signature id of wallet walletID.
func (s *Store) signature(ctx context.Context, walletID, id string) (*schema.WalletSignature, error) {
	row := new(schema.WalletSignature)
	err := s.db.NewSelect().Model(row).Where("id = ? AND wallet_id = ?", id, walletID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, svcerr.NotFoundf("signature %s not found", id)
	}
	if err != nil {
		return nil, fmt.Errorf("read signature %s: %w", id, err)
	}
	return row, nil
}

// Signature reads signature id of the scope's wallet walletID.
func (s *Store) Signature(ctx context.Context, scope tenant.Scope, walletID, id string) (*schema.WalletSignature, error) {
	if _, err := s.Get(ctx, scope, walletID); err != nil {
		return nil, err
	}
	return s.signature(ctx, walletID, id)
}

// SignatureToWire is the signature as the API shows it (w is its wallet).
func SignatureToWire(row *schema.WalletSignature, w *schema.Wallet) client.WalletSignature {
	out := client.WalletSignature{ID: row.ID, WalletID: row.WalletID, Address: Address(w).Hex(), Type: row.Type, Digest: row.Digest,
		Signature: row.Signature, Status: row.Status, USDValue: usd(row.USDCents), WorkflowID: workflows.WalletSigWorkflowID(row.ID),
		CreatedAt: row.CreatedAt.UTC(), SignedAt: row.SignedAt, ApprovalID: row.ApprovalID}
	_ = json.Unmarshal(row.Summary, &out.Subject)
	_ = json.Unmarshal(row.Verdict, &out.Verdict)
	if len(row.SignedTx) > 0 {
		raw := hexOf(row.SignedTx)
		hash := crypto.Keccak256Hash(row.SignedTx).Hex()
		out.SignedTransaction, out.TransactionHash = &raw, &hash
	}
	if row.ErrorCode != nil {
		out.Error = &client.RunError{Code: *row.ErrorCode, Message: derefStr(row.ErrorMessage)}
	}
	return out
}

// SignSignature signs signature id once and answers its final status: a signature pending_approval is
// signed only once its approval's row says approved (one that ended otherwise is recorded rejected); the
// pause is checked again (a wallet paused since the request, or since the approval, signs nothing:
// failed, its reserved spend released), then the key is opened, the digest signed (RFC 6979, so a retry
// signs the same bytes) and the signature stored. The key never leaves this function.
func (s *Sender) SignSignature(ctx context.Context, id string) (workflows.WalletSigDone, error) {
	row := new(schema.WalletSignature)
	if err := s.DB.NewSelect().Model(row).Where("id = ?", id).Scan(ctx); err != nil {
		return workflows.WalletSigDone{}, fmt.Errorf("read wallet signature %s: %w", id, err)
	}
	if row.Status != schema.WalletSigQueued && row.Status != schema.WalletSigPendingApproval {
		return workflows.WalletSigDone{Status: row.Status, ErrorCode: derefStr(row.ErrorCode)}, nil
	}
	if done, final, err := s.approvedToSign(ctx, row); err != nil || final {
		return done, err
	}
	w := new(schema.Wallet)
	if err := s.DB.NewSelect().Model(w).Where("id = ?", row.WalletID).Scan(ctx); err != nil {
		return workflows.WalletSigDone{}, fmt.Errorf("read wallet %s: %w", row.WalletID, err)
	}
	p, err := PolicyOf(w)
	if err != nil {
		return workflows.WalletSigDone{}, err
	}
	if p.Paused {
		return s.endSignature(ctx, row, schema.WalletSigFailed, RulePaused, "the wallet was paused before the signature was made")
	}
	sig, signedTx, err := s.signRow(row, w)
	if err != nil {
		return workflows.WalletSigDone{}, err
	}
	_, err = s.DB.NewUpdate().Model(row).Set("status = ?, signature = ?, signed_tx = ?, signed_at = now(), updated_at = now()",
		schema.WalletSigSigned, sig, signedTx).Where("id = ? AND status IN (?)", id, bun.List(unsignedStatuses)).Exec(ctx)
	if err != nil {
		return workflows.WalletSigDone{}, fmt.Errorf("store signature %s: %w", id, err)
	}
	return workflows.WalletSigDone{Status: schema.WalletSigSigned}, nil
}

// unsignedStatuses are the statuses of a signature not made yet.
var unsignedStatuses = []string{schema.WalletSigQueued, schema.WalletSigPendingApproval}

// approvedToSign checks the approval a pending_approval signature waits for: approved lets it be signed;
// rejected, expired or cancelled records it rejected (final); still pending is an error, retried until
// the decision commits.
func (s *Sender) approvedToSign(ctx context.Context, row *schema.WalletSignature) (workflows.WalletSigDone, bool, error) {
	if row.Status != schema.WalletSigPendingApproval || row.ApprovalID == nil {
		return workflows.WalletSigDone{}, false, nil
	}
	a, err := approval.NewStore(s.DB).ByID(ctx, *row.ApprovalID)
	if err != nil {
		return workflows.WalletSigDone{}, false, err
	}
	switch a.Status {
	case client.ApprovalApproved:
		return workflows.WalletSigDone{}, false, nil
	case client.ApprovalPending:
		return workflows.WalletSigDone{}, false, fmt.Errorf("signature %s: its approval %s is still pending", row.ID, a.ID)
	}
	code, msg := workflows.CodeWalletTxCancelled, "the approval "+a.ID+" was cancelled"
	switch a.Status {
	case client.ApprovalRejected:
		code, msg = workflows.CodeWalletTxRejected, "the approval "+a.ID+" was rejected"
	case client.ApprovalExpired:
		code, msg = workflows.CodeWalletTxExpired, "the approval "+a.ID+" expired before anyone decided"
	}
	done, err := s.endSignature(ctx, row, schema.WalletSigRejected, code, msg)
	return done, true, err
}

// RejectSignature records signature end.SignatureID rejected (its approval was not granted), releasing
// its reserved spend, and answers its final status; a signature already final answers as it is.
func (s *Sender) RejectSignature(ctx context.Context, end workflows.WalletSigEnd) (workflows.WalletSigDone, error) {
	row := new(schema.WalletSignature)
	if err := s.DB.NewSelect().Model(row).Where("id = ?", end.SignatureID).Scan(ctx); err != nil {
		return workflows.WalletSigDone{}, fmt.Errorf("read wallet signature %s: %w", end.SignatureID, err)
	}
	return s.endSignature(ctx, row, schema.WalletSigRejected, end.ErrorCode, end.ErrorMessage)
}

// signRow opens the wallet's key and signs the row's digest: 0x r||s||v (v 27/28), and for a
// transaction its signed bytes.
func (s *Sender) signRow(row *schema.WalletSignature, w *schema.Wallet) (string, []byte, error) {
	key, err := OpenKey(s.Box, w.ID, Address(w), Sealed{Key: w.SealedKey, DataKey: w.SealedDataKey})
	if err != nil {
		return "", nil, err
	}
	digest := common.HexToHash(row.Digest)
	var signedTxBytes []byte
	if row.Type == client.SignTransaction {
		var st signedTx
		if err := json.Unmarshal(row.Request, &st); err != nil {
			return "", nil, fmt.Errorf("decode the transaction of %s: %w", row.ID, err)
		}
		signer := types.LatestSignerForChainID(big.NewInt(st.ChainID))
		signed, err := types.SignNewTx(key, signer, st.tx())
		if err != nil {
			return "", nil, fmt.Errorf("sign the transaction of %s: %w", row.ID, err)
		}
		if signer.Hash(signed) != digest {
			return "", nil, fmt.Errorf("the transaction of %s no longer hashes to its digest", row.ID)
		}
		if signedTxBytes, err = signed.MarshalBinary(); err != nil {
			return "", nil, fmt.Errorf("encode the signed transaction of %s: %w", row.ID, err)
		}
	}
	sig, err := crypto.Sign(digest.Bytes(), key)
	if err != nil {
		return "", nil, fmt.Errorf("sign %s: %w", row.ID, err)
	}
	sig[crypto.RecoveryIDOffset] += 27
	return hexOf(sig), signedTxBytes, nil
}

// endSignature records that signature row will not be made (status failed or rejected), releasing its
// reserved spend, and answers its final status (the one recorded first, should another end have won).
func (s *Sender) endSignature(ctx context.Context, row *schema.WalletSignature, status, code, msg string) (workflows.WalletSigDone, error) {
	ended := true
	err := s.DB.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model(row).Set("status = ?, error_code = ?, error_message = ?, updated_at = now()", status, code, msg).
			Where("id = ? AND status IN (?)", row.ID, bun.List(unsignedStatuses)).Exec(ctx)
		if err != nil {
			return fmt.Errorf("record the end of %s: %w", row.ID, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			ended = false
			return nil
		}
		_, err = tx.NewRaw("UPDATE wallet_spends SET released_at = now() WHERE wallet_id = ? AND transaction_id = ?", row.WalletID, row.ID).Exec(ctx)
		if err != nil {
			return fmt.Errorf("release the spend of %s: %w", row.ID, err)
		}
		return nil
	})
	if err != nil {
		return workflows.WalletSigDone{}, err
	}
	if !ended {
		final := new(schema.WalletSignature)
		if err := s.DB.NewSelect().Model(final).Where("id = ?", row.ID).Scan(ctx); err != nil {
			return workflows.WalletSigDone{}, fmt.Errorf("read wallet signature %s: %w", row.ID, err)
		}
		return workflows.WalletSigDone{Status: final.Status, ErrorCode: derefStr(final.ErrorCode)}, nil
	}
	return workflows.WalletSigDone{Status: status, ErrorCode: code}, nil
}

// SignatureWait is how long a request waits for its signature's workflow before answering it queued.
const SignatureWait = 30 * time.Second

// StartSignature starts signature row's workflow walletsig/<id> (joining one that runs) and waits, at
// most SignatureWait, for it to end; the caller then reads the row. A signature pending_approval has
// its approval's workflow started first, and is answered at once (it waits for a decision).
func (s *Starts) StartSignature(ctx context.Context, row *schema.WalletSignature) error {
	run, err := s.startSignature(ctx, row)
	if err != nil || run == nil || row.Status != schema.WalletSigQueued {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, SignatureWait)
	defer cancel()
	_ = run.Get(wctx, nil) // a timeout answers the signature queued; its outcome is read from the row
	return nil
}

// startSignature starts the workflow of a queued or pending_approval signature (and the workflow of its
// approval); it answers the run to wait for, nil when there is none (the signature is final, or its
// workflow ended before).
func (s *Starts) startSignature(ctx context.Context, row *schema.WalletSignature) (sdkclient.WorkflowRun, error) {
	if row.Status != schema.WalletSigQueued && row.Status != schema.WalletSigPendingApproval {
		return nil, nil
	}
	params := workflows.WalletSigParams{SignatureID: row.ID}
	if row.Status == schema.WalletSigPendingApproval && row.ApprovalID != nil {
		a, err := approval.NewStore(s.Store.db).ByID(ctx, *row.ApprovalID)
		if err != nil {
			return nil, err
		}
		if err := approval.Start(ctx, s.Engine, a); err != nil {
			return nil, err
		}
		params.ApprovalID, params.ApprovalExpiresAt = a.ID, a.ExpiresAt
	}
	run, err := s.Engine.ExecuteWorkflow(ctx, sdkclient.StartWorkflowOptions{ID: workflows.WalletSigWorkflowID(row.ID), TaskQueue: workflows.TaskQueue,
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		TypedSearchAttributes:    workflows.ResourceAttributes(row.AccountID, row.ProjectID, client.ServiceManagedWallets, client.OpWalletsSignaturesCreate),
		StaticSummary:            row.Type + " " + row.ID + " of " + row.WalletID}, workflows.WalletSigWorkflowName, params)
	var started *serviceerror.WorkflowExecutionAlreadyStarted
	if errors.As(err, &started) {
		return nil, nil // it ended before: the row is final
	}
	if err != nil {
		return nil, svcerr.New(svcerr.Unavailable, "the signature is recorded but its workflow did not start; retry with the same Idempotency-Key")
	}
	return run, nil
}

// SweepSignatures starts the workflows of signatures still queued after settle (their request died
// between recording them and starting their workflow), and of signatures pending an approval recorded
// in the ten settle periods before that, at most limit of them; it answers how many it handed on. A
// signature whose workflow runs is left as it is (the start joins it), and the sweep does not wait for
// any workflow to end.
func (s *Starts) SweepSignatures(ctx context.Context, settle time.Duration, limit int) (int, error) {
	var stale []schema.WalletSignature
	before := time.Now().Add(-settle)
	err := s.Store.db.NewSelect().Model(&stale).Where("created_at < ?", before).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("status = ?", schema.WalletSigQueued).
				WhereOr("status = ? AND created_at > ?", schema.WalletSigPendingApproval, before.Add(-10*settle))
		}).OrderExpr("created_at").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return 0, fmt.Errorf("list unsigned signatures: %w", err)
	}
	n := 0
	for i := range stale {
		if _, err := s.startSignature(ctx, &stale[i]); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Reload reads signature row again (after its workflow ran).
func (s *Store) Reload(ctx context.Context, row *schema.WalletSignature) (*schema.WalletSignature, error) {
	return s.signature(ctx, row.WalletID, row.ID)
}

func callMsg(from common.Address, st *signedTx) ethereum.CallMsg {
	to := st.To
	return ethereum.CallMsg{From: from, To: &to, Value: mustBig(st.Value), Data: st.Data}
}

// chainIDOf is the numeric id of a CAIP-2 eip155 chain ("eip155:1337" → 1337).
func chainIDOf(caip2 string) (int64, bool) {
	n, err := strconv.ParseInt(strings.TrimPrefix(caip2, "eip155:"), 10, 64)
	return n, err == nil && strings.HasPrefix(caip2, "eip155:")
}
