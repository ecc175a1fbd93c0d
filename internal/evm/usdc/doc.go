// Package usdc holds the Go bindings (abigen v2) of DevUSDC, the USDC-like
// ERC-20 the dev chain uses: 6 decimals, owner-only mint, the EIP-712 domain
// ("USD Coin", "2") and Circle FiatToken v2's EIP-3009 authorizations.
//
// usdc.go is generated from contracts/build/DevUSDC.json by `make contracts`;
// do not edit it. Deploy with bind.DeployContract(opts,
// common.FromHex(USDCMetaData.Bin), backend, nil), then bind a *USDC from
// NewUSDC to the address with Instance and use bind.Call / bind.Transact with
// its Pack*/Unpack* methods.
//
// Overloads: the EIP-3009 methods exist in two forms. The unsuffixed Go name
// (e.g. PackTransferWithAuthorization) is the (v, r, s) form; the "0" suffix
// (PackTransferWithAuthorization0) is the `bytes signature` form, which also
// accepts ERC-1271 contract-wallet signatures. The same holds for
// ReceiveWithAuthorization and CancelAuthorization.
package usdc
