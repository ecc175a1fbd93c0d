package apprun

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// logsParams are getLogs' params: the event (an ABI with it, eventName when it has several), the
// emitting contract, a filter on indexed inputs by name (args) or raw topics after the event's own,
// and the block range (numbers, or latest).
type logsParams struct {
	Address   string            `json:"address"`
	Event     json.RawMessage   `json:"event"`
	EventName string            `json:"eventName"`
	Args      map[string]any    `json:"args"`
	Topics    []json.RawMessage `json:"topics"`
	FromBlock json.RawMessage   `json:"fromBlock"`
	ToBlock   json.RawMessage   `json:"toBlock"`
}

// decodedLog is one log in getLogs' answer.
type decodedLog struct {
	Address         string         `json:"address"`
	BlockNumber     uint64         `json:"blockNumber"`
	BlockHash       string         `json:"blockHash"`
	TransactionHash string         `json:"transactionHash"`
	LogIndex        uint           `json:"logIndex"`
	EventName       string         `json:"eventName"`
	Args            map[string]any `json:"args"`
}

// chainGetLogs answers a contract's logs of one event in a block range of at most MaxLogBlocks blocks,
// decoded; more than MaxLogs logs is an error asking for a narrower range.
func (h *Host) chainGetLogs(ctx context.Context, args []json.RawMessage) (json.RawMessage, error) {
	var p logsParams
	if err := chainParams(args, &p); err != nil {
		return nil, err
	}
	c, err := h.rpcOf()
	if err != nil {
		return nil, err
	}
	addr, err := addressParam("params.address", p.Address)
	if err != nil {
		return nil, err
	}
	ev, err := logEvent(p)
	if err != nil {
		return nil, err
	}
	topics, err := logTopics(ev, p)
	if err != nil {
		return nil, err
	}
	from, to, err := logRange(ctx, c, p)
	if err != nil {
		return nil, err
	}
	filter := map[string]any{"address": addr, "fromBlock": hexutil.EncodeUint64(from), "toBlock": hexutil.EncodeUint64(to), "topics": topics}
	var logs []types.Log
	if err := batchAll(ctx, c, []rpc.BatchElem{{Method: "eth_getLogs", Args: []any{filter}, Result: &logs}}); err != nil {
		return nil, fmt.Errorf("read the logs of %s: %w", addr.Hex(), err)
	}
	if len(logs) > MaxLogs {
		return nil, fmt.Errorf("%d logs match, more than %d: narrow params.fromBlock..params.toBlock or filter with params.args", len(logs), MaxLogs)
	}
	out := make([]decodedLog, 0, len(logs))
	for _, l := range logs {
		d, err := decodeLog(ev, l)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return json.Marshal(out)
}

// logEvent finds the event in params.event.
func logEvent(p logsParams) (abi.Event, error) {
	parsed, err := parseABI("params.event", p.Event)
	if err != nil {
		return abi.Event{}, err
	}
	if p.EventName != "" {
		if ev, ok := parsed.Events[p.EventName]; ok {
			return ev, nil
		}
		return abi.Event{}, fmt.Errorf("params.eventName %q is not an event of params.event", p.EventName)
	}
	if len(parsed.Events) != 1 {
		return abi.Event{}, fmt.Errorf("params.event must hold exactly one event (it has %d); name it with params.eventName", len(parsed.Events))
	}
	for _, ev := range parsed.Events {
		if ev.Anonymous {
			return abi.Event{}, fmt.Errorf("params.event %s is anonymous: its logs cannot be found by event", ev.Name)
		}
		return ev, nil
	}
	return abi.Event{}, nil
}

// logTopics is the filter's topics: the event's id, then the indexed inputs from params.args (by name,
// absent ones match anything) or params.topics (raw 32-byte hex, null, or a list of alternatives).
func logTopics(ev abi.Event, p logsParams) ([]any, error) {
	topics := []any{ev.ID}
	if len(p.Args) > 0 && len(p.Topics) > 0 {
		return nil, fmt.Errorf("params.args and params.topics filter the same topics: give one of them")
	}
	if len(p.Topics) > 3 {
		return nil, fmt.Errorf("params.topics has at most 3 topics (after the event's own), not %d", len(p.Topics))
	}
	for i, raw := range p.Topics {
		t, err := rawTopic(fmt.Sprintf("params.topics[%d]", i), raw)
		if err != nil {
			return nil, err
		}
		topics = append(topics, t)
	}
	if len(p.Args) == 0 {
		return topics, nil
	}
	return argTopics(ev, p.Args, topics)
}

// rawTopic is one raw topic: null, a 32-byte hex, or a list of them.
func rawTopic(field string, raw json.RawMessage) (any, error) {
	if string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if b, err := hexutil.Decode(one); err != nil || len(b) != 32 {
			return nil, fmt.Errorf("%s must be a 32-byte 0x hex topic", field)
		}
		return common.HexToHash(one), nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, fmt.Errorf("%s must be null, a 32-byte 0x hex topic or a list of them", field)
	}
	out := make([]common.Hash, len(many))
	for j, s := range many {
		if b, err := hexutil.Decode(s); err != nil || len(b) != 32 {
			return nil, fmt.Errorf("%s[%d] must be a 32-byte 0x hex topic", field, j)
		}
		out[j] = common.HexToHash(s)
	}
	return out, nil
}

// argTopics filters the event's indexed inputs by params.args.
func argTopics(ev abi.Event, filter map[string]any, topics []any) ([]any, error) {
	indexed := map[string]bool{}
	for _, in := range ev.Inputs {
		if in.Indexed {
			indexed[in.Name] = true
		}
	}
	for name := range filter {
		if !indexed[name] {
			return nil, fmt.Errorf("params.args.%s is not an indexed input of event %s", name, ev.Name)
		}
	}
	for _, in := range ev.Inputs {
		if !in.Indexed {
			continue
		}
		v, ok := filter[in.Name]
		if !ok || v == nil {
			topics = append(topics, nil)
			continue
		}
		raw, _ := json.Marshal(v)
		gv, err := goValue("params.args."+in.Name, in.Type, raw)
		if err != nil {
			return nil, err
		}
		t, err := abi.MakeTopics([]any{gv.Interface()})
		if err != nil {
			return nil, fmt.Errorf("params.args.%s: %w", in.Name, err)
		}
		topics = append(topics, t[0][0])
	}
	for len(topics) > 1 && topics[len(topics)-1] == nil {
		topics = topics[:len(topics)-1]
	}
	return topics, nil
}

// logRange resolves fromBlock and toBlock (latest is the chain's head) and bounds the range.
func logRange(ctx context.Context, c ChainRPC, p logsParams) (uint64, uint64, error) {
	var head hexutil.Uint64
	if err := batchAll(ctx, c, []rpc.BatchElem{{Method: "eth_blockNumber", Result: &head}}); err != nil {
		return 0, 0, err
	}
	from, err := blockNumber("params.fromBlock", p.FromBlock, uint64(head), true)
	if err != nil {
		return 0, 0, err
	}
	to, err := blockNumber("params.toBlock", p.ToBlock, uint64(head), false)
	if err != nil {
		return 0, 0, err
	}
	if to < from {
		return 0, 0, fmt.Errorf("params.toBlock (%d) is before params.fromBlock (%d)", to, from)
	}
	if to-from+1 > MaxLogBlocks {
		return 0, 0, fmt.Errorf("params.fromBlock..params.toBlock spans %d blocks; at most %d", to-from+1, MaxLogBlocks)
	}
	return from, to, nil
}

// blockNumber reads a block number param; latest (and, for toBlock, absence) is the head.
func blockNumber(field string, raw json.RawMessage, head uint64, required bool) (uint64, error) {
	if len(raw) == 0 || string(raw) == "null" {
		if required {
			return 0, fmt.Errorf("%s is required (a block number; ranges span at most %d blocks)", field, MaxLogBlocks)
		}
		return head, nil
	}
	tag, err := blockTag(field, raw)
	if err != nil {
		return 0, err
	}
	switch tag {
	case "latest", "pending", "safe", "finalized":
		return head, nil
	case "earliest":
		return 0, nil
	}
	n, _ := new(big.Int).SetString(strings.TrimPrefix(tag, "0x"), 16)
	if n.Uint64() > head {
		return 0, fmt.Errorf("%s (%d) is after the chain's head (%d)", field, n.Uint64(), head)
	}
	return n.Uint64(), nil
}

// decodeLog decodes one log of the event.
func decodeLog(ev abi.Event, l types.Log) (decodedLog, error) {
	values := map[string]any{}
	var indexed abi.Arguments
	for _, in := range ev.Inputs {
		if in.Indexed {
			indexed = append(indexed, in)
		}
	}
	if len(l.Topics) == 0 {
		return decodedLog{}, fmt.Errorf("log %d of transaction %s has no topics", l.Index, l.TxHash.Hex())
	}
	if err := abi.ParseTopicsIntoMap(values, indexed, l.Topics[1:]); err != nil {
		return decodedLog{}, fmt.Errorf("decode the topics of log %d of transaction %s: %w", l.Index, l.TxHash.Hex(), err)
	}
	if err := ev.Inputs.UnpackIntoMap(values, l.Data); err != nil {
		return decodedLog{}, fmt.Errorf("decode the data of log %d of transaction %s: %w", l.Index, l.TxHash.Hex(), err)
	}
	out := make(map[string]any, len(values))
	for k, v := range values {
		out[k] = jsonValue(v)
	}
	return decodedLog{Address: l.Address.Hex(), BlockNumber: l.BlockNumber, BlockHash: l.BlockHash.Hex(),
		TransactionHash: l.TxHash.Hex(), LogIndex: l.Index, EventName: ev.Name, Args: out}, nil
}
