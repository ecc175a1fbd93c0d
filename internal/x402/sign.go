package x402

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
)

// Pay is the payer's side of the exact EVM scheme: it signs req as the reference client does (an
// EIP-3009 TransferWithAuthorization of exactly req.Amount to req.PayTo, validAfter 0, validBefore now +
// maxTimeoutSeconds, a random nonce) under the domain req names (extra.name, extra.version, the chain of
// req.Network, verifyingContract req.Asset), and returns the v2 payment to send in Payment-Signature.
func Pay(key *ecdsa.PrivateKey, req PaymentRequirements, resource *ResourceInfo, now time.Time) (PaymentPayload, error) {
	return PayWith(context.Background(), KeySigner{Key: key}, req, resource, now)
}

// RequirementsDomain is the EIP-712 domain a payment for req is signed under.
func RequirementsDomain(req PaymentRequirements) (Domain, error) {
	id, err := ParseNetwork(req.Network)
	if err != nil {
		return Domain{}, err
	}
	name, _ := req.Extra["name"].(string)
	version, _ := req.Extra["version"].(string)
	if name == "" || version == "" {
		return Domain{}, errors.New("x402: the requirements carry no extra.name and extra.version (the token's EIP-712 domain)")
	}
	if !common.IsHexAddress(req.Asset) {
		return Domain{}, fmt.Errorf("x402: asset %q is not an address", req.Asset)
	}
	return Domain{Name: name, Version: version, ChainID: id, VerifyingContract: common.HexToAddress(req.Asset)}, nil
}

// SignAuthorization signs the wire authorization a under d and returns the 0x hex signature r ‖ s ‖ v
// (v 27 or 28), as EIP-3009 tokens and x402 clients expect.
func SignAuthorization(key *ecdsa.PrivateKey, d Domain, a EIP3009Authorization) (string, error) {
	parsed, err := parseAuthorization(a, "0x"+common.Bytes2Hex(make([]byte, 65)))
	if err != nil {
		return "", err
	}
	sig, err := crypto.Sign(parsed.Digest(d).Bytes(), key)
	if err != nil {
		return "", fmt.Errorf("x402: sign: %w", err)
	}
	sig[64] += 27
	return hexutil.Encode(sig), nil
}

// AtomicAmount parses a requirement's atomic amount.
func AtomicAmount(req PaymentRequirements) (*big.Int, error) {
	n, ok := new(big.Int).SetString(req.Amount, 10)
	if !ok || n.Sign() <= 0 {
		return nil, fmt.Errorf("x402: amount %q is not a positive integer", req.Amount)
	}
	return n, nil
}
