package main

import (
	"context"
	"math/big"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/evm/devchain"
)

// tokenBalance reads a test-token (FareboxUSDv2) balance on chain.
func tokenBalance(t *testing.T, c *ethclient.Client, asset, who common.Address) *big.Int {
	t.Helper()
	tok := contracts.NewFareboxUSDv2()
	out, err := c.CallContract(context.Background(), ethereum.CallMsg{To: &asset, Data: tok.PackBalanceOf(who)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bal, err := tok.UnpackBalanceOf(out)
	if err != nil {
		t.Fatal(err)
	}
	return bal
}

// paidCall makes one paid call with `farebox call` and returns the
// receipt's transaction, checked mined and successful on chain. The call
// reads the dev token from the chain at rpcURL: on a chain with a
// built-in network's id (a Base Sepolia rehearsal), a seller's token is
// trusted only when the user's own chain shows it.
func paidCall(t *testing.T, c *ethclient.Client, rpcURL, base, payerKey, prompt string) *types.Receipt {
	t.Helper()
	out, err := callWith(t, strings.TrimPrefix(payerKey, "0x"), "--base-url", base, "--rpc-url", rpcURL, prompt)
	if err != nil {
		t.Fatalf("farebox call: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`receipt: success=true transaction=(0x[0-9a-f]{64})`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no successful receipt in:\n%s", out)
	}
	rec := awaitMined(t, c, common.HexToHash(m[1]))
	if rec.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("settlement %s reverted", m[1])
	}
	return rec
}

// TestDevOnExternalChainReusesItsDeployment rehearses on anvil mining
// every 2 s: `farebox dev --chain --data` deploys the dev token, funds the
// generated payer and a --fund address, and settles a paid call there; a
// restart with the same flags finds the same token and keys, funds nobody
// again and settles the next call.
func TestDevOnExternalChainReusesItsDeployment(t *testing.T) {
	anvil := chaintest.StartAnvil(t, chaintest.BlockTime(2*time.Second))
	dir := t.TempDir()
	other := common.HexToAddress("0x2222222222222222222222222222222222222222")
	flags := []string{"--chain", anvil.RPCURL, "--data", dir, "--fund", other.Hex() + "=3"}

	stop, banner := startDevCommand(t, flags...)
	base := field(t, banner, `base URL\s+(\S+)`)
	asset := common.HexToAddress(field(t, banner, `token \(USDC\)\s+(0x[0-9a-fA-F]{40})`))
	payerAddr := common.HexToAddress(field(t, banner, `address\s+(0x[0-9a-fA-F]{40})`))
	payerKey := field(t, banner, `private key\s+(0x[0-9a-f]{64})`)
	if got := field(t, banner, `chain RPC\s+(\S+)`); got != anvil.RPCURL {
		t.Errorf("banner's chain RPC %s, want anvil's %s", got, anvil.RPCURL)
	}
	if !strings.Contains(banner, "dev chain eip155:84532") || !strings.Contains(banner, devchain.DeploymentPath(dir, chaintest.ChainID)) {
		t.Errorf("banner does not name the chain and the deployment file:\n%s", banner)
	}
	if strings.Contains(payerKey, devchain.DevPayerKey) {
		t.Error("on an external chain the payer key must be generated, not the public dev key")
	}
	if got := tokenBalance(t, anvil.Client, asset, other); got.Int64() != 3_000_000 {
		t.Errorf("--fund gave %s, want 3000000", got)
	}
	payTo := common.HexToAddress(DevPayTo)
	payerBefore, payToBefore := tokenBalance(t, anvil.Client, asset, payerAddr), tokenBalance(t, anvil.Client, asset, payTo)
	if payerBefore.Int64() != 1000_000_000 {
		t.Errorf("payer holds %s, want 1000 USDC", payerBefore)
	}
	paidCall(t, anvil.Client, anvil.RPCURL, base, payerKey, "first rehearsal")
	payerAfter := tokenBalance(t, anvil.Client, asset, payerAddr)
	if spent := new(big.Int).Sub(payerBefore, payerAfter); spent.Int64() != 1000 {
		t.Errorf("payer spent %s, want 1000", spent)
	}
	if got := new(big.Int).Sub(tokenBalance(t, anvil.Client, asset, payTo), payToBefore); got.Int64() != 1000 {
		t.Errorf("payTo received %s, want 1000", got)
	}
	stop()

	info, err := os.Stat(devchain.DeploymentPath(dir, chaintest.ChainID))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("deployment file: %v, mode %v (it holds keys: want 0600)", err, info)
	}
	head, err := anvil.Client.BlockNumber(context.Background())
	if err != nil {
		t.Fatal(err)
	}

	_, banner = startDevCommand(t, flags...)
	if got := common.HexToAddress(field(t, banner, `token \(USDC\)\s+(0x[0-9a-fA-F]{40})`)); got != asset {
		t.Errorf("restart deployed a new token %s, want %s reused", got, asset)
	}
	if got := field(t, banner, `private key\s+(0x[0-9a-f]{64})`); got != payerKey {
		t.Errorf("restart changed the payer key")
	}
	if !strings.Contains(banner, "reused from") {
		t.Errorf("banner does not say the deployment was reused:\n%s", banner)
	}
	if got := tokenBalance(t, anvil.Client, asset, payerAddr); got.Cmp(payerAfter) != 0 {
		t.Errorf("restart changed the payer's balance %s -> %s: funded again", payerAfter, got)
	}
	if got := tokenBalance(t, anvil.Client, asset, other); got.Int64() != 3_000_000 {
		t.Errorf("restart funded --fund again: %s", got)
	}
	base = field(t, banner, `base URL\s+(\S+)`)
	rec := paidCall(t, anvil.Client, anvil.RPCURL, base, payerKey, "after the restart")
	if rec.BlockNumber.Uint64() <= head {
		t.Errorf("the second settlement is in block %d, not after the restart (head was %d)", rec.BlockNumber, head)
	}
	// The restart sent no transaction of its own: the first block after it
	// that holds anything holds the settlement.
	for n := head + 1; n < rec.BlockNumber.Uint64(); n++ {
		b, err := anvil.Client.BlockByNumber(context.Background(), new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Transactions()) > 0 {
			t.Errorf("block %d after the restart holds %d transactions before the paid call's", n, len(b.Transactions()))
		}
	}
	if got := tokenBalance(t, anvil.Client, asset, payerAddr); new(big.Int).Sub(payerAfter, got).Int64() != 1000 {
		t.Errorf("second call charged %s, want 1000", new(big.Int).Sub(payerAfter, got))
	}
}

// TestDevBlockTimeMinesByItself runs the in-process chain with
// --block-time 1s: blocks come without transactions, and a paid call is
// settled in one of them.
func TestDevBlockTimeMinesByItself(t *testing.T) {
	_, banner := startDevCommand(t, "--block-time", "1s")
	if !strings.Contains(banner, "a block every 1s") {
		t.Errorf("banner does not tell the block time:\n%s", banner)
	}
	rpcURL := field(t, banner, `chain RPC\s+(\S+)`)
	rpc, err := ethclient.DialContext(context.Background(), rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	defer rpc.Close()
	rec := paidCall(t, rpc, rpcURL, field(t, banner, `base URL\s+(\S+)`), "", "paid on a timed chain")
	// Nobody sends anything now: the chain still moves on past the settlement.
	waitForBlock(t, rpc, rec.BlockNumber.Uint64()+2)
}

// waitForBlock follows the chain's head until block n exists.
func waitForBlock(t *testing.T, c *ethclient.Client, n uint64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The dev chain's HTTP endpoint has no subscriptions: eth_blockNumber
	// is asked at the block interval.
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		head, err := c.BlockNumber(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if head >= n {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("block %d never came (head %d)", n, head)
		case <-tick.C:
		}
	}
}
