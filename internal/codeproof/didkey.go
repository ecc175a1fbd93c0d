package codeproof

import (
	"crypto/ed25519"
	"fmt"
	"math/big"
	"strings"
)

// ed25519Multicodec is the varint of multicodec 0xed (ed25519-pub): the bytes 0xed 0x01.
var ed25519Multicodec = []byte{0xed, 0x01}

// didKeyPrefix starts every did:key; "z" is the multibase prefix of base58btc.
const didKeyPrefix = "did:key:z"

// DIDKey is the did:key of an Ed25519 public key.
func DIDKey(pub ed25519.PublicKey) string {
	return didKeyPrefix + base58Encode(append(append([]byte{}, ed25519Multicodec...), pub...))
}

// ParseDIDKey returns the Ed25519 public key of a did:key.
func ParseDIDKey(did string) (ed25519.PublicKey, error) {
	enc, ok := strings.CutPrefix(did, didKeyPrefix)
	if !ok {
		return nil, fmt.Errorf("parse did:key: %q does not start with %s", did, didKeyPrefix)
	}
	raw, err := base58Decode(enc)
	if err != nil {
		return nil, fmt.Errorf("parse did:key: %w", err)
	}
	if len(raw) != 2+ed25519.PublicKeySize || raw[0] != ed25519Multicodec[0] || raw[1] != ed25519Multicodec[1] {
		return nil, fmt.Errorf("parse did:key: not an Ed25519 key")
	}
	return ed25519.PublicKey(raw[2:]), nil
}

// base58Alphabet is the Bitcoin base58 alphabet (base58btc).
const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// base58Encode encodes b in base58btc: each leading zero byte becomes a '1'.
func base58Encode(b []byte) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	n := new(big.Int).SetBytes(b)
	radix, mod := big.NewInt(58), new(big.Int)
	var out []byte
	for n.Sign() > 0 {
		n.DivMod(n, radix, mod)
		out = append(out, base58Alphabet[mod.Int64()])
	}
	out = append(out, strings.Repeat("1", zeros)...)
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return string(out)
}

// base58Decode decodes base58btc.
func base58Decode(s string) ([]byte, error) {
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	n, radix := new(big.Int), big.NewInt(58)
	for _, c := range s {
		i := strings.IndexRune(base58Alphabet, c)
		if i < 0 {
			return nil, fmt.Errorf("base58: invalid character %q", c)
		}
		n.Mul(n, radix).Add(n, big.NewInt(int64(i)))
	}
	return append(make([]byte, zeros), n.Bytes()...), nil
}
