package apprun

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// Scripts give an ABI as a JSON ABI (an array of fragments, one fragment object, or either as a JSON
// string) or as human-readable signatures ("function balanceOf(address owner) view returns (uint256)",
// "event Transfer(address indexed from, address indexed to, uint256 value)", one string or an array of
// them; tuples need the JSON form). Arguments are JSON: integers as numbers or decimal/0x strings,
// addresses and bytes as 0x strings. Results are JSON: integers as decimal strings, addresses
// checksummed, bytes 0x-hex, tuples as objects by component name.

// parseABI reads the abi param (named field in errors).
func parseABI(field string, raw json.RawMessage) (abi.ABI, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		s = strings.TrimSpace(s)
		if strings.HasPrefix(s, "[") || strings.HasPrefix(s, "{") {
			raw = json.RawMessage(s)
		} else {
			return humanABI(field, []string{s})
		}
	}
	var list []json.RawMessage
	switch t := strings.TrimSpace(string(raw)); {
	case strings.HasPrefix(t, "{"):
		list = []json.RawMessage{raw}
	case strings.HasPrefix(t, "["):
		if err := json.Unmarshal(raw, &list); err != nil {
			return abi.ABI{}, fmt.Errorf("%s must be a JSON ABI or human-readable signatures: %w", field, err)
		}
	default:
		return abi.ABI{}, fmt.Errorf("%s is required: a JSON ABI (array or fragment) or human-readable signatures", field)
	}
	var sigs []string
	for _, item := range list {
		var sig string
		if json.Unmarshal(item, &sig) == nil {
			sigs = append(sigs, sig)
		}
	}
	if len(sigs) == len(list) && len(sigs) > 0 {
		return humanABI(field, sigs)
	}
	joined, _ := json.Marshal(list)
	parsed, err := abi.JSON(strings.NewReader(string(joined)))
	if err != nil {
		return abi.ABI{}, fmt.Errorf("%s is not a valid JSON ABI: %w", field, err)
	}
	return parsed, nil
}

// humanSig is one human-readable signature: kind name(params) [modifiers] [returns (outputs)].
var humanSig = regexp.MustCompile(`^\s*(function|event)\s+([A-Za-z_$][A-Za-z0-9_$]*)\s*\(([^()]*)\)\s*([a-z\s]*?)\s*(?:returns\s*\(([^()]*)\))?\s*;?\s*$`)

// humanABI turns human-readable signatures into an ABI.
func humanABI(field string, sigs []string) (abi.ABI, error) {
	var frags []map[string]any
	for i, sig := range sigs {
		m := humanSig.FindStringSubmatch(sig)
		if m == nil {
			return abi.ABI{}, fmt.Errorf("%s[%d] %q is not a signature like \"function balanceOf(address) view returns (uint256)\" "+
				"or \"event Transfer(address indexed from, address indexed to, uint256 value)\" (tuples need the JSON ABI)", field, i, sig)
		}
		inputs, err := humanParams(m[3], m[1] == "event")
		if err != nil {
			return abi.ABI{}, fmt.Errorf("%s[%d]: %w", field, i, err)
		}
		frag := map[string]any{"type": m[1], "name": m[2], "inputs": inputs}
		if m[1] == "function" {
			outputs, err := humanParams(m[5], false)
			if err != nil {
				return abi.ABI{}, fmt.Errorf("%s[%d] returns: %w", field, i, err)
			}
			frag["outputs"], frag["stateMutability"] = outputs, mutability(m[4])
		}
		frags = append(frags, frag)
	}
	raw, _ := json.Marshal(frags)
	parsed, err := abi.JSON(strings.NewReader(string(raw)))
	if err != nil {
		return abi.ABI{}, fmt.Errorf("%s: %w", field, err)
	}
	return parsed, nil
}

func mutability(mods string) string {
	for _, m := range strings.Fields(mods) {
		if m == "view" || m == "pure" || m == "payable" {
			return m
		}
	}
	return "nonpayable"
}

// humanParams parses "address indexed from, uint256 value" into JSON ABI params.
func humanParams(list string, event bool) ([]map[string]any, error) {
	out := []map[string]any{}
	if strings.TrimSpace(list) == "" {
		return out, nil
	}
	for _, p := range strings.Split(list, ",") {
		words := strings.Fields(p)
		if len(words) == 0 {
			return nil, fmt.Errorf("an empty parameter in (%s)", list)
		}
		param := map[string]any{"type": words[0], "name": ""}
		for _, w := range words[1:] {
			switch {
			case w == "indexed" && event:
				param["indexed"] = true
			case w == "memory" || w == "calldata" || w == "storage":
			default:
				param["name"] = w
			}
		}
		out = append(out, param)
	}
	return out, nil
}

// goArgs converts JSON arguments to the Go values abi packing takes, naming field[i] in errors.
func goArgs(field string, args abi.Arguments, raw []json.RawMessage) ([]any, error) {
	if len(raw) != len(args) {
		return nil, fmt.Errorf("%s has %d values; the function takes %d", field, len(raw), len(args))
	}
	out := make([]any, len(args))
	for i, a := range args {
		v, err := goValue(fmt.Sprintf("%s[%d]", field, i), a.Type, raw[i])
		if err != nil {
			return nil, err
		}
		out[i] = v.Interface()
	}
	return out, nil
}

// goValue converts one JSON value to the Go type of t.
func goValue(field string, t abi.Type, raw json.RawMessage) (reflect.Value, error) {
	target := t.GetType()
	switch t.T {
	case abi.IntTy, abi.UintTy:
		return intValue(field, t, target, raw)
	case abi.BoolTy:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return reflect.Value{}, fmt.Errorf("%s must be a boolean", field)
		}
		return reflect.ValueOf(b), nil
	case abi.StringTy:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return reflect.Value{}, fmt.Errorf("%s must be a string", field)
		}
		return reflect.ValueOf(s), nil
	case abi.AddressTy:
		var s string
		if json.Unmarshal(raw, &s) != nil || !common.IsHexAddress(s) {
			return reflect.Value{}, fmt.Errorf("%s must be a 0x address", field)
		}
		return reflect.ValueOf(common.HexToAddress(s)), nil
	case abi.BytesTy, abi.FixedBytesTy, abi.HashTy, abi.FunctionTy:
		return bytesValue(field, t, target, raw)
	case abi.SliceTy, abi.ArrayTy:
		return listValue(field, t, target, raw)
	case abi.TupleTy:
		return tupleValue(field, t, target, raw)
	}
	return reflect.Value{}, fmt.Errorf("%s: ABI type %s is not supported", field, t.String())
}

// intValue reads an integer (a JSON number or a decimal or 0x string) into t's Go type.
func intValue(field string, t abi.Type, target reflect.Type, raw json.RawMessage) (reflect.Value, error) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return reflect.Value{}, fmt.Errorf("%s must be an integer (a number or a decimal or 0x string)", field)
		}
		s = n.String()
	}
	n, ok := new(big.Int).SetString(strings.TrimSpace(s), 0)
	if !ok {
		return reflect.Value{}, fmt.Errorf("%s must be an integer, not %q", field, s)
	}
	lo, hi := intRange(t)
	if n.Cmp(lo) < 0 || n.Cmp(hi) > 0 {
		return reflect.Value{}, fmt.Errorf("%s is out of range for %s", field, t.String())
	}
	if target == reflect.TypeFor[*big.Int]() {
		return reflect.ValueOf(n), nil
	}
	v := reflect.New(target).Elem()
	if t.T == abi.UintTy {
		v.SetUint(n.Uint64())
	} else {
		v.SetInt(n.Int64())
	}
	return v, nil
}

// intRange is the smallest and largest value of an intN or uintN.
func intRange(t abi.Type) (*big.Int, *big.Int) {
	one := big.NewInt(1)
	if t.T == abi.UintTy {
		return new(big.Int), new(big.Int).Sub(new(big.Int).Lsh(one, uint(t.Size)), one)
	}
	half := new(big.Int).Lsh(one, uint(t.Size-1))
	return new(big.Int).Neg(half), new(big.Int).Sub(half, one)
}

func bytesValue(field string, t abi.Type, target reflect.Type, raw json.RawMessage) (reflect.Value, error) {
	var s string
	if json.Unmarshal(raw, &s) != nil || !strings.HasPrefix(s, "0x") {
		return reflect.Value{}, fmt.Errorf("%s must be 0x-prefixed hex", field)
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return reflect.Value{}, fmt.Errorf("%s must be 0x-prefixed hex: %w", field, err)
	}
	if t.T == abi.BytesTy {
		return reflect.ValueOf(b), nil
	}
	if len(b) != target.Len() {
		return reflect.Value{}, fmt.Errorf("%s must be exactly %d bytes, not %d", field, target.Len(), len(b))
	}
	v := reflect.New(target).Elem()
	reflect.Copy(v, reflect.ValueOf(b))
	return v, nil
}

func listValue(field string, t abi.Type, target reflect.Type, raw json.RawMessage) (reflect.Value, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return reflect.Value{}, fmt.Errorf("%s must be an array", field)
	}
	var v reflect.Value
	if t.T == abi.ArrayTy {
		if len(items) != t.Size {
			return reflect.Value{}, fmt.Errorf("%s must have exactly %d items, not %d", field, t.Size, len(items))
		}
		v = reflect.New(target).Elem()
	} else {
		v = reflect.MakeSlice(target, len(items), len(items))
	}
	for i, item := range items {
		e, err := goValue(fmt.Sprintf("%s[%d]", field, i), *t.Elem, item)
		if err != nil {
			return reflect.Value{}, err
		}
		v.Index(i).Set(e)
	}
	return v, nil
}

// tupleValue reads a tuple from an object (by component name) or an array (in order).
func tupleValue(field string, t abi.Type, target reflect.Type, raw json.RawMessage) (reflect.Value, error) {
	items := make([]json.RawMessage, len(t.TupleElems))
	var byName map[string]json.RawMessage
	if json.Unmarshal(raw, &byName) == nil && byName != nil {
		for i, name := range t.TupleRawNames {
			val, ok := byName[name]
			if !ok {
				return reflect.Value{}, fmt.Errorf("%s.%s is required", field, name)
			}
			items[i] = val
		}
	} else if err := json.Unmarshal(raw, &items); err != nil || len(items) != len(t.TupleElems) {
		return reflect.Value{}, fmt.Errorf("%s must be an object of the tuple's components or an array of %d values", field, len(t.TupleElems))
	}
	v := reflect.New(target).Elem()
	for i, elem := range t.TupleElems {
		e, err := goValue(field+"."+t.TupleRawNames[i], *elem, items[i])
		if err != nil {
			return reflect.Value{}, err
		}
		v.Field(i).Set(e)
	}
	return v, nil
}

// jsonValue converts a value abi unpacking gave into its JSON form.
func jsonValue(v any) any {
	switch x := v.(type) {
	case *big.Int:
		return x.String()
	case common.Address:
		return x.Hex()
	case []byte:
		return "0x" + hex.EncodeToString(x)
	case string, bool, nil:
		return x
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
		return strconv.FormatUint(rv.Uint(), 10)
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Int:
		return strconv.FormatInt(rv.Int(), 10)
	case reflect.Array:
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			b := make([]byte, rv.Len())
			reflect.Copy(reflect.ValueOf(b), rv)
			return "0x" + hex.EncodeToString(b)
		}
		return jsonList(rv)
	case reflect.Slice:
		return jsonList(rv)
	case reflect.Struct:
		out := make(map[string]any, rv.NumField())
		for i := range rv.NumField() {
			f := rv.Type().Field(i)
			name := f.Tag.Get("json")
			if name == "" {
				name = f.Name
			}
			out[name] = jsonValue(rv.Field(i).Interface())
		}
		return out
	}
	return fmt.Sprint(v)
}

func jsonList(rv reflect.Value) []any {
	out := make([]any, rv.Len())
	for i := range rv.Len() {
		out[i] = jsonValue(rv.Index(i).Interface())
	}
	return out
}

// jsonOutputs is a call's outputs: nothing is null, one output its value, several an array.
func jsonOutputs(values []any) any {
	switch len(values) {
	case 0:
		return nil
	case 1:
		return jsonValue(values[0])
	}
	return jsonList(reflect.ValueOf(values))
}

// errNoMethod names a function the ABI does not have.
func errNoMethod(field, name string, a abi.ABI) error {
	names := make([]string, 0, len(a.Methods))
	for n := range a.Methods {
		names = append(names, n)
	}
	if len(names) == 0 {
		return fmt.Errorf("%s: the abi has no functions", field)
	}
	return fmt.Errorf("%s %q is not a function of the abi (it has %s)", field, name, strings.Join(names, ", "))
}

// abiMethod finds functionName in the ABI (by name, or by full signature for overloads).
func abiMethod(a abi.ABI, field, name string) (abi.Method, error) {
	if strings.TrimSpace(name) == "" {
		return abi.Method{}, fmt.Errorf("%s is required", field)
	}
	if m, ok := a.Methods[name]; ok {
		return m, nil
	}
	for _, m := range a.Methods {
		if m.Sig == name {
			return m, nil
		}
	}
	return abi.Method{}, errNoMethod(field, name, a)
}
