package devchain

import (
	"context"
	"errors"
	"math/big"
	"net"
	"syscall"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/farebox/farebox/x402/evm/contracts"
)

func balanceOf(t *testing.T, c interface {
	CallContract(context.Context, ethereum.CallMsg, *big.Int) ([]byte, error)
}, asset, who common.Address) *big.Int {
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

func TestStartDeploysTokenAndFundsPayerOverHTTP(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Start(ctx, Config{ChainID: 31337, RPCAddr: "127.0.0.1:0", V1Name: "farebox-dev"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got, want := c.Network.CAIP2, "eip155:31337"; got != want {
		t.Fatalf("CAIP2 = %q, want %q", got, want)
	}
	if got, want := c.Payer.Hex(), "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"; got != want {
		t.Fatalf("payer = %s, want %s", got, want)
	}
	// A real JSON-RPC client over HTTP sees the same chain.
	cl, err := ethclient.DialContext(ctx, c.RPCURL)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	id, err := cl.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if id.Int64() != 31337 {
		t.Fatalf("chain id over HTTP = %s", id)
	}
	if got, want := balanceOf(t, cl, c.Network.Asset, c.Payer), big.NewInt(1000_000_000); got.Cmp(want) != 0 {
		t.Fatalf("payer balance = %s, want %s", got, want)
	}
	eth, err := cl.BalanceAt(ctx, c.Relayer, nil)
	if err != nil || eth.Sign() <= 0 {
		t.Fatalf("relayer ETH = %v, %v", eth, err)
	}
	// Fund mines without anyone calling Commit.
	other := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	if err := c.Fund(ctx, other, big.NewInt(42)); err != nil {
		t.Fatal(err)
	}
	if got := balanceOf(t, cl, c.Network.Asset, other); got.Int64() != 42 {
		t.Fatalf("funded balance = %s, want 42", got)
	}
	if err := c.Network.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestBlockTimeMinesEmptyBlocksAndTransactions(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Four blocks a second, each stamped a second after its parent: a
	// minute of drift keeps the miner from waiting for the clock.
	c, err := Start(ctx, Config{BlockTime: 250 * time.Millisecond, MaxDrift: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	heads := make(chan *types.Header, 16)
	sub, err := c.Client.SubscribeNewHead(ctx, heads)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	// Nobody sends anything: blocks still come, one after another.
	var last uint64
	for i := 0; i < 3; i++ {
		select {
		case h := <-heads:
			if h.Number.Uint64() <= last {
				t.Fatalf("block %d after block %d", h.Number, last)
			}
			last = h.Number.Uint64()
		case err := <-sub.Err():
			t.Fatal(err)
		case <-ctx.Done():
			t.Fatalf("no block %d mined by itself", i+1)
		}
	}
	// A transaction is mined by the interval miner too.
	other := common.HexToAddress("0x00000000000000000000000000000000000000bb")
	if err := c.Fund(ctx, other, big.NewInt(7)); err != nil {
		t.Fatal(err)
	}
	if got := balanceOf(t, c.Client, c.Network.Asset, other); got.Int64() != 7 {
		t.Fatalf("funded balance = %s, want 7", got)
	}
}

// TestMaxDriftKeepsTimestampsNearTheClock: blocks mined faster than one a
// second (each is stamped a second after its parent) wait for the wall
// clock once the head is MaxDrift ahead, so validity windows stay honest.
func TestMaxDriftKeepsTimestampsNearTheClock(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Start(ctx, Config{MaxDrift: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// Start mined two blocks; two more would stamp the head 3 s ahead
	// without the wait.
	for i := range 2 {
		if err := c.Fund(ctx, common.BigToAddress(big.NewInt(int64(0xcc+i))), big.NewInt(1)); err != nil {
			t.Fatal(err)
		}
		head, err := c.Client.HeaderByNumber(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if now := uint64(time.Now().Unix()); head.Time > now+1 {
			t.Fatalf("block %d stamped %d s ahead of the clock, want at most 1", head.Number, head.Time-now)
		}
	}
}

func TestStartRefusesATakenRPCAddress(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = Start(context.Background(), Config{RPCAddr: l.Addr().String()})
	var addrErr *RPCAddrError
	if !errors.As(err, &addrErr) || addrErr.Addr != l.Addr().String() {
		t.Fatalf("Start on a taken address: %v, want an RPCAddrError naming %s", err, l.Addr())
	}
	if !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("error %v does not wrap EADDRINUSE", err)
	}
}

func TestStartHoldsCanonicalContractsAndPermitToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Start(ctx, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, a := range []common.Address{contracts.CanonicalPermit2, contracts.CanonicalBatchSettlement,
		contracts.CanonicalERC3009DepositCollector, contracts.CanonicalPermit2DepositCollector, contracts.CanonicalUptoPermit2Proxy} {
		code, err := c.Client.CodeAt(ctx, a, nil)
		if err != nil || len(code) == 0 {
			t.Fatalf("no code at %s (%v)", a, err)
		}
	}
	// EIP-2612: the dev token answers nonces(owner).
	tok := contracts.NewFareboxUSDv2()
	asset := c.Network.Asset
	out, err := c.Client.CallContract(ctx, ethereum.CallMsg{To: &asset, Data: tok.PackNonces(c.Payer)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := tok.UnpackNonces(out); err != nil || n.Sign() != 0 {
		t.Fatalf("nonces(payer) = %v, %v", n, err)
	}
}
