package devchain

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// TestAttachRedeploysOnAChainThatForgot: the data dir names a token on
// chain 84532, but this anvil (same chain id, fresh state) has no code
// there: Attach deploys a new token from the given deployer key, keeps the
// generated keys and funds the payer again.
func TestAttachRedeploysOnAChainThatForgot(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	first := chaintest.StartAnvil(t)
	a, err := Attach(ctx, RemoteConfig{RPCURL: first.RPCURL, DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	first.Stop()

	second := chaintest.StartAnvil(t)
	b, err := Attach(ctx, RemoteConfig{RPCURL: second.RPCURL, DataDir: dir, DeployerKey: second.RelayerKey})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Reused {
		t.Error("a token without code was reused")
	}
	if b.Payer != a.Payer || b.Relayer != a.Relayer {
		t.Errorf("keys changed: payer %s -> %s, relayer %s -> %s", a.Payer, b.Payer, a.Relayer, b.Relayer)
	}
	if got := balanceOf(t, second.Client, b.Network.Asset, b.Payer); got.Int64() != 1000_000_000 {
		t.Errorf("payer holds %s on the fresh chain, want 1000 USDC", got)
	}
	dep, err := loadDeployment(b.Path)
	if err != nil {
		t.Fatal(err)
	}
	if want := crypto.PubkeyToAddress(second.RelayerKey.PublicKey); dep.Deployer != want || dep.Token != b.Network.Asset {
		t.Errorf("saved deployer %s token %s, want %s and %s", dep.Deployer, dep.Token, want, b.Network.Asset)
	}
	if _, ok := dep.Funded[b.Payer]; !ok || len(dep.Funded) != 1 {
		t.Errorf("saved funding %v, want the payer only", dep.Funded)
	}
	if info, err := os.Stat(b.Path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("deployment file mode: %v %v", info, err)
	}
	// The fresh anvil got the canonical contracts, and the token has permit.
	if code, err := second.Client.CodeAt(ctx, contracts.CanonicalBatchSettlement, nil); err != nil || len(code) == 0 {
		t.Errorf("no x402BatchSettlement at its canonical address (%v)", err)
	}
	if dep.TokenContract != tokenContract {
		t.Errorf("saved token contract %q, want %q", dep.TokenContract, tokenContract)
	}
	var zero common.Address
	if b.Network.Asset == zero || b.Network.V1Name != "" {
		t.Errorf("network %+v", b.Network)
	}
}
