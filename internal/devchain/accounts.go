package devchain

import (
	"crypto/ecdsa"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// ChainID is the chain id of the dev chain (the one geth --dev uses).
const ChainID = 1337

// Network is the dev chain's CAIP-2 identifier, as x402 names networks.
const Network = "eip155:1337"

// The dev accounts below are the first three accounts of the well-known
// Hardhat/Anvil test mnemonic ("test test ... junk"). Their private keys are
// PUBLIC: anyone can sign with them on any chain. They exist so the dev chain
// is reproducible and must NEVER hold real value or be used outside `svcd dev`.
const (
	// deployerKeyHex is Hardhat/Anvil account #0 (PUBLIC, dev only).
	deployerKeyHex = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	// facilitatorKeyHex is Hardhat/Anvil account #1 (PUBLIC, dev only).
	facilitatorKeyHex = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
)

var (
	// DeployerAddress is dev account #0: it deploys the dev USDC as its very
	// first transaction, owns it (the only minter) and signs faucet transfers.
	DeployerAddress = common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")

	// FacilitatorAddress is dev account #1: the x402 facilitator, which pays
	// the gas to submit transferWithAuthorization.
	FacilitatorAddress = common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8")

	// PayTo is the dev treasury that receives payments: dev account #2
	// (the server never needs its key).
	PayTo = common.HexToAddress("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC")

	// USDCAddress is where the dev USDC lives: the contract created by the
	// deployer's first transaction (nonce 0), so it is the same on every
	// fresh chain.
	USDCAddress = crypto.CreateAddress(DeployerAddress, 0)
)

// DeployerKey returns the private key of DeployerAddress. It is a public test
// key (Hardhat/Anvil account #0): dev chain only.
func DeployerKey() *ecdsa.PrivateKey { return mustKey(deployerKeyHex, DeployerAddress) }

// FacilitatorKey returns the private key of FacilitatorAddress. It is a public
// test key (Hardhat/Anvil account #1): dev chain only.
func FacilitatorKey() *ecdsa.PrivateKey { return mustKey(facilitatorKeyHex, FacilitatorAddress) }

// mustKey parses a hard-coded key and checks it belongs to want; a mismatch
// is a programming error.
func mustKey(hexKey string, want common.Address) *ecdsa.PrivateKey {
	key, err := crypto.HexToECDSA(hexKey)
	if err != nil {
		panic(fmt.Sprintf("devchain: bad built-in key for %s: %v", want, err))
	}
	if got := crypto.PubkeyToAddress(key.PublicKey); got != want {
		panic(fmt.Sprintf("devchain: built-in key is for %s, not %s", got, want))
	}
	return key
}
