package app

import (
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/svcplatform/svc/activities"
	"github.com/svcplatform/svc/internal/beneficiary"
	"github.com/svcplatform/svc/internal/devchain"
	"github.com/svcplatform/svc/internal/feeclaim"
	"github.com/svcplatform/svc/internal/feeread"
	"github.com/svcplatform/svc/internal/launch"
	"github.com/svcplatform/svc/internal/sponsor"
	"github.com/svcplatform/svc/internal/wallet"
)

// LaunchConfig configures token launches (POST /token-launches/deploy). Every field has a dev default:
// the dev chain's FeesManager, the dev vault account and gas sponsor, 0.01 ETH of seed liquidity.
type LaunchConfig struct {
	// FeesManager is the fee manager contract (SVC_FEES_MANAGER_ADDRESS; dev: devchain.FeesManagerAddress).
	FeesManager string
	// Vault receives launches' vested tokens (SVC_LAUNCH_VAULT; dev: devchain.VaultAddress).
	Vault string
	// SeedWei is each launch's value, its pool's WETH reserve, paid by the deploying wallet
	// (SVC_LAUNCH_SEED_WEI, wei; default 10^16, 0.01 ETH).
	SeedWei string
	// VaultAmount is how many token units (18 decimals) each launch gives the vault (SVC_LAUNCH_VAULT_AMOUNT;
	// default 0: the whole supply seeds the pool).
	VaultAmount string
	// SponsorKey is the hex private key of the account that pays sponsored transactions' gas
	// (SVC_GAS_SPONSOR_KEY; on the dev chain, devchain.SponsorKey when unset).
	SponsorKey string
}

func launchFromEnv(getenv func(string) string) LaunchConfig {
	return LaunchConfig{FeesManager: getenv("SVC_FEES_MANAGER_ADDRESS"), Vault: getenv("SVC_LAUNCH_VAULT"),
		SeedWei: getenv("SVC_LAUNCH_SEED_WEI"), VaultAmount: getenv("SVC_LAUNCH_VAULT_AMOUNT"), SponsorKey: getenv("SVC_GAS_SPONSOR_KEY")}
}

// Launch is the launches' configuration with its dev defaults.
func (c LaunchConfig) Launch() (launch.Config, error) {
	out := launch.Config{FeesManager: devchain.FeesManagerAddress, Vault: devchain.VaultAddress, SeedWei: launch.DefaultSeedWei,
		VaultAmount: new(big.Int)}
	for _, a := range []struct {
		name, v string
		to      *common.Address
	}{{"SVC_FEES_MANAGER_ADDRESS", c.FeesManager, &out.FeesManager}, {"SVC_LAUNCH_VAULT", c.Vault, &out.Vault}} {
		if a.v == "" {
			continue
		}
		if !common.IsHexAddress(a.v) {
			return launch.Config{}, fmt.Errorf("%s must be a 0x address, got %q", a.name, a.v)
		}
		*a.to = common.HexToAddress(a.v)
	}
	for _, n := range []struct {
		name, v string
		to      **big.Int
	}{{"SVC_LAUNCH_SEED_WEI", c.SeedWei, &out.SeedWei}, {"SVC_LAUNCH_VAULT_AMOUNT", c.VaultAmount, &out.VaultAmount}} {
		if n.v == "" {
			continue
		}
		v, ok := new(big.Int).SetString(n.v, 10)
		if !ok || v.Sign() < 0 {
			return launch.Config{}, fmt.Errorf("%s must be a whole number, got %q", n.name, n.v)
		}
		*n.to = v
	}
	if out.SeedWei.Sign() == 0 {
		return launch.Config{}, errors.New("SVC_LAUNCH_SEED_WEI must be more than 0: the pool needs a WETH reserve")
	}
	return out, nil
}

// sponsorKey parses SponsorKey; nil when unset.
func (c LaunchConfig) sponsorKey() (*ecdsa.PrivateKey, error) {
	if c.SponsorKey == "" {
		return nil, nil
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(c.SponsorKey, "0x"))
	if err != nil {
		return nil, errors.New("SVC_GAS_SPONSOR_KEY is not a hex secp256k1 private key")
	}
	return key, nil
}

// launchActivities sponsor and record launches on the worker's chain (failing, retried, without one).
// On the dev chain the gas sponsor defaults to devchain.SponsorKey.
func launchActivities(d WorkerDeps) *activities.Launches {
	if d.Chain == nil {
		return &activities.Launches{}
	}
	key := d.GasSponsorKey
	if key == nil && d.Chain.ChainID().Cmp(big.NewInt(devchain.ChainID)) == 0 {
		key = devchain.SponsorKey()
	}
	fm := d.FeesManager
	if fm == (common.Address{}) {
		fm = devchain.FeesManagerAddress
	}
	rpc := d.Chain.Client()
	return &activities.Launches{Worker: &launch.Worker{DB: d.DB, RPC: rpc, FeesManager: fm,
		Sponsor: &sponsor.Sponsor{DB: d.DB, RPC: rpc, ChainID: d.Chain.ChainID(), Key: key}}, Fault: d.Fault}
}

// feeClaimActivities sponsor and record fee claims on the worker's chain, with the launches' sponsor
// (failing, retried, without a chain).
func feeClaimActivities(l *activities.Launches) *activities.FeeClaims {
	if l.Worker == nil {
		return &activities.FeeClaims{}
	}
	return &activities.FeeClaims{Worker: &feeclaim.Worker{DB: l.Worker.DB, RPC: l.Worker.RPC, Sponsor: l.Worker.Sponsor,
		FeesManager: l.Worker.FeesManager}}
}

// beneficiaryActivities sponsor and record beneficiary transfers on the worker's chain, with the
// launches' sponsor (failing, retried, without a chain).
func beneficiaryActivities(l *activities.Launches) *activities.Beneficiaries {
	if l.Worker == nil {
		return &activities.Beneficiaries{}
	}
	return &activities.Beneficiaries{Worker: &beneficiary.Worker{DB: l.Worker.DB, RPC: l.Worker.RPC, Sponsor: l.Worker.Sponsor,
		FeesManager: l.Worker.FeesManager}}
}

// beneficiaryService records beneficiary transfers and starts their workflows; nil without launches or a
// fee reader.
func beneficiaryService(l *launch.Service, fees *feeread.Reader) *beneficiary.Service {
	if l == nil || fees == nil {
		return nil
	}
	return &beneficiary.Service{DB: l.DB, Wallets: l.Wallets, Chain: l.Chain, Prices: l.Prices, Fees: fees, Engine: l.Engine}
}

// feeClaimService records fee claims and starts their workflows; nil without launches or a fee reader.
func feeClaimService(l *launch.Service, fees *feeread.Reader) *feeclaim.Service {
	if l == nil || fees == nil {
		return nil
	}
	return &feeclaim.Service{DB: l.DB, Wallets: l.Wallets, Chain: l.Chain, Prices: l.Prices, Fees: fees, Engine: l.Engine}
}

// launchOf is the launches' configuration (validated when the configuration was read).
func launchOf(c LaunchConfig) launch.Config {
	lc, _ := c.Launch()
	return lc
}

// launchService records launches and starts their workflows; nil without wallets or Temporal.
func launchService(wallets *wallet.Store, d APIDeps) *launch.Service {
	if wallets == nil || d.Temporal == nil {
		return nil
	}
	lc := d.Launch
	if lc.SeedWei == nil {
		lc, _ = LaunchConfig{}.Launch()
	}
	return &launch.Service{DB: d.DB, Wallets: wallets, Chain: walletChain(d), Prices: wallet.Prices{NativeCents: int64(math.Round(d.NativeUSDPrice * 100))},
		Names: d.Handles, Engine: d.Temporal, Config: lc}
}
