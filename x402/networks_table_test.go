package x402_test

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/farebox/farebox/internal/testkit/testenv"
	"github.com/farebox/farebox/x402"
)

// x402Table is what scripts/x402-networks.mjs prints.
type x402Table struct {
	Version  string `json:"version"`
	Networks []struct {
		CAIP2          string   `json:"caip2"`
		ChainID        int64    `json:"chainId"`
		V1Names        []string `json:"v1Names"`
		Asset          string   `json:"asset"`
		Name           string   `json:"name"`
		Version        string   `json:"version"`
		Decimals       int      `json:"decimals"`
		Symbol         string   `json:"symbol"`
		TransferMethod string   `json:"transferMethod"`
	} `json:"networks"`
	V1Names map[string]int64 `json:"v1Names"`
}

// TestKnownNetworksMatchX402Evm holds farebox's table to the installed,
// pinned @x402/evm: the same networks, and for each the same chain id,
// token, EIP-712 domain, decimals, transfer method and v1 name, so that a
// client of the official SDK and farebox sign and check the same digest.
func TestKnownNetworksMatchX402Evm(t *testing.T) {
	testenv.SkipShort(t, "node reads @x402/evm's table")
	if err := testenv.RequireNodeModules("", filepath.Join("@x402", "evm", "package.json")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join(testenv.Root(), "scripts", "x402-networks.mjs"))
	cmd.Dir = testenv.Root()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("scripts/x402-networks.mjs: %v", err)
	}
	var table x402Table
	if err := json.Unmarshal(out, &table); err != nil {
		t.Fatal(err)
	}
	if table.Version != "2.27.0" {
		t.Errorf("@x402/evm %s installed; the table is of 2.27.0: compare and update x402/networks_table.go", table.Version)
	}
	ours := map[string]x402.KnownNetwork{}
	for _, k := range x402.KnownNetworks() {
		ours[k.CAIP2] = k
	}
	if len(ours) != len(table.Networks) {
		t.Errorf("farebox knows %d networks, @x402/evm %d", len(ours), len(table.Networks))
	}
	for _, n := range table.Networks {
		k, ok := ours[n.CAIP2]
		if !ok {
			t.Errorf("%s (%s %s) is in @x402/evm, not in farebox", n.CAIP2, n.Symbol, n.Asset)
			continue
		}
		v1 := strings.Join(n.V1Names, ",")
		got := [...]any{k.ChainID, k.Asset, k.Name, k.Version, k.Decimals, k.Symbol, k.TransferMethod, k.V1Name}
		want := [...]any{n.ChainID, n.Asset, n.Name, n.Version, n.Decimals, n.Symbol, n.TransferMethod, v1}
		if got != want {
			t.Errorf("%s: farebox %v, @x402/evm %v (chain id, asset, name, version, decimals, symbol, transfer method, v1 name)", n.CAIP2, got, want)
		}
		if k.Alias != "" && (v1 != "" || table.V1Names[k.Alias] != 0) {
			t.Errorf("%s: farebox's alias %q shadows an x402 v1 name", n.CAIP2, k.Alias)
		}
	}
}
