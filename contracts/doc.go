// Package contracts holds the Solidity sources of the dev chain's contracts
// (src/: DevUSDC, LaunchToken, LaunchPool, FeesManager), their committed build
// outputs (build/, which also holds WETH9 copied unchanged from the pinned
// @uniswap/v2-periphery npm package) and the Node.js build scripts
// (compile.mjs and extract.mjs, run by `make contracts`). bindings.txt lists
// the Go bindings generated from the build. Its only Go code is the test that
// rebuilds everything from the pinned sources and compares it with what is
// committed, including those bindings.
package contracts
