// Package mcptest provides a real MCP stdio server for tests: node/server.js,
// written with the official TypeScript SDK (@modelcontextprotocol/sdk from
// npm), installed on first use from the lockfile in node/ with `npm ci`.
// Its tools: secret_code and lookup_city (each waits until both have
// started, and says whether they "ran in parallel"), snapshot (text and a
// PNG image) and broken (always an MCP tool error).
package mcptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// Dir is the folder holding server.js, package.json and package-lock.json.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "node")
}

// Install runs `npm ci` in Dir unless node_modules already matches the
// lockfile; it fails the test when node or npm is missing. A file lock
// keeps parallel test binaries from installing at once.
func Install(tb testing.TB) {
	tb.Helper()
	if err := Prepare(); err != nil {
		tb.Fatal(err)
	}
}

// Prepare is Install for code without a testing.TB (examples).
func Prepare() error {
	dir := Dir()
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("mcptest: node is required (Node 20+): %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return fmt.Errorf("mcptest: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("mcptest: locking %s: %w", dir, err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if installed(dir) {
		return nil
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("mcptest: npm ci in %s: %w\n%s", dir, err, out)
	}
	if !installed(dir) {
		return fmt.Errorf("mcptest: npm ci in %s did not install the MCP SDK", dir)
	}
	return nil
}

// installed reports whether node_modules is at least as new as the
// lockfile and holds the SDK.
func installed(dir string) bool {
	lockInfo, err := os.Stat(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return false
	}
	mark, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	if err != nil || mark.ModTime().Before(lockInfo.ModTime()) {
		return false
	}
	_, err = os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	return err == nil
}

// Command is the command line that starts the server: "node /abs/server.js".
func Command() string { return "node " + filepath.Join(Dir(), "server.js") }
