// Package token holds farebox's test dollar (FareboxUSD, an EIP-3009 +
// EIP-712 ERC-20 with 6 decimals) and DevWallet (a multi-owner EIP-1271
// smart wallet), their Solidity sources, the compiled ABI and bytecode, and
// the generated Go bindings. The compiled files are committed, so building
// farebox needs no Node.js; `go generate` rebuilds them with the pinned solc.
package token

//go:generate npm ci --no-audit --no-fund
//go:generate node compile.js
//go:generate go run bindgen.go
