// Package uniswap holds the Go bindings (abigen v2) of Uniswap V2 as the dev chain deploys it, generated
// from contracts/build by `make contracts` (do not edit the generated files). The bytecode is the audited
// build the npm packages ship, never recompiled, so the router's pair init-code hash matches the
// factory's pairs:
//
//   - Factory (factory.go): UniswapV2Factory from @uniswap/v2-core.
//   - Pair (pair.go): UniswapV2Pair from @uniswap/v2-core (reserves, swaps, events).
//   - Router (router.go): UniswapV2Router02 from @uniswap/v2-periphery (quotes with getAmountsOut /
//     getAmountsIn, swaps, liquidity).
//
// Bind a contract with New<Type>().Instance(backend, address) and use bind.Call / bind.Transact with its
// Pack*/Unpack* methods.
package uniswap
