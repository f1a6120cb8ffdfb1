package testenv

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Every folder with a package.json that tests run scripts from is a
// workspace, so the one `npm ci` of scripts/test.sh installs its clients.
func TestTestClientFoldersAreWorkspaces(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"interop", "internal/testkit/chaintest/node", "internal/testkit/chaintest/facilitator",
		"x402/channel/testdata/node", "gateway/testdata/node", "bench/voucher-node"} {
		if err := isWorkspace(Root(), filepath.Join(Root(), dir)); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(filepath.Join(Root(), dir, "package-lock.json")); err == nil {
			t.Errorf("%s has its own package-lock.json: the root lockfile pins the workspaces", dir)
		}
	}
}

// The installs a newcomer runs by hand (the README's examples, the chat MCP
// server) are projects of their own: a lockfile each and no place in the
// root's workspaces, so `npm ci` in one never replaces the shared
// node_modules, and the shared install never removes theirs.
func TestNewcomerInstallsAreTheirOwnProjects(t *testing.T) {
	t.Parallel()
	script, err := os.ReadFile(filepath.Join(Root(), "scripts", "npm-install.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"internal/testkit/mcptest/node", "interop/examples/openai-node", "interop/examples/vercel-ai"} {
		if err := isWorkspace(Root(), filepath.Join(Root(), dir)); err == nil {
			t.Errorf("%s is a workspace of the root package.json: its npm ci would replace the shared node_modules", dir)
		}
		if _, err := os.Stat(filepath.Join(Root(), dir, "package-lock.json")); err != nil {
			t.Errorf("%s: %v: a project of its own needs its lockfile", dir, err)
		}
	}
	if !strings.Contains(string(script), "internal/testkit/mcptest/node") {
		t.Error("scripts/npm-install.sh does not install internal/testkit/mcptest/node, which the chat and agent tests run")
	}
}

// An install is judged by the lockfile's content, not by timestamps: a
// node_modules newer than a changed lockfile is still stale, and one older
// than an unchanged (touched) lockfile is still current.
func TestInstallIsJudgedByTheLockfilesContent(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	dir := t.TempDir()
	lock := filepath.Join(dir, "package-lock.json")
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(lock, `{"lockfileVersion":3}`)
	if err := RequireNPMProject(dir, ""); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Fatalf("no node_modules: %v, want not installed", err)
	}
	sum := sha256.Sum256([]byte(`{"lockfileVersion":3}`))
	write(filepath.Join(dir, "node_modules", LockMark), hex.EncodeToString(sum[:])+"\n")
	write(filepath.Join(dir, "node_modules", "pkg", "package.json"), `{}`)
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "node_modules", LockMark), old, old); err != nil {
		t.Fatal(err)
	}
	if err := RequireNPMProject(dir, filepath.Join("pkg", "package.json")); err != nil {
		t.Fatalf("installed from this lockfile (older than it): %v", err)
	}
	if err := RequireNPMProject(dir, filepath.Join("other", "package.json")); err == nil || !strings.Contains(err.Error(), "has no") {
		t.Fatalf("missing package: %v", err)
	}
	write(lock, `{"lockfileVersion":3,"packages":{}}`)
	if err := os.Chtimes(lock, old.Add(-time.Hour), old.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := RequireNPMProject(dir, ""); err == nil || !strings.Contains(err.Error(), "another package-lock.json") || !strings.Contains(err.Error(), Script) {
		t.Fatalf("lockfile changed (but older than node_modules): %v, want stale naming %s", err, Script)
	}
}

func TestOutsideFolderIsNotAWorkspace(t *testing.T) {
	t.Parallel()
	err := isWorkspace(Root(), filepath.Join(Root(), "bench", "portkey"))
	if err == nil || !strings.Contains(err.Error(), "not a workspace") {
		t.Fatalf("bench/portkey: %v, want not a workspace", err)
	}
}

func TestMissingBinaryNamesTheScript(t *testing.T) {
	t.Parallel()
	_, err := Binary("farebox-no-such-program", "no-such-package")
	if err == nil || !strings.Contains(err.Error(), Script) {
		t.Fatalf("err = %v, want it to name %s", err, Script)
	}
}
