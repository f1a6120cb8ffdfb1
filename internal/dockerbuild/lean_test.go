package dockerbuild

import (
	"os/exec"
	"strings"
	"testing"
)

// inProcessNode are the packages of go-ethereum's simulated backend that
// only `farebox dev` needs: an Ethereum node with its databases and p2p.
var inProcessNode = []string{
	"github.com/ethereum/go-ethereum/ethclient/simulated",
	"github.com/ethereum/go-ethereum/eth",
	"github.com/ethereum/go-ethereum/node",
	"github.com/ethereum/go-ethereum/p2p",
	"github.com/ethereum/go-ethereum/core/vm",
	"github.com/cockroachdb/pebble",
	"github.com/syndtr/goleveldb/leveldb",
	"github.com/farebox/farebox/x402/evm/devchain",
}

// TestServerBuildLinksNoInProcessNode keeps the image's build (-tags nodev)
// free of the dev chain's node, which is most of go-ethereum: a new import
// of devchain or of the simulated backend from the server's code shows up
// here, with the package that pulled it in.
func TestServerBuildLinksNoInProcessNode(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-tags", "nodev", "-deps", "-f", "{{.ImportPath}}: {{join .Imports \" \"}}", "./cmd/farebox")
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ": ")
		for _, imp := range strings.Fields(imports) {
			for _, heavy := range inProcessNode {
				if imp == heavy && !isHeavy(pkg) {
					t.Errorf("the server build links %s, imported by %s", imp, pkg)
				}
			}
		}
	}
}

// isHeavy reports whether pkg is itself part of the in-process node, so
// only the edge into it is reported.
func isHeavy(pkg string) bool {
	for _, heavy := range inProcessNode {
		if pkg == heavy || strings.HasPrefix(pkg, heavy+"/") {
			return true
		}
	}
	return false
}
