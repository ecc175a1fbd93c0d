package x402

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// Bounds on Config.MaxTimeoutSeconds.
const (
	// MinTimeoutSeconds leaves room for SettlementMargin and clock skew.
	MinTimeoutSeconds = 30
	// MaxTimeoutSecondsLimit caps how long an offer may stay payable (one day).
	MaxTimeoutSecondsLimit = 86400
)

// Config describes what svc accepts as payment: one EIP-3009 token (Asset)
// on one EVM chain, paid to PayTo. Name and Version are the token's EIP-712
// domain name and version ("USD Coin" / "2" for USDC on Base); they travel to
// clients in requirements.extra and must match the contract, or every
// signature recovers a stranger.
type Config struct {
	// Network is the CAIP-2 id, "eip155:<ChainID>".
	Network string
	// ChainID is the EVM chain id; it must agree with Network.
	ChainID *big.Int
	// Asset is the token contract (EIP-712 verifyingContract).
	Asset common.Address
	// PayTo receives the payments.
	PayTo common.Address
	// Name is the token's EIP-712 domain name.
	Name string
	// Version is the token's EIP-712 domain version.
	Version string
	// MaxTimeoutSeconds is how long an authorization may stay valid; clients
	// set validBefore = now + MaxTimeoutSeconds.
	MaxTimeoutSeconds int
}

// Validate reports the first problem with c, or nil.
func (c Config) Validate() error {
	id, err := ParseNetwork(c.Network)
	if err != nil {
		return fmt.Errorf("x402 config: %w", err)
	}
	if c.ChainID == nil || c.ChainID.Cmp(id) != 0 {
		return fmt.Errorf("x402 config: chain id %v does not match network %q", c.ChainID, c.Network)
	}
	if c.Asset == (common.Address{}) {
		return errors.New("x402 config: asset address is zero")
	}
	if c.PayTo == (common.Address{}) {
		return errors.New("x402 config: payTo address is zero")
	}
	if c.Name == "" || c.Version == "" {
		return errors.New("x402 config: EIP-712 domain name and version are required")
	}
	if c.MaxTimeoutSeconds < MinTimeoutSeconds || c.MaxTimeoutSeconds > MaxTimeoutSecondsLimit {
		return fmt.Errorf("x402 config: maxTimeoutSeconds %d is outside [%d, %d]",
			c.MaxTimeoutSeconds, MinTimeoutSeconds, MaxTimeoutSecondsLimit)
	}
	return nil
}

// ParseNetwork returns the chain id of a CAIP-2 EVM network such as
// "eip155:8453". The reference must be a positive decimal without leading zeros.
func ParseNetwork(network string) (*big.Int, error) {
	ref, ok := strings.CutPrefix(network, "eip155:")
	if !ok {
		return nil, fmt.Errorf("network %q is not a CAIP-2 EVM network (eip155:<chainId>)", network)
	}
	if ref == "" || ref[0] == '0' || len(ref) > 32 || strings.Trim(ref, "0123456789") != "" {
		return nil, fmt.Errorf("network %q has no valid decimal chain id", network)
	}
	id, ok := new(big.Int).SetString(ref, 10)
	if !ok {
		return nil, fmt.Errorf("network %q has no valid decimal chain id", network)
	}
	return id, nil
}

// Domain returns the token's EIP-712 domain described by c.
func (c Config) Domain() Domain {
	return Domain{Name: c.Name, Version: c.Version, ChainID: c.ChainID, VerifyingContract: c.Asset}
}

// Requirements returns the exact-scheme offer for amountAtomic token units.
func (c Config) Requirements(amountAtomic *big.Int) PaymentRequirements {
	return PaymentRequirements{
		Scheme:            SchemeExact,
		Network:           c.Network,
		Amount:            amountAtomic.String(),
		Asset:             c.Asset.Hex(),
		PayTo:             c.PayTo.Hex(),
		MaxTimeoutSeconds: c.MaxTimeoutSeconds,
		Extra:             map[string]any{"name": c.Name, "version": c.Version},
	}
}

// NewPaymentRequired builds the v2 PaymentRequired for a 402 answer. (It is not
// named PaymentRequired because that is the type's name.)
func NewPaymentRequired(resourceURL, description string, reqs ...PaymentRequirements) PaymentRequired {
	return PaymentRequired{
		X402Version: Version,
		Resource:    ResourceInfo{URL: resourceURL, Description: description, MimeType: "application/json"},
		Accepts:     reqs,
	}
}

// CentsToAtomic converts a USD amount in cents to atomic units of a USD
// stable coin with the given decimals (6 for USDC: 2500 cents -> 25000000).
func CentsToAtomic(cents int64, decimals int) (*big.Int, error) {
	if cents <= 0 {
		return nil, fmt.Errorf("x402: amount %d cents is not positive", cents)
	}
	if decimals < 2 || decimals > 36 {
		return nil, fmt.Errorf("x402: token decimals %d unsupported", decimals)
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals-2)), nil)
	return scale.Mul(scale, big.NewInt(cents)), nil
}

// V1 converts r to the v1 shape, for a facilitator given a v1 payload.
// resourceURL is required by v1; the network must have a well-known v1 name.
func (r PaymentRequirements) V1(resourceURL, description string) (PaymentRequirementsV1, error) {
	name, err := LegacyNetworkName(r.Network)
	if err != nil {
		return PaymentRequirementsV1{}, err
	}
	return PaymentRequirementsV1{
		Scheme: r.Scheme, Network: name, MaxAmountRequired: r.Amount,
		Resource: resourceURL, Description: description, MimeType: "application/json",
		PayTo: r.PayTo, MaxTimeoutSeconds: r.MaxTimeoutSeconds, Asset: r.Asset, Extra: r.Extra,
	}, nil
}
