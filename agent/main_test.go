package agent_test

import (
	"context"
	"io"
	"log/slog"
	"math/big"
	"net"
	"os"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/testenv"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/farebox/farebox/x402/payer"
)

// price is what farebox-scripted costs per turn here, in atomic units.
const price = 1000

var payTo = common.HexToAddress("0x90F79bf6EB2c4f870365E785982E1f101E93b906")

// dev is what `farebox dev` runs, in process: the dev chain, the chain
// settler and the scripted model, paid and free.
var dev struct {
	chain *devchain.Chain
	url   string // base URL with /v1
}

func TestMain(m *testing.M) {
	testenv.SkipMainShort(m, "the agent loop against farebox on the dev chain, MCP servers from npm")
	ctx := context.Background()
	chain, err := devchain.Start(ctx, devchain.Config{})
	if err != nil {
		panic(err)
	}
	settler, err := evm.NewSettler(ctx, chain.Client, chain.RelayerKey)
	if err != nil {
		panic(err)
	}
	settler.PollInterval = 10 * time.Millisecond
	cfg := gateway.Config{
		Models: []gateway.ModelConfig{
			{Name: "farebox-scripted", Upstream: "scripted", Price: x402.FormatUSDC(big.NewInt(price))},
			{Name: "farebox-scripted-free", Upstream: "scripted", Price: "0"},
		},
		Payments: gateway.PaymentsConfig{PayTo: payTo.Hex(), Networks: []string{chain.Network.CAIP2}},
	}
	srv, err := gateway.New(cfg, gateway.Options{Networks: []*x402.Network{chain.Network}, Settler: settler,
		Checker: evm.NewChecker(chain.Client, true), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go srv.Serve(ln)
	dev.chain, dev.url = chain, "http://"+ln.Addr().String()+"/v1/"
	code := m.Run()
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	srv.Shutdown(sctx)
	cancel()
	chain.Close()
	os.Exit(code)
}

// balance is the dev payer's test USDC, read from the chain.
func balance(t *testing.T) *big.Int {
	t.Helper()
	settled(t)
	token := dev.chain.Network.Asset
	data := append(common.FromHex("0x70a08231"), common.LeftPadBytes(dev.chain.Payer.Bytes(), 32)...)
	out, err := dev.chain.Client.CallContract(context.Background(), ethereum.CallMsg{To: &token, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(out)
}

// transport pays with the dev payer on the dev chain.
func transport(t *testing.T) *payer.Transport {
	reg, err := x402.NewRegistry(dev.chain.Network)
	if err != nil {
		t.Fatal(err)
	}
	return payer.NewTransport(payer.NewSigner(dev.chain.PayerKey), payer.WithNetworks(reg), payer.WithChain(dev.chain.Client))
}

// mined checks that tx is a successful transaction on the dev chain.
func mined(t *testing.T, tx string) {
	t.Helper()
	settled(t)
	r, err := dev.chain.Client.TransactionReceipt(context.Background(), common.HexToHash(tx))
	if err != nil || r.Status != 1 {
		t.Fatalf("transaction %s is not mined: %v", tx, err)
	}
}

// settled waits until every transaction the dev relayer sent is mined:
// farebox answers a paid call once its transfer is broadcast, before its
// block, so balances are read after that.
func settled(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := devchain.AwaitMined(ctx, dev.chain.Client, dev.chain.Relayer); err != nil {
		t.Fatal(err)
	}
}
