package devchain

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// sponsorKeyHex is Hardhat/Anvil account #6 (PUBLIC, dev only): the dev gas sponsor.
const sponsorKeyHex = "92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e"

// sponsorFloorETH and sponsorFundETH: Start tops the sponsor up with sponsorFundETH when it holds less
// than sponsorFloorETH.
const (
	sponsorFloorETH = 1_000
	sponsorFundETH  = 10_000
)

var (
	// SponsorAddress is dev account #6: the gas sponsor that tops managed wallets up with the gas of
	// their sponsored transactions (token launches, fee claims). Start funds it from the deployer.
	SponsorAddress = crypto.PubkeyToAddress(SponsorKey().PublicKey)

	// VaultAddress is dev account #7 (the server never needs its key): the platform vault that receives
	// the vested tokens of dev launches.
	VaultAddress = common.HexToAddress("0x14dC79964da2C08b23698B3D3cc7Ca32193d9955")
)

// SponsorKey returns the private key of SponsorAddress. It is a public test key (Hardhat/Anvil account
// #6): dev chain only.
func SponsorKey() *ecdsa.PrivateKey {
	key, err := crypto.HexToECDSA(sponsorKeyHex)
	if err != nil {
		panic(fmt.Sprintf("devchain: bad built-in sponsor key: %v", err))
	}
	return key
}

// ensureSponsor funds SponsorAddress from the deployer when it holds less than sponsorFloorETH.
func (c *Chain) ensureSponsor(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, deployTimeout)
	defer cancel()
	client := c.Client()
	defer client.Close()
	bal, err := client.BalanceAt(ctx, SponsorAddress, nil)
	if err != nil {
		return fmt.Errorf("read the sponsor's balance: %w", err)
	}
	if bal.Cmp(etherToWei(sponsorFloorETH)) >= 0 {
		return nil
	}
	if _, err := fund(ctx, client, SponsorAddress, new(big.Int), etherToWei(sponsorFundETH)); err != nil {
		return fmt.Errorf("fund the gas sponsor %s: %w", SponsorAddress, err)
	}
	return nil
}
