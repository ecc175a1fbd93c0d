package x402

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Authorization is a parsed, verified EIP-3009 TransferWithAuthorization and
// its signature, ready for the token's
// transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, v, r, s).
type Authorization struct {
	From        common.Address
	To          common.Address
	Value       *big.Int
	ValidAfter  *big.Int
	ValidBefore *big.Int
	Nonce       [32]byte
	// Signature is the 65-byte r ‖ s ‖ v signature with v normalised to 27/28.
	Signature []byte
	// V is 27 or 28.
	V uint8
	R [32]byte
	S [32]byte
}

// secp256k1HalfN is the largest s accepted (EIP-2 low-s rule).
var secp256k1HalfN = new(big.Int).Rsh(crypto.S256().Params().N, 1)

// SplitSignature splits a 65-byte r ‖ s ‖ v signature and normalises v to
// 27/28 (v may be 0/1 or 27/28). It rejects other v values, zero or
// out-of-range r and s, and high-s (malleable) signatures.
func SplitSignature(sig []byte) (v uint8, r, s [32]byte, err error) {
	if len(sig) != crypto.SignatureLength {
		return 0, r, s, fmt.Errorf("signature is %d bytes, want %d (r, s, v)", len(sig), crypto.SignatureLength)
	}
	copy(r[:], sig[:32])
	copy(s[:], sig[32:64])
	v = sig[64]
	if v < 27 {
		v += 27
	}
	if v != 27 && v != 28 {
		return 0, r, s, fmt.Errorf("signature v is %d, want 27 or 28 (or 0 or 1)", sig[64])
	}
	rb, sb := new(big.Int).SetBytes(r[:]), new(big.Int).SetBytes(s[:])
	if sb.Cmp(secp256k1HalfN) > 0 {
		return 0, r, s, errors.New("signature s is in the upper half of the curve order (malleable high-s form)")
	}
	if !crypto.ValidateSignatureValues(v-27, rb, sb, true) {
		return 0, r, s, errors.New("signature r or s is out of range")
	}
	return v, r, s, nil
}

// JoinSignature returns r ‖ s ‖ v as 65 bytes (v as given).
func JoinSignature(v uint8, r, s [32]byte) []byte {
	sig := make([]byte, 0, crypto.SignatureLength)
	sig = append(append(append(sig, r[:]...), s[:]...), v)
	return sig
}

// RecoverSigner returns the address whose key produced a 65-byte signature
// over digest. The signature must pass SplitSignature.
func RecoverSigner(digest common.Hash, sig []byte) (common.Address, error) {
	v, r, s, err := SplitSignature(sig)
	if err != nil {
		return common.Address{}, err
	}
	pub, err := crypto.SigToPub(digest.Bytes(), JoinSignature(v-27, r, s))
	if err != nil {
		return common.Address{}, fmt.Errorf("recover signer: %w", err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// parseAuthorization turns the wire authorization and signature into an
// Authorization, without checking the signature. Failures are *VerifyError.
func parseAuthorization(w EIP3009Authorization, signature string) (Authorization, error) {
	var a Authorization
	var err error
	if a.From, err = parseAddress("authorization.from", w.From); err != nil {
		return a, err
	}
	if a.To, err = parseAddress("authorization.to", w.To); err != nil {
		return a, err
	}
	if a.Value, err = parseUint256("authorization.value", w.Value); err != nil {
		return a, err
	}
	if a.ValidAfter, err = parseUint256("authorization.validAfter", w.ValidAfter); err != nil {
		return a, err
	}
	if a.ValidBefore, err = parseUint256("authorization.validBefore", w.ValidBefore); err != nil {
		return a, err
	}
	if a.Nonce, err = parseNonce(w.Nonce); err != nil {
		return a, err
	}
	a.Signature, err = parseSignatureHex(signature)
	return a, err
}

func parseAddress(field, s string) (common.Address, error) {
	if !strings.HasPrefix(s, "0x") || !common.IsHexAddress(s) {
		return common.Address{}, refuse(ReasonInvalidPayload, field, "%s %q is not a 0x-prefixed 20-byte hex address", field, s)
	}
	return common.HexToAddress(s), nil
}

func parseUint256(field, s string) (*big.Int, error) {
	if s == "" || len(s) > 78 || strings.Trim(s, "0123456789") != "" {
		return nil, refuse(ReasonInvalidPayload, field, "%s %q is not a decimal integer string", field, s)
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.BitLen() > 256 {
		return nil, refuse(ReasonInvalidPayload, field, "%s %q does not fit in uint256", field, s)
	}
	return n, nil
}

func parseNonce(s string) ([32]byte, error) {
	var nonce [32]byte
	b, err := decodeHex(s)
	if err != nil || len(b) != 32 {
		return nonce, refuse(ReasonInvalidPayload, "authorization.nonce",
			"authorization.nonce %q is not 32 bytes of 0x-prefixed hex", s)
	}
	copy(nonce[:], b)
	return nonce, nil
}

func parseSignatureHex(s string) ([]byte, error) {
	b, err := decodeHex(s)
	if err != nil {
		return nil, refuse(ReasonInvalidSignature, "signature", "signature is not 0x-prefixed hex")
	}
	if len(b) != crypto.SignatureLength {
		return nil, refuse(ReasonInvalidSignature, "signature",
			"signature is %d bytes; only 65-byte EOA signatures are accepted (no ERC-1271/ERC-6492 smart-wallet signatures)", len(b))
	}
	return b, nil
}

func decodeHex(s string) ([]byte, error) {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok {
		return nil, errors.New("missing 0x prefix")
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, fmt.Errorf("decode hex: %w", err)
	}
	return b, nil
}
