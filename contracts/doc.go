// Package contracts holds the Solidity sources of the dev chain's contracts
// (src/), their committed build outputs (build/) and the Node.js build script
// (compile.mjs, run by `make contracts`). Its only Go code is the test that
// rebuilds everything from the pinned sources and compares it with what is
// committed, including the Go bindings in internal/evm/usdc.
package contracts
