// Package devtoken holds the Go bindings (abigen v2) of DevToken, the dev chain's second tradeable
// ERC-20: DEV ("Dev Token", 18 decimals), a fixed supply of 1,000,000 minted to its deployer.
//
// devtoken.go is generated from contracts/build/DevToken.json by `make contracts`; do not edit it.
package devtoken
