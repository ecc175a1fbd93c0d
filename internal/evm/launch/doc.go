// Package launch holds the Go bindings (abigen v2) of the token-launch
// contracts of the dev chain, generated from contracts/build by `make
// contracts` (do not edit the generated files):
//
//   - FeesManager (feesmanager.go): launches tokens (LaunchToken + LaunchPool
//     at CREATE2 addresses from the launcher and a salt) and splits each pool's
//     swap fees among its beneficiaries (creator 57 %, platform 36.1 %,
//     platform ecosystem 1.9 %, protocol 5 %; shares in WAD summing to 1e18).
//   - LaunchToken (launchtoken.go): the fixed-supply ERC-20 (100 billion × 10^18)
//     with an immutable vault.
//   - LaunchPool (launchpool.go): the constant-product pool of one token against
//     WETH, taking a 1.2 % fee from each swap's input as uncollected fees.
//   - WETH9 (weth9.go): wrapped ether, the bytecode shipped by the
//     @uniswap/v2-periphery npm package (not recompiled).
//
// Bind a contract with New<Type>().Instance(backend, address) and use
// bind.Call / bind.Transact with its Pack*/Unpack* methods.
package launch
