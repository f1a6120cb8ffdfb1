// Package contracts holds the on-chain parts of x402's batch-settlement and
// upto schemes, built from their published sources: x402BatchSettlement with
// its ERC-3009 and Permit2 deposit collectors and x402UptoPermit2Proxy
// (coinbase/x402, contracts/evm/src), canonical Permit2 (Uniswap/permit2),
// and farebox's two test contracts: FareboxUSDv2, the dev chain's test
// dollar (EIP-3009 with EIP-2612 permit), and DevWallet, a multi-owner
// EIP-1271 wallet. See SOURCES.md for the exact commits. The
// compiled ABI and bytecode and the Go bindings are committed, so building
// farebox needs no Node.js; `go generate` rebuilds them with pinned solc-js.
package contracts

//go:generate npm ci --no-audit --no-fund
//go:generate node compile.js
//go:generate go run bindgen.go
