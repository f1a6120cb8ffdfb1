package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/devchain"
)

// DevPayTo receives the dev gateway's payments: anvil/hardhat account #3, a
// publicly known address, so balances are easy to look up.
const DevPayTo = "0x90F79bf6EB2c4f870365E785982E1f101E93b906"

// fundFlags collects repeated --fund 0xADDR=AMOUNT flags.
type fundFlags []string

func (f *fundFlags) String() string     { return strings.Join(*f, ",") }
func (f *fundFlags) Set(v string) error { *f = append(*f, v); return nil }

// devSetup is what `farebox dev` runs: the chain and the gateway's config.
type devSetup struct {
	chain *devchain.Chain
	cfg   gateway.Config
	opts  gateway.Options
}

func runDev(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("dev", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8402", "listen address")
	chainID := fs.Int64("chain-id", 1337, "chain id of the embedded dev chain (CAIP-2 eip155:<id>)")
	rpcAddr := fs.String("rpc-addr", "127.0.0.1:8545", `serve the dev chain's JSON-RPC here for wallets and tools ("" = off)`)
	price := fs.String("price", "0.001", "USDC per call of farebox-scripted")
	pace := fs.Duration("pace", 0, "the scripted model's delay between deltas (e.g. 30ms)")
	settle := fs.String("settle", "after", "settle after the answer (after) or before the model is called (before)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	keepalive := fs.Duration("keepalive", 15*time.Second, "SSE keep-alive comment interval while a stream waits")
	var funds fundFlags
	fs.Var(&funds, "fund", "fund another payer with test USDC: 0xADDR=AMOUNT (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	d, err := startDev(ctx, devFlags{addr: *addr, chainID: *chainID, rpcAddr: *rpcAddr, price: *price,
		pace: *pace, settle: *settle, logLevel: *logLevel, funds: funds})
	if err != nil {
		return err
	}
	defer d.chain.Close()
	d.cfg.Keepalive = gateway.Duration(*keepalive)
	srv, err := gateway.New(d.cfg, d.opts)
	if err != nil {
		return err
	}
	return serveUntilDone(ctx, srv, d.cfg, func(base string) { d.banner(stdout, base) })
}

type devFlags struct {
	addr, rpcAddr, price, settle, logLevel string
	chainID                                int64
	pace                                   time.Duration
	funds                                  []string
}

// startDev starts the in-process chain and builds the gateway's config
// for it. Tests use it to run exactly what `farebox dev` runs.
func startDev(ctx context.Context, f devFlags) (*devSetup, error) {
	chain, err := devchain.Start(ctx, devchain.Config{ChainID: f.chainID, RPCAddr: f.rpcAddr})
	if err != nil {
		return nil, fmt.Errorf("dev chain: %w", err)
	}
	fail := func(err error) (*devSetup, error) { chain.Close(); return nil, err }
	for _, spec := range f.funds {
		addr, amount, err := parseFund(spec)
		if err != nil {
			return fail(err)
		}
		if err := chain.Fund(ctx, addr, amount); err != nil {
			return fail(fmt.Errorf("--fund %s: %w", spec, err))
		}
	}
	settler, err := evm.NewSettler(ctx, chain.Client, chain.RelayerKey)
	if err != nil {
		return fail(err)
	}
	settler.PollInterval = 10 * time.Millisecond // the dev chain mines at once
	cfg := gateway.Config{
		Addr:     f.addr,
		LogLevel: f.logLevel,
		Models: []gateway.ModelConfig{
			{Name: "farebox-scripted", Upstream: "scripted", Price: f.price, Pace: gateway.Duration(f.pace),
				Description: "farebox's scripted dev model"},
			{Name: "farebox-scripted-free", Upstream: "scripted", Price: "0", Pace: gateway.Duration(f.pace)},
		},
		Payments: gateway.PaymentsConfig{PayTo: DevPayTo, Networks: []string{chain.Network.CAIP2}, Settle: f.settle},
		CORS:     gateway.CORSConfig{AllowedOrigins: []string{"*"}}, // dev: any page may call it
	}
	opts := gateway.Options{
		Networks: []*x402.Network{chain.Network},
		Settler:  settler,
		Checker:  evm.NewChecker(chain.Client, true),
		Ready:    settler.Ready,
	}
	return &devSetup{chain: chain, cfg: cfg, opts: opts}, nil
}

func parseFund(spec string) (common.Address, *big.Int, error) {
	a, amt, ok := strings.Cut(spec, "=")
	if !ok || !common.IsHexAddress(a) {
		return common.Address{}, nil, fmt.Errorf("--fund %q: want 0xADDRESS=AMOUNT", spec)
	}
	n, err := x402.ParseUSDC(amt)
	if err != nil {
		return common.Address{}, nil, fmt.Errorf("--fund %q: %w", spec, err)
	}
	if n.Sign() == 0 {
		return common.Address{}, nil, errors.New("--fund: amount must be positive")
	}
	return common.HexToAddress(a), n, nil
}

func (d *devSetup) banner(w io.Writer, base string) {
	c := d.chain
	fmt.Fprintf(w, `farebox dev is running.

  base URL        %s
  models          farebox-scripted (%s USDC per call), farebox-scripted-free
  chain           in-process dev chain %s (state lives in memory and is gone on exit)
  chain RPC       %s
  token (USDC)    %s  (EIP-712 %q version %q)
  payments to     %s

  DEV PAYER (a publicly known test key: never send it anything of value)
  address         %s
  private key     0x%s

Try it:  FAREBOX_PAYER_KEY=0x%s farebox call --base-url %s "hello"
`, base, d.cfg.Models[0].Price, c.Network.CAIP2, orNone(c.RPCURL), c.Network.Asset.Hex(), c.Network.Name, c.Network.Version,
		DevPayTo, c.Payer.Hex(), devchain.DevPayerKey, devchain.DevPayerKey, base)
}

func orNone(s string) string {
	if s == "" {
		return "(not served)"
	}
	return s
}
