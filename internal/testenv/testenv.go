// Package testenv is where tests find what scripts/test.sh installs before
// `go test` (anvil and the pinned npm clients in the shared node_modules at
// the repository root, redis-server, tmux), and where the end-to-end
// fixtures skip under -short. Tests never install anything: a missing tool
// fails the test with a message naming the script, so a run without it
// cannot pass by skipping.
package testenv

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
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
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// NodeModules is the shared node_modules, installed by `npm ci` at Root.
func NodeModules() string { return filepath.Join(Root(), "node_modules") }

// RequireNodeModules reports whether the npm clients of the workspace
// folder dir ("" for any) are installed: dir must be listed in the root
// package.json's workspaces (it has no lockfile of its own), node_modules
// must be no older than the root lockfile, and want ("" for none, else a
// path inside node_modules) must exist.
func RequireNodeModules(dir, want string) error {
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("testenv: node (20+) is not on PATH: %w", err)
	}
	root := Root()
	if dir != "" {
		if err := isWorkspace(root, dir); err != nil {
			return err
		}
	}
	missing := fmt.Errorf("testenv: the npm test clients are not installed in %s: %s runs `npm ci` at the repository root once", NodeModules(), Script)
	lock, err := os.Stat(filepath.Join(root, "package-lock.json"))
	if err != nil {
		return fmt.Errorf("testenv: %w", err)
	}
	mark, err := os.Stat(filepath.Join(NodeModules(), ".package-lock.json"))
	if err != nil {
		return missing
	}
	if mark.ModTime().Before(lock.ModTime()) {
		return fmt.Errorf("testenv: %s is older than package-lock.json: %s runs `npm ci` again", NodeModules(), Script)
	}
	if want != "" {
		if _, err := os.Stat(filepath.Join(NodeModules(), want)); err != nil {
			return fmt.Errorf("testenv: %s has no %s: is it in a workspace's package.json? (%s)", NodeModules(), want, Script)
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
