// Package testenv is where tests find what scripts/test.sh installs before
// `go test` (anvil and the pinned npm clients in the shared node_modules at
// the repository root, the chat MCP server's own install, redis-server,
// tmux; scripts/npm-install.sh does the npm part), and where the end-to-end
// fixtures skip under -short. Tests never install anything: a missing tool
// fails the test with a message naming the script, so a run without it
// cannot pass by skipping.
package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Script is the command that installs everything the full tier needs.
const Script = "bash scripts/test.sh"

// SkipShort skips tb under -short: the fixture named by what starts a chain,
// a server, a Node process or a build, which the fast tier leaves out.
func SkipShort(tb testing.TB, what string) {
	tb.Helper()
	if testing.Short() {
		tb.Skipf("end-to-end (%s): run without -short", what)
	}
}

// SkipMainShort ends the test binary under -short, before a TestMain that
// starts chains or servers for all of its package's tests does: the whole
// package is end-to-end. Call it first in TestMain.
func SkipMainShort(m *testing.M, what string) {
	flag.Parse()
	if testing.Short() {
		fmt.Printf("skipped: end-to-end (%s): run without -short\n", what)
		os.Exit(0)
	}
}

// Root is the repository root (the folder holding go.mod and the shared
// package.json).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// NodeModules is the shared node_modules, installed by scripts/npm-install.sh
// (`npm ci` at Root).
func NodeModules() string { return filepath.Join(Root(), "node_modules") }

// LockMark is the file, inside a project's node_modules, where
// scripts/npm-install.sh keeps the SHA-256 of the package-lock.json it
// installed: an install is current when the lockfile still hashes to it.
const LockMark = ".farebox-lock.sha256"

// RequireNodeModules reports whether the npm clients of the workspace
// folder dir ("" for any) are installed: dir must be listed in the root
// package.json's workspaces (it has no lockfile of its own), the shared
// node_modules must have been installed from the root lockfile as it is
// now, and want ("" for none, else a path inside node_modules) must exist.
func RequireNodeModules(dir, want string) error {
	if dir != "" {
		if err := isWorkspace(Root(), dir); err != nil {
			return err
		}
	}
	return requireInstall(Root(), want)
}

// RequireNPMProject is RequireNodeModules for a folder with its own
// package-lock.json and node_modules (an install apart from the shared one,
// such as the chat MCP server's).
func RequireNPMProject(dir, want string) error {
	return requireInstall(dir, want)
}

// requireInstall checks that dir's node_modules was installed from dir's
// package-lock.json as it is now, judged by content: a lockfile changed by a
// checkout, or node_modules replaced by another install, both show.
func requireInstall(dir, want string) error {
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("testenv: node (20+) is not on PATH: %w", err)
	}
	modules := filepath.Join(dir, "node_modules")
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return fmt.Errorf("testenv: %w", err)
	}
	mark, err := os.ReadFile(filepath.Join(modules, LockMark))
	if err != nil {
		return fmt.Errorf("testenv: the npm test clients are not installed in %s: %s (scripts/npm-install.sh) installs them", modules, Script)
	}
	sum := sha256.Sum256(lock)
	if strings.TrimSpace(string(mark)) != hex.EncodeToString(sum[:]) {
		return fmt.Errorf("testenv: %s was installed from another package-lock.json: %s (scripts/npm-install.sh) installs it again", modules, Script)
	}
	if want != "" {
		if _, err := os.Stat(filepath.Join(modules, want)); err != nil {
			return fmt.Errorf("testenv: %s has no %s: is it in the project's package.json? (%s)", modules, want, Script)
		}
	}
	return nil
}

// isWorkspace fails unless dir is one of the root package.json's
// workspaces, whose packages the shared install holds.
func isWorkspace(root, dir string) error {
	b, err := os.ReadFile(filepath.Join(root, "package.json"))
	if err != nil {
		return fmt.Errorf("testenv: %w", err)
	}
	var pkg struct {
		Workspaces []string `json:"workspaces"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return fmt.Errorf("testenv: package.json: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("testenv: %w", err)
	}
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("testenv: %w", err)
	}
	rel, err := filepath.Rel(rootAbs, abs)
	if err != nil || !slices.Contains(pkg.Workspaces, filepath.ToSlash(rel)) {
		return fmt.Errorf("testenv: %s is not a workspace of the root package.json: add it there so `npm ci` installs its packages", dir)
	}
	return nil
}

// Binary returns the path of the program name (installed by the Debian
// package pkg), or an error naming the script that installs it.
func Binary(name, pkg string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("testenv: %s is not installed: %s installs it (apt-get install %s)", name, Script, pkg)
}
