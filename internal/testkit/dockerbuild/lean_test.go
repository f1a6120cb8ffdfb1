package dockerbuild

import (
	"os/exec"
	"strings"
	"testing"
)

// notInServer are the packages the server build (-tags server) leaves out,
// each with the command that needs it; whole says every package under it is
// left out too (the server does use a few packages under go-ethereum's p2p,
// for one).
var notInServer = []struct {
	pkg, why string
	whole    bool
}{
	// go-ethereum's simulated backend, an in-process Ethereum node with its
	// databases and p2p: most of go-ethereum.
	{"github.com/ethereum/go-ethereum/ethclient/simulated", "farebox dev", false},
	{"github.com/ethereum/go-ethereum/eth", "farebox dev", false},
	{"github.com/ethereum/go-ethereum/node", "farebox dev", false},
	{"github.com/ethereum/go-ethereum/p2p", "farebox dev", false},
	{"github.com/ethereum/go-ethereum/core/vm", "farebox dev", false},
	{"github.com/cockroachdb/pebble", "farebox dev", false},
	{"github.com/syndtr/goleveldb/leveldb", "farebox dev", false},
	{"github.com/farebox/farebox/x402/evm/devchain", "farebox dev", false},
	// The client commands' OpenAI SDK, half the server's code before it
	// posted to upstreams with net/http, and the agent with its MCP SDK.
	{"github.com/openai/openai-go", "farebox call and chat", true},
	{"github.com/modelcontextprotocol/go-sdk", "farebox chat", true},
	{"github.com/farebox/farebox/agent", "farebox chat", true},
}

// TestServerBuildLinksOnlyTheServer keeps the image's build (-tags server)
// free of what only `farebox dev`, `call` and `chat` need: a new import of
// one of those packages from the server's code shows up here, with the
// package that pulled it in.
func TestServerBuildLinksOnlyTheServer(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "list", "-tags", "server", "-deps", "-f", "{{.ImportPath}}: {{join .Imports \" \"}}", "./cmd/farebox")
	cmd.Dir = repoRoot(t)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkgs++
		pkg, imports, _ := strings.Cut(line, ": ")
		if inLeftOut(pkg) {
			continue // only the edge into a left-out package is reported
		}
		for _, imp := range strings.Fields(imports) {
			if why := leftOut(imp); why != "" {
				t.Errorf("the server build links %s (only %s needs it), imported by %s", imp, why, pkg)
			}
		}
	}
	if pkgs < 100 {
		t.Fatalf("go list -tags server listed only %d packages", pkgs)
	}
}

// leftOut says which command needs pkg if the server build leaves it out,
// "" if the server may link it.
func leftOut(pkg string) string {
	for _, n := range notInServer {
		if pkg == n.pkg || n.whole && strings.HasPrefix(pkg, n.pkg+"/") {
			return n.why
		}
	}
	return ""
}

// inLeftOut reports whether pkg is a left-out package or lies under one.
func inLeftOut(pkg string) bool {
	for _, n := range notInServer {
		if pkg == n.pkg || strings.HasPrefix(pkg, n.pkg+"/") {
			return true
		}
	}
	return false
}
