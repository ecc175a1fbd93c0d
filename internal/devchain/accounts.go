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

// The dev accounts below are the first six accounts of the well-known
// Hardhat/Anvil test mnemonic ("test test ... junk"). Their private keys are
// PUBLIC: anyone can sign with them on any chain. They exist so the dev chain
// is reproducible and must NEVER hold real value or be used outside `svcd dev`.
const (
	// deployerKeyHex is Hardhat/Anvil account #0 (PUBLIC, dev only).
	deployerKeyHex = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	// facilitatorKeyHex is Hardhat/Anvil account #1 (PUBLIC, dev only).
	facilitatorKeyHex = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
	// platformKeyHex is Hardhat/Anvil account #3 (PUBLIC, dev only).
	platformKeyHex = "7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6"
	// ecosystemKeyHex is Hardhat/Anvil account #4 (PUBLIC, dev only).
	ecosystemKeyHex = "47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a"
	// protocolKeyHex is Hardhat/Anvil account #5 (PUBLIC, dev only).
	protocolKeyHex = "8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba"
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

	// WETHAddress is where the dev WETH (WETH9 as shipped by Uniswap v2) lives:
	// the deployer's second transaction (nonce 1).
	WETHAddress = crypto.CreateAddress(DeployerAddress, 1)

	// FeesManagerAddress is where the FeesManager (token launches and their
	// fee split) lives: the deployer's third transaction (nonce 2).
	FeesManagerAddress = crypto.CreateAddress(DeployerAddress, 2)

	// UniswapFactoryAddress is where Uniswap V2's factory (the @uniswap/v2-core npm build) lives: the
	// deployer's fourth transaction (nonce 3).
	UniswapFactoryAddress = crypto.CreateAddress(DeployerAddress, 3)

	// UniswapRouterAddress is where Uniswap V2's Router02 (the @uniswap/v2-periphery npm build, bound to
	// UniswapFactoryAddress and WETHAddress) lives: the deployer's fifth transaction (nonce 4).
	UniswapRouterAddress = crypto.CreateAddress(DeployerAddress, 4)

	// PlatformAddress is dev account #3: the platform beneficiary (36.1 %) of
	// every launch on the dev FeesManager.
	PlatformAddress = common.HexToAddress("0x90F79bf6EB2c4f870365E785982E1f101E93b906")

	// EcosystemAddress is dev account #4: the platform-ecosystem beneficiary
	// (1.9 %) of every launch on the dev FeesManager.
	EcosystemAddress = common.HexToAddress("0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65")

	// ProtocolAddress is dev account #5: the protocol beneficiary (5 %) of
	// every launch on the dev FeesManager.
	ProtocolAddress = common.HexToAddress("0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc")
)

// DeployerKey returns the private key of DeployerAddress. It is a public test
// key (Hardhat/Anvil account #0): dev chain only.
func DeployerKey() *ecdsa.PrivateKey { return mustKey(deployerKeyHex, DeployerAddress) }

// FacilitatorKey returns the private key of FacilitatorAddress. It is a public
// test key (Hardhat/Anvil account #1): dev chain only.
func FacilitatorKey() *ecdsa.PrivateKey { return mustKey(facilitatorKeyHex, FacilitatorAddress) }

// PlatformKey returns the private key of PlatformAddress. It is a public test
// key (Hardhat/Anvil account #3): dev chain only.
func PlatformKey() *ecdsa.PrivateKey { return mustKey(platformKeyHex, PlatformAddress) }

// EcosystemKey returns the private key of EcosystemAddress. It is a public
// test key (Hardhat/Anvil account #4): dev chain only.
func EcosystemKey() *ecdsa.PrivateKey { return mustKey(ecosystemKeyHex, EcosystemAddress) }

// ProtocolKey returns the private key of ProtocolAddress. It is a public test
// key (Hardhat/Anvil account #5): dev chain only.
func ProtocolKey() *ecdsa.PrivateKey { return mustKey(protocolKeyHex, ProtocolAddress) }

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
