package siwe

import (
	"crypto/ecdsa"
	"fmt"

	"github.com/ethereum/go-ethereum/accounts"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/svcplatform/svc/internal/svcerr"
)

func badSignature(format string, args ...any) error {
	return &svcerr.Error{Code: svcerr.Unauthenticated, Param: "signature", Message: fmt.Sprintf(format, args...)}
}

// Recover returns the address whose key made signature (65 bytes, hex, v 27/28 or 0/1) over text as an
// EIP-191 personal message (what wallets and viem's signMessage sign).
func Recover(text, signature string) (common.Address, error) {
	sig, err := hexutil.Decode(signature)
	if err != nil || len(sig) != crypto.SignatureLength {
		return common.Address{}, badSignature("the signature must be 65 bytes of 0x-prefixed hex")
	}
	if sig[64] >= 27 {
		sig[64] -= 27
	}
	if sig[64] > 1 {
		return common.Address{}, badSignature("the signature's recovery id must be 27 or 28 (or 0 or 1)")
	}
	pub, err := crypto.SigToPub(accounts.TextHash([]byte(text)), sig)
	if err != nil {
		return common.Address{}, badSignature("the signature does not recover to a key")
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// Sign signs text as an EIP-191 personal message with key, answering the 0x-hex signature with v 27/28
// (what svc login siwe sends).
func Sign(text string, key *ecdsa.PrivateKey) (string, error) {
	sig, err := crypto.Sign(accounts.TextHash([]byte(text)), key)
	if err != nil {
		return "", fmt.Errorf("sign the SIWE message: %w", err)
	}
	sig[64] += 27
	return hexutil.Encode(sig), nil
}
