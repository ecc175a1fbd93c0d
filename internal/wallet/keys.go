// Package wallet is the platform's managed wallets: a secp256k1 key per wallet kept under envelope
// encryption, seed 002's policy controls, and balances read from the chain.
package wallet

import (
	"crypto/ecdsa"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/svcplatform/svc/internal/secretbox"
)

// Sealed is a wallet's private key at rest: the key sealed with a data key of its own, and the data key
// sealed by the master key, both bound to the wallet's id and address.
type Sealed struct {
	Key     []byte
	DataKey []byte
}

// aad binds a wallet's ciphertexts to its id and address.
func aad(walletID string, address common.Address) []byte {
	return []byte("svc/wallet-key:" + walletID + ":" + address.Hex())
}

// NewKey makes a fresh key for wallet walletID and answers its address and the key sealed under box.
// The private key leaves this function only sealed.
func NewKey(box *secretbox.Box, walletID string) (common.Address, Sealed, error) {
	key, err := crypto.GenerateKey()
	if err != nil {
		return common.Address{}, Sealed{}, fmt.Errorf("generate the wallet's key: %w", err)
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	dataKey := make([]byte, secretbox.KeySize)
	if _, err := rand.Read(dataKey); err != nil {
		return common.Address{}, Sealed{}, fmt.Errorf("generate the wallet's data key: %w", err)
	}
	inner, err := secretbox.New(dataKey)
	if err != nil {
		return common.Address{}, Sealed{}, err
	}
	ad := aad(walletID, addr)
	raw := crypto.FromECDSA(key)
	sealed := Sealed{Key: inner.Seal(raw, ad), DataKey: box.Seal(dataKey, ad)}
	clear(raw)
	clear(dataKey)
	return addr, sealed, nil
}

// errKey is what opening a key that does not belong to its row answers (no detail: it names no secret).
var errKey = errors.New("the wallet's key does not open: its ciphertexts do not belong to this wallet")

// OpenKey opens wallet walletID's key, checking that it is the key of address. Call it only where the
// key signs, and drop the key right after.
func OpenKey(box *secretbox.Box, walletID string, address common.Address, s Sealed) (*ecdsa.PrivateKey, error) {
	ad := aad(walletID, address)
	dataKey, err := box.Open(s.DataKey, ad)
	if err != nil {
		return nil, errKey
	}
	defer clear(dataKey)
	inner, err := secretbox.New(dataKey)
	if err != nil {
		return nil, errKey
	}
	raw, err := inner.Open(s.Key, ad)
	if err != nil {
		return nil, errKey
	}
	defer clear(raw)
	key, err := crypto.ToECDSA(raw)
	if err != nil || crypto.PubkeyToAddress(key.PublicKey) != address {
		return nil, errKey
	}
	return key, nil
}
