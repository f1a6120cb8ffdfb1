// Package mcptest provides a real MCP stdio server for tests: node/server.js,
// written with the official TypeScript SDK (@modelcontextprotocol/sdk from
// npm), pinned in node/package.json and node/package-lock.json: an install
// of its own (node/node_modules, about 30 MB), which the README's chat example
// runs by hand and scripts/npm-install.sh runs for the tests.
// Its tools: secret_code and lookup_city (each waits until both have
// started, and says whether they "ran in parallel"), snapshot (text and a
// PNG image) and broken (always an MCP tool error).
package mcptest

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/farebox/farebox/internal/testkit/testenv"
)

// Dir is the npm project folder holding server.js and its pins.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "node")
}

// Install skips tb under -short; else it fails tb unless node and the MCP
// SDK are installed (scripts/test.sh installs them in Dir's node_modules).
func Install(tb testing.TB) {
	tb.Helper()
	testenv.SkipShort(tb, "an MCP server in Node")
	if err := Prepare(); err != nil {
		tb.Fatal(err)
	}
}

// Prepare is Install for code without a testing.TB (examples).
func Prepare() error {
	return testenv.RequireNPMProject(Dir(), filepath.Join("@modelcontextprotocol", "sdk", "package.json"))
}

// Command is the command line that starts the server: "node /abs/server.js".
func Command() string { return "node " + filepath.Join(Dir(), "server.js") }
