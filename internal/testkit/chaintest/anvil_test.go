package chaintest

import (
	"context"
	"math/big"
	"testing"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/farebox/farebox/x402/evm/contracts"
)

func TestStartAnvilDeploysInitialisedUSDC(t *testing.T) {
	a := StartAnvil(t)
	ctx := context.Background()
	tok := contracts.NewFareboxUSDv2()
	call := func(data []byte) []byte {
		out, err := a.Client.CallContract(ctx, ethereum.CallMsg{To: &a.Network.Asset, Data: data}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if name, _ := tok.UnpackName(call(tok.PackName())); name != "USDC" {
		t.Fatalf("name = %q, want USDC", name)
	}
	if v, _ := tok.UnpackVersion(call(tok.PackVersion())); v != "2" {
		t.Fatalf("version = %q, want 2", v)
	}
	sep, err := tok.UnpackDOMAINSEPARATOR(call(tok.PackDOMAINSEPARATOR()))
	if err != nil || sep != a.Network.DomainSeparator() {
		t.Fatalf("domain separator %x differs from the network's %x (%v)", sep, a.Network.DomainSeparator(), err)
	}
	for _, who := range []struct {
		name string
		addr [20]byte
	}{{"payer", a.Payer}, {"wallet", a.Wallet}} {
		bal, err := tok.UnpackBalanceOf(call(tok.PackBalanceOf(who.addr)))
		if err != nil || bal.Cmp(big.NewInt(PayerFunds)) != 0 {
			t.Fatalf("%s balance = %v (%v), want %d", who.name, bal, err, PayerFunds)
		}
	}
	id, err := a.Client.ChainID(ctx)
	if err != nil || id.Int64() != ChainID {
		t.Fatalf("chain id = %v (%v)", id, err)
	}
}
