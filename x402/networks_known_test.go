package x402_test

import (
	"strings"
	"testing"

	"github.com/farebox/farebox/x402"
)

// TestBuiltinNetworksAreTheKnownPayableOnes: every EIP-3009 network of the
// table is built in by CAIP-2 id and by name, Base and Base Sepolia are the
// package's values, and a Permit2 token is refused with its reason.
func TestBuiltinNetworksAreTheKnownPayableOnes(t *testing.T) {
	reg := x402.DefaultRegistry()
	if reg.ByName("base") != x402.Base || reg.ByName("eip155:84532") != x402.BaseSepolia {
		t.Fatal("base and base-sepolia are not the package's networks")
	}
	payable := 0
	for _, k := range x402.KnownNetworks() {
		n := reg.ByCAIP2(k.CAIP2)
		if !k.Payable() {
			if n != nil {
				t.Errorf("%s is built in though farebox cannot pay its %s", k.CAIP2, k.TransferMethod)
			}
			if msg := x402.UnknownNetwork(k.CAIP2); !strings.Contains(msg, k.TransferMethod) {
				t.Errorf("%s refused without its reason: %s", k.CAIP2, msg)
			}
			continue
		}
		payable++
		if n == nil || n.Validate() != nil {
			t.Fatalf("%s not built in", k.CAIP2)
		}
		for _, name := range []string{k.V1Name, k.Alias} {
			if name != "" && reg.ByName(name) != n {
				t.Errorf("%q does not name %s", name, k.CAIP2)
			}
		}
		if n.Asset.Hex() != k.Asset || n.Name != k.Name || n.Version != k.Version || n.ChainID.Int64() != k.ChainID {
			t.Errorf("%s built as %+v", k.CAIP2, n)
		}
	}
	if len(reg.Networks()) != payable {
		t.Errorf("%d built in, %d payable", len(reg.Networks()), payable)
	}
	for _, name := range []string{"polygon", "arbitrum", "avalanche", "celo", "eip155:42161"} {
		if reg.ByName(name) == nil {
			t.Errorf("%q is not built in", name)
		}
	}
	if !x402.IsMainnet("base") || x402.IsMainnet("base-sepolia") || !x402.IsTestnet("eip155:84532") || x402.IsMainnet("eip155:31337") {
		t.Error("mainnet/testnet misjudged")
	}
}
