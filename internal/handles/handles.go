// Package handles is the handle resolver: it turns the names people use for a wallet (an X or
// Farcaster username, an ENS-style name) into the address they stand for, as the operator configures
// them. In dev the names come from a YAML file (SVC_HANDLE_RESOLVER_FILE), read again whenever it
// changes, plus the ENS-style names of SVC_WALLET_NAMES; a resolver that asked a public service would
// implement the same Resolve.
package handles

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"gopkg.in/yaml.v3"
)

// Kinds of handle (seed 002's feeRecipient.type).
const (
	KindWallet    = "wallet"
	KindX         = "x"
	KindFarcaster = "farcaster"
	KindENS       = "ens"
)

// Kinds lists every kind of handle, in the order errors name them.
var Kinds = []string{KindWallet, KindX, KindFarcaster, KindENS}

// ErrUnknownKind is returned for a kind that is not one of Kinds.
var ErrUnknownKind = errors.New("unknown kind of handle")

// ErrNotFound is returned for a handle the resolver does not know.
var ErrNotFound = errors.New("handle not known to the resolver")

// ErrMalformed is returned for a handle that cannot be a handle of its kind (or an address that is
// not one).
var ErrMalformed = errors.New("malformed handle")

// Names are fixed ENS-style names and the addresses they stand for (SVC_WALLET_NAMES).
type Names map[string]common.Address

// ParseNames reads name=address pairs separated by commas ("alice.eth=0x…,bob.eth=0x…"); errors name
// the pair.
func ParseNames(s string) (Names, error) {
	out := Names{}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		name, addr, ok := strings.Cut(pair, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		if !ok || !validENS(name) {
			return nil, fmt.Errorf("%q is not name=address with an ENS-style name (labels of letters, digits and hyphens, joined by dots)", pair)
		}
		a, err := parseAddress(strings.TrimSpace(addr))
		if err != nil {
			return nil, fmt.Errorf("name %s: %w", name, err)
		}
		out[name] = a
	}
	return out, nil
}

// Resolver resolves handles from a file that it reads again when it changes (its modification time or
// size), and from fixed ENS-style names. The zero value knows only addresses (kind wallet).
type Resolver struct {
	path  string
	fixed map[string]common.Address // ENS-style names, lower case

	mu      sync.Mutex
	table   table
	modTime time.Time
	size    int64
}

// table holds the names of each kind, keyed by their normal form.
type table map[string]map[string]common.Address

// New returns a resolver of the YAML file at path ("" for none) and the fixed ENS-style names. The
// file maps each kind to its names:
//
//	x:
//	  alice: "0x…"
//	farcaster:
//	  alice: "0x…"
//	ens:
//	  alice.eth: "0x…"
//
// The file is read now (so a broken file fails at start) and again whenever it changes.
func New(path string, ens Names) (*Resolver, error) {
	r := &Resolver{path: path, fixed: map[string]common.Address{}}
	for name, a := range ens {
		r.fixed[strings.ToLower(name)] = a
	}
	if path != "" {
		if _, err := r.current(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Resolve answers the address of value, a handle of kind: an address itself for kind wallet; an X or
// Farcaster username (with or without its leading @, any case); an ENS-style name (any case).
func (r *Resolver) Resolve(kind, value string) (common.Address, error) {
	value = strings.TrimSpace(value)
	if kind == KindWallet {
		return parseAddress(value)
	}
	key, err := normalize(kind, value)
	if err != nil {
		return common.Address{}, err
	}
	if kind == KindENS && r != nil {
		if a, ok := r.fixed[key]; ok {
			return a, nil
		}
	}
	if r == nil || r.path == "" {
		return common.Address{}, fmt.Errorf("%w: %s %q", ErrNotFound, kind, value)
	}
	t, err := r.current()
	if err != nil {
		return common.Address{}, err
	}
	if a, ok := t[kind][key]; ok {
		return a, nil
	}
	return common.Address{}, fmt.Errorf("%w: %s %q", ErrNotFound, kind, value)
}

// normalize answers the form a handle of kind is looked up by.
func normalize(kind, value string) (string, error) {
	v := strings.ToLower(value)
	switch kind {
	case KindX, KindFarcaster:
		v = strings.TrimPrefix(v, "@")
		if v == "" || len(v) > 64 || strings.Trim(v, "abcdefghijklmnopqrstuvwxyz0123456789_-.") != "" {
			return "", fmt.Errorf("%w: %q is not a %s username (letters, digits, _, - and .)", ErrMalformed, value, kind)
		}
	case KindENS:
		if !validENS(v) {
			return "", fmt.Errorf("%w: %q is not an ENS-style name (labels of letters, digits and hyphens, joined by dots)", ErrMalformed, value)
		}
	default:
		return "", fmt.Errorf("%w %q: one of %s", ErrUnknownKind, kind, strings.Join(Kinds, ", "))
	}
	return v, nil
}

// validENS reports whether name (lower case) is ENS-style: at least two labels of letters, digits and
// hyphens.
func validENS(name string) bool {
	labels := strings.Split(name, ".")
	if len(labels) < 2 || len(name) > 255 {
		return false
	}
	for _, l := range labels {
		if l == "" || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return false
		}
	}
	return true
}

// parseAddress reads a 0x address, checking its EIP-55 checksum when it is mixed case.
func parseAddress(s string) (common.Address, error) {
	if !common.IsHexAddress(s) || !strings.HasPrefix(s, "0x") {
		return common.Address{}, fmt.Errorf("%w: %q is not an address (0x and 40 hex digits)", ErrMalformed, s)
	}
	a := common.HexToAddress(s)
	body := s[2:]
	if body != strings.ToLower(body) && body != strings.ToUpper(body) && a.Hex() != s {
		return common.Address{}, fmt.Errorf("%w: %q has a wrong EIP-55 checksum (did you mean %s?)", ErrMalformed, s, a.Hex())
	}
	if a == (common.Address{}) {
		return common.Address{}, fmt.Errorf("%w: the zero address", ErrMalformed)
	}
	return a, nil
}

// current answers the file's table, reading the file again when it changed.
func (r *Resolver) current() (table, error) {
	st, err := os.Stat(r.path)
	if err != nil {
		return nil, fmt.Errorf("handle resolver file: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.table != nil && st.ModTime().Equal(r.modTime) && st.Size() == r.size {
		return r.table, nil
	}
	t, err := readFile(r.path)
	if err != nil {
		return nil, err
	}
	r.table, r.modTime, r.size = t, st.ModTime(), st.Size()
	return t, nil
}

// readFile parses the resolver's YAML file; errors name the kind and the name.
func readFile(path string) (table, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("handle resolver file: %w", err)
	}
	var doc map[string]map[string]string
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("handle resolver file %s: %w", path, err)
	}
	t := table{}
	for kind, names := range doc {
		if kind == KindWallet {
			return nil, fmt.Errorf("handle resolver file %s: %q lists no names (a wallet handle is its address)", path, kind)
		}
		t[kind] = map[string]common.Address{}
		for name, addr := range names {
			key, err := normalize(kind, name)
			if err != nil {
				return nil, fmt.Errorf("handle resolver file %s: %w", path, err)
			}
			a, err := parseAddress(addr)
			if err != nil {
				return nil, fmt.Errorf("handle resolver file %s: %s %s: %w", path, kind, name, err)
			}
			t[kind][key] = a
		}
	}
	return t, nil
}
