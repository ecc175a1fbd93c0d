package apprun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// Chain reads (svc.chain.*, permission read:chain) on the platform chain. Every read is one JSON-RPC
// batch (multicall's calls included: no Multicall3 contract is needed); like every other call, a read's
// answer is journalled, so a retried run sees what its first attempt read.

// ChainRPC is the platform chain's JSON-RPC client (go-ethereum's rpc.Client), as scripts read it.
type ChainRPC interface {
	BatchCallContext(ctx context.Context, b []rpc.BatchElem) error
}

// Bounds of chain reads.
const (
	// MaxLogBlocks is the widest block range one getLogs reads.
	MaxLogBlocks = 10_000
	// MaxLogs is the most logs one getLogs answers (more is an error asking for a narrower range).
	MaxLogs = 1_000
	// MaxMulticallCalls is the most calls one multicall makes.
	MaxMulticallCalls = 100
)

// chainParams strictly decodes a chain method's one argument (an object), naming params.<field>.
func chainParams(args []json.RawMessage, out any) error {
	if len(args) == 0 || len(bytes.TrimSpace(args[0])) == 0 || string(args[0]) == "null" {
		return errors.New("params (argument 1) must be an object")
	}
	dec := json.NewDecoder(bytes.NewReader(args[0]))
	dec.DisallowUnknownFields()
	err := dec.Decode(out)
	if err == nil {
		return nil
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return fmt.Errorf("params.%s has the wrong type (%s)", typeErr.Field, typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("params.%s is not a parameter of this method", strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`))
	}
	return fmt.Errorf("params must be an object: %w", err)
}

// rpcOf is the chain client, or not available on a worker without a chain.
func (h *Host) rpcOf() (ChainRPC, error) {
	if h.deps.Chain == nil {
		return nil, fmt.Errorf("chain reads are %w on this worker (no chain RPC configured)", ErrNotAvailable)
	}
	return h.deps.Chain, nil
}

// addressParam reads a 0x address param.
func addressParam(field, s string) (common.Address, error) {
	if !common.IsHexAddress(s) {
		return common.Address{}, fmt.Errorf("%s must be a 0x address", field)
	}
	return common.HexToAddress(s), nil
}

// blockTag reads a block param: latest (absent), pending, earliest, safe, finalized, or a block number
// (a JSON number or a decimal or 0x string), as the RPC takes it.
func blockTag(field string, raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "latest", nil
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return "", fmt.Errorf("%s must be a block number or latest, pending, earliest, safe or finalized", field)
		}
		s = n.String()
	}
	switch s {
	case "latest", "pending", "earliest", "safe", "finalized":
		return s, nil
	}
	n, ok := new(big.Int).SetString(s, 0)
	if !ok || n.Sign() < 0 || !n.IsUint64() {
		return "", fmt.Errorf("%s must be a block number or latest, pending, earliest, safe or finalized, not %q", field, s)
	}
	return hexutil.EncodeBig(n), nil
}

// ethCall is one eth_call batch element.
func ethCall(to common.Address, data []byte, tag string, out *hexutil.Bytes) rpc.BatchElem {
	return rpc.BatchElem{Method: "eth_call", Args: []any{map[string]any{"to": to, "data": hexutil.Bytes(data)}, tag}, Result: out}
}

// batch sends the elements as one JSON-RPC batch; a transport error fails them all.
func batch(ctx context.Context, c ChainRPC, elems []rpc.BatchElem) error {
	if err := c.BatchCallContext(ctx, elems); err != nil {
		return fmt.Errorf("read the chain: %w", err)
	}
	return nil
}

// callError explains a failed eth_call, with the revert reason when the contract gave one.
func callError(err error) error {
	var de rpc.DataError
	if errors.As(err, &de) {
		if s, ok := de.ErrorData().(string); ok {
			if reason, uerr := abi.UnpackRevert(common.FromHex(s)); uerr == nil {
				return fmt.Errorf("reverted: %s", reason)
			}
		}
	}
	return err
}

// erc20 is the ABI of the two ERC-20 reads getBalance makes.
var erc20 = mustHumanABI("function balanceOf(address owner) view returns (uint256)", "function decimals() view returns (uint8)")

func mustHumanABI(sigs ...string) abi.ABI {
	a, err := humanABI("abi", sigs)
	if err != nil {
		panic(err)
	}
	return a
}

type balanceParams struct {
	Address  string          `json:"address"`
	Token    string          `json:"token"`
	BlockTag json.RawMessage `json:"blockTag"`
}

// chainGetBalance answers an address's native balance, or its balance of an ERC-20 token, in atomic
// units (a decimal string) with the decimals and the formatted amount.
func (h *Host) chainGetBalance(ctx context.Context, args []json.RawMessage) (json.RawMessage, error) {
	var p balanceParams
	if err := chainParams(args, &p); err != nil {
		return nil, err
	}
	c, err := h.rpcOf()
	if err != nil {
		return nil, err
	}
	owner, err := addressParam("params.address", p.Address)
	if err != nil {
		return nil, err
	}
	tag, err := blockTag("params.blockTag", p.BlockTag)
	if err != nil {
		return nil, err
	}
	if p.Token == "" {
		var bal hexutil.Big
		elems := []rpc.BatchElem{{Method: "eth_getBalance", Args: []any{owner, tag}, Result: &bal}}
		if err := batchAll(ctx, c, elems); err != nil {
			return nil, err
		}
		return balanceAnswer(owner, nil, (*big.Int)(&bal), 18)
	}
	token, err := addressParam("params.token", p.Token)
	if err != nil {
		return nil, err
	}
	return h.tokenBalance(ctx, c, owner, token, tag)
}

// tokenBalance reads balanceOf and decimals of token in one batch.
func (h *Host) tokenBalance(ctx context.Context, c ChainRPC, owner, token common.Address, tag string) (json.RawMessage, error) {
	balData, _ := erc20.Pack("balanceOf", owner)
	decData, _ := erc20.Pack("decimals")
	var balOut, decOut hexutil.Bytes
	elems := []rpc.BatchElem{ethCall(token, balData, tag, &balOut), ethCall(token, decData, tag, &decOut)}
	if err := batchAll(ctx, c, elems); err != nil {
		return nil, fmt.Errorf("params.token %s: %w", token.Hex(), err)
	}
	bal, err := erc20.Unpack("balanceOf", balOut)
	if err != nil {
		return nil, fmt.Errorf("params.token %s does not answer balanceOf like an ERC-20: %w", token.Hex(), err)
	}
	dec, err := erc20.Unpack("decimals", decOut)
	if err != nil {
		return nil, fmt.Errorf("params.token %s does not answer decimals like an ERC-20: %w", token.Hex(), err)
	}
	return balanceAnswer(owner, &token, bal[0].(*big.Int), int(dec[0].(uint8)))
}

// batchAll sends the batch and fails on the first element's error.
func batchAll(ctx context.Context, c ChainRPC, elems []rpc.BatchElem) error {
	if err := batch(ctx, c, elems); err != nil {
		return err
	}
	for _, e := range elems {
		if e.Error != nil {
			return callError(e.Error)
		}
	}
	return nil
}

func balanceAnswer(owner common.Address, token *common.Address, bal *big.Int, decimals int) (json.RawMessage, error) {
	out := map[string]any{"address": owner.Hex(), "token": nil, "balance": bal.String(), "decimals": decimals,
		"formatted": formatUnits(bal, decimals)}
	if token != nil {
		out["token"] = token.Hex()
	}
	return json.Marshal(out)
}

// formatUnits writes an atomic amount in whole units, without trailing zeros.
func formatUnits(v *big.Int, decimals int) string {
	s := new(big.Int).Abs(v).String()
	if len(s) <= decimals {
		s = strings.Repeat("0", decimals-len(s)+1) + s
	}
	whole, frac := s[:len(s)-decimals], strings.TrimRight(s[len(s)-decimals:], "0")
	if v.Sign() < 0 {
		whole = "-" + whole
	}
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

// contractCall is readContract's params and one call of multicall.
type contractCall struct {
	Address      string            `json:"address"`
	ABI          json.RawMessage   `json:"abi"`
	FunctionName string            `json:"functionName"`
	Args         []json.RawMessage `json:"args"`
}

// encoded is a contract call ready to send: its target, calldata and the function to decode it with.
type encoded struct {
	to   common.Address
	data []byte
	fn   abi.Method
}

// encode checks and encodes a call; field prefixes the params it names ("params" or "params.calls[i]").
func (cc contractCall) encode(field string, needAddress bool) (encoded, error) {
	var e encoded
	if needAddress {
		to, err := addressParam(field+".address", cc.Address)
		if err != nil {
			return e, err
		}
		e.to = to
	}
	parsed, err := parseABI(field+".abi", cc.ABI)
	if err != nil {
		return e, err
	}
	if e.fn, err = abiMethod(parsed, field+".functionName", cc.FunctionName); err != nil {
		return e, err
	}
	values, err := goArgs(field+".args", e.fn.Inputs, cc.Args)
	if err != nil {
		return e, err
	}
	packed, err := e.fn.Inputs.Pack(values...)
	if err != nil {
		return e, fmt.Errorf("%s cannot be encoded for %s: %w", field+".args", e.fn.Sig, err)
	}
	e.data = append(append([]byte{}, e.fn.ID...), packed...)
	return e, nil
}

// decode turns a call's return data into JSON.
func (e encoded) decode(out []byte) (any, error) {
	values, err := e.fn.Outputs.Unpack(out)
	if err != nil {
		return nil, fmt.Errorf("decode the result of %s: %w", e.fn.Sig, err)
	}
	return jsonOutputs(values), nil
}

type readParams struct {
	contractCall
	BlockTag json.RawMessage `json:"blockTag"`
}

// chainReadContract calls a view function and answers its decoded result.
func (h *Host) chainReadContract(ctx context.Context, args []json.RawMessage) (json.RawMessage, error) {
	var p readParams
	if err := chainParams(args, &p); err != nil {
		return nil, err
	}
	c, err := h.rpcOf()
	if err != nil {
		return nil, err
	}
	e, err := p.encode("params", true)
	if err != nil {
		return nil, err
	}
	tag, err := blockTag("params.blockTag", p.BlockTag)
	if err != nil {
		return nil, err
	}
	var out hexutil.Bytes
	if err := batchAll(ctx, c, []rpc.BatchElem{ethCall(e.to, e.data, tag, &out)}); err != nil {
		return nil, fmt.Errorf("%s on %s: %w", e.fn.Sig, e.to.Hex(), err)
	}
	v, err := e.decode(out)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

type multicallParams struct {
	Calls        []contractCall  `json:"calls"`
	AllowFailure *bool           `json:"allowFailure"`
	BlockTag     json.RawMessage `json:"blockTag"`
}

// callResult is one call's outcome in multicall's answer.
type callResult struct {
	Status string `json:"status"`
	Result any    `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

// chainMulticall makes several view calls in one JSON-RPC batch and answers each one's outcome; with
// allowFailure false (it defaults to true) the first failure fails the whole call, naming it.
func (h *Host) chainMulticall(ctx context.Context, args []json.RawMessage) (json.RawMessage, error) {
	var p multicallParams
	if err := chainParams(args, &p); err != nil {
		return nil, err
	}
	c, err := h.rpcOf()
	if err != nil {
		return nil, err
	}
	if len(p.Calls) == 0 || len(p.Calls) > MaxMulticallCalls {
		return nil, fmt.Errorf("params.calls must have 1 to %d calls, not %d", MaxMulticallCalls, len(p.Calls))
	}
	tag, err := blockTag("params.blockTag", p.BlockTag)
	if err != nil {
		return nil, err
	}
	allow := p.AllowFailure == nil || *p.AllowFailure
	results, err := h.multicall(ctx, c, p.Calls, tag, allow)
	if err != nil {
		return nil, err
	}
	return json.Marshal(results)
}

func (h *Host) multicall(ctx context.Context, c ChainRPC, calls []contractCall, tag string, allow bool) ([]callResult, error) {
	results := make([]callResult, len(calls))
	encs := make([]encoded, len(calls))
	outs := make([]hexutil.Bytes, len(calls))
	var elems []rpc.BatchElem
	var at []int
	for i, cc := range calls {
		field := fmt.Sprintf("params.calls[%d]", i)
		e, err := cc.encode(field, true)
		if err != nil {
			if !allow {
				return nil, err
			}
			results[i] = callResult{Status: "failure", Error: err.Error()}
			continue
		}
		encs[i] = e
		elems = append(elems, ethCall(e.to, e.data, tag, &outs[i]))
		at = append(at, i)
	}
	if len(elems) > 0 {
		if err := batch(ctx, c, elems); err != nil {
			return nil, err
		}
	}
	for j, i := range at {
		var res any
		err := elems[j].Error
		if err == nil {
			res, err = encs[i].decode(outs[i])
		} else {
			err = callError(err)
		}
		if err != nil {
			if !allow {
				return nil, fmt.Errorf("params.calls[%d] (%s on %s) failed: %w", i, encs[i].fn.Sig, encs[i].to.Hex(), err)
			}
			results[i] = callResult{Status: "failure", Error: err.Error()}
			continue
		}
		results[i] = callResult{Status: "success", Result: res}
	}
	return results, nil
}

// chainEncodeFunctionData answers a function call's calldata (0x-hex); it reads nothing.
func (h *Host) chainEncodeFunctionData(_ context.Context, args []json.RawMessage) (json.RawMessage, error) {
	var p struct {
		ABI          json.RawMessage   `json:"abi"`
		FunctionName string            `json:"functionName"`
		Args         []json.RawMessage `json:"args"`
	}
	if err := chainParams(args, &p); err != nil {
		return nil, err
	}
	e, err := contractCall{ABI: p.ABI, FunctionName: p.FunctionName, Args: p.Args}.encode("params", false)
	if err != nil {
		return nil, err
	}
	return json.Marshal(hexutil.Encode(e.data))
}
