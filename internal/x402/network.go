package x402

import (
	"fmt"
	"sort"
	"strconv"
)

// legacyChainIDs maps the v1 EVM network names that the reference clients
// know (@x402/evm 2.27.0) to their chain ids.
var legacyChainIDs = map[string]uint64{
	"ethereum":           1,
	"sepolia":            11155111,
	"abstract":           2741,
	"abstract-testnet":   11124,
	"base-sepolia":       84532,
	"base":               8453,
	"avalanche-fuji":     43113,
	"avalanche":          43114,
	"iotex":              4689,
	"sei":                1329,
	"sei-testnet":        1328,
	"polygon":            137,
	"polygon-amoy":       80002,
	"peaq":               3338,
	"story":              1514,
	"educhain":           41923,
	"skale-base-sepolia": 324705682,
	"megaeth":            4326,
	"monad":              143,
	"stable":             988,
	"stable-testnet":     2201,
	"celo":               42220,
	"flare":              14,
}

// LegacyNetworkCAIP2 maps a v1 network name ("base-sepolia") to its CAIP-2 id
// ("eip155:84532"). Unknown names are refused: a v1 payload cannot name a
// chain that has no well-known v1 name (a local eip155:1337 chain, say).
func LegacyNetworkCAIP2(name string) (string, error) {
	id, ok := legacyChainIDs[name]
	if !ok {
		return "", fmt.Errorf("v1 network name %q is not a well-known EVM network (known: %v)", name, legacyNames())
	}
	return "eip155:" + strconv.FormatUint(id, 10), nil
}

// LegacyNetworkName maps a CAIP-2 id to its v1 network name, if it has one.
func LegacyNetworkName(network string) (string, error) {
	for _, name := range legacyNames() {
		if "eip155:"+strconv.FormatUint(legacyChainIDs[name], 10) == network {
			return name, nil
		}
	}
	return "", fmt.Errorf("network %q has no v1 (legacy) network name", network)
}

func legacyNames() []string {
	names := make([]string, 0, len(legacyChainIDs))
	for n := range legacyChainIDs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
