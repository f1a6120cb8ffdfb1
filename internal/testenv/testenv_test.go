package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every folder with a package.json that tests run scripts from is a
// workspace, so the one `npm ci` of scripts/test.sh installs its clients.
func TestTestClientFoldersAreWorkspaces(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{"interop", "internal/chaintest/node", "internal/chaintest/facilitator",
		"internal/mcptest/node", "x402/channel/testdata/node", "gateway/testdata/node", "bench/voucher-node"} {
		if err := isWorkspace(Root(), filepath.Join(Root(), dir)); err != nil {
			t.Error(err)
		}
		if _, err := os.Stat(filepath.Join(Root(), dir, "package-lock.json")); err == nil {
			t.Errorf("%s has its own package-lock.json: the root lockfile pins the workspaces", dir)
		}
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
