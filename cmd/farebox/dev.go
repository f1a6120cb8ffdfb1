//go:build !server

// The dev command links go-ethereum's simulated backend (an in-process
// Ethereum node: state database, EVM, p2p types); the production build
// (-tags server, see server.go) leaves it and this file out.

package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/upstream/scripted"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/devchain"
)

// DevPayTo receives the dev gateway's payments: anvil/hardhat account #3, a
// publicly known address, so balances are easy to look up.
const DevPayTo = "0x90F79bf6EB2c4f870365E785982E1f101E93b906"

// devFlags are `farebox dev`'s flags.
type devFlags struct {
	addr, rpcAddr, price, settle, logLevel string
	chainID                                int64
	pace, blockTime, keepalive             time.Duration
	claimInterval                          time.Duration
	funds                                  []string
	chain, dataDir, deployerKey            string
}

// DevMain is `farebox dev`: a chain (in process, or --chain) with the dev
// token and a funded payer, the chain settler and the scripted models
// behind one gateway.
type DevMain struct {
	Main
	flags  devFlags
	getenv func(string) string
	net    *devNet
	// adminToken opens the admin API and dashboard (printed in the banner).
	adminToken string
}

// NewDevMain returns a dev command writing to stdout and stderr.
func NewDevMain(stdout, stderr io.Writer, getenv func(string) string) *DevMain {
	return &DevMain{Main: Main{Stdout: stdout, Stderr: stderr, AddrFlag: "--addr"}, getenv: getenv}
}

// ParseFlags reads `farebox dev`'s flags; -h prints them and is no error.
func (m *DevMain) ParseFlags(args []string) error {
	fs := newFlagSet("dev", "[flags]", "Run everything on one machine with nothing installed: the gateway, a chain (in\nprocess, or --chain URL) with a test USDC and a funded payer, and scripted models.", m.Stderr)
	f := &m.flags
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8402", "listen address")
	fs.Int64Var(&f.chainID, "chain-id", 1337, "chain id of the in-process dev chain (CAIP-2 eip155:<id>)")
	fs.StringVar(&f.rpcAddr, "rpc-addr", "127.0.0.1:8545", `serve the in-process chain's JSON-RPC here for wallets and tools ("" = off)`)
	fs.DurationVar(&f.blockTime, "block-time", 0, "mine the in-process chain at this interval, like a real chain (e.g. 2s; 0 = a block per transaction)")
	fs.StringVar(&f.chain, "chain", "", "JSON-RPC URL of an external chain (anvil, a testnet fork) to deploy the dev token on and settle on, instead of the in-process chain")
	fs.StringVar(&f.dataDir, "data", "", "keep the --chain deployment (token, generated keys, who was funded) and the gateway's settlement journal in this directory")
	deployerFile := fs.String("deployer-key-file", "", "file holding the hex key that deploys the dev token on --chain and funds (or env FAREBOX_DEPLOYER_KEY; default: the node's eth_accounts[0])")
	deployerFlag := fs.String("deployer-key", "", "deprecated: a key on the command line ends up in shell history and ps; use FAREBOX_DEPLOYER_KEY or --deployer-key-file")
	fs.StringVar(&f.price, "price", "0.001", "USDC per call of farebox-scripted")
	fs.DurationVar(&f.pace, "pace", 0, "the scripted model's delay between deltas (e.g. 30ms)")
	fs.DurationVar(&f.claimInterval, "claim-interval", 5*time.Second, "claim the batch-settlement channels' vouchers on chain this often")
	fs.StringVar(&f.settle, "settle", "after", "settle after the answer (after) or before the model is called (before)")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.DurationVar(&f.keepalive, "keepalive", 15*time.Second, "SSE keep-alive comment interval while a stream waits")
	var funds fundFlags
	fs.Var(&funds, "fund", "fund another payer with test USDC: 0xADDR=AMOUNT (repeatable)")
	err := fs.parse(args)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("dev takes no arguments, got %q (flags go before them)", strings.Join(fs.Args(), " "))
	}
	f.funds = funds
	if f.deployerKey, err = deployerKey(*deployerFile, *deployerFlag, m.getenv, m.Stderr); err != nil {
		return err
	}
	for _, spec := range funds {
		if _, _, err := parseFund(spec); err != nil {
			return err
		}
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	if f.chain != "" {
		for _, name := range []string{"chain-id", "rpc-addr", "block-time"} {
			if set[name] {
				return fmt.Errorf("--%s is for the in-process chain; with --chain, the external chain sets it (e.g. anvil --block-time 2)", name)
			}
		}
	} else if f.dataDir != "" {
		return errors.New("--data keeps a deployment on an external chain, but the in-process chain lives in memory: use --data with --chain URL")
	}
	if f.blockTime < 0 {
		return fmt.Errorf("--block-time %s: want a positive interval, or 0 to mine on demand", f.blockTime)
	}
	m.PprofAddr = m.getenv("FAREBOX_PPROF_ADDR")
	return nil
}

// Run takes the listen address, starts or attaches the chain, funds the
// --fund addresses, and serves the gateway; then it prints the banner.
func (m *DevMain) Run(ctx context.Context) error {
	m.Config.Addr = m.flags.addr
	if err := m.listen(); err != nil {
		return err
	}
	if err := m.startChain(ctx); err != nil {
		return err
	}
	if err := m.fundAll(ctx); err != nil {
		return err
	}
	if err := m.configure(ctx); err != nil {
		return err
	}
	if err := m.build(); err != nil {
		return err
	}
	if err := m.serve(); err != nil {
		return err
	}
	m.banner(m.Stdout)
	return nil
}

func (m *DevMain) startChain(ctx context.Context) error {
	var err error
	if m.flags.chain != "" {
		m.net, err = attachRemote(ctx, m.flags, m.getenv)
	} else {
		m.net, err = startInProcess(ctx, m.flags)
	}
	if err != nil {
		return err
	}
	m.onClose(m.net.close)
	return nil
}

func (m *DevMain) fundAll(ctx context.Context) error {
	for _, spec := range m.flags.funds {
		addr, amount, err := parseFund(spec)
		if err != nil {
			return err
		}
		if err := m.net.fund(ctx, addr, amount); err != nil {
			return fmt.Errorf("--fund %s: %w", spec, err)
		}
	}
	return nil
}

// DevMeteredModel is farebox dev's per-token model.
const DevMeteredModel = "farebox-scripted-metered"

// DevMeteredPrice is its price: 0.50 USDC per million input tokens, 2.00
// per million output tokens, at most 0.01 USDC per call.
var DevMeteredPrice = gateway.TokenPriceConfig{Input: "0.50", Output: "2.00", MaxPerCall: "0.01"}

// configure is the gateway's config for the dev chain: three scripted
// models (per call, free, per token), payments to DevPayTo settled by the
// chain settler.
func (m *DevMain) configure(ctx context.Context) error {
	n, f := m.net, m.flags
	settler, err := evm.NewSettler(ctx, n.backend, n.relayerKey)
	if err != nil {
		return err
	}
	settler.PollInterval = n.pollInterval
	m.adminToken = m.getenv(devAdminTokenEnv)
	if m.adminToken == "" {
		var b [16]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		m.adminToken = hex.EncodeToString(b[:])
	}
	m.Config = gateway.Config{
		Addr:      f.addr,
		LogLevel:  f.logLevel,
		DataDir:   f.dataDir,
		Keepalive: gateway.Duration(f.keepalive),
		CORS:      gateway.CORSConfig{AllowedOrigins: []string{"*"}}, // dev: any page may call it
		Models: []gateway.ModelConfig{
			{Name: "farebox-scripted", Upstream: scripted.Kind, UpstreamConfig: paced(f.pace), Price: f.price,
				Description: "farebox's scripted dev model",
				// The scripted model costs nothing upstream, and an agent's
				// instructions (Codex's are ~9k tokens) are over a per-call
				// model's default input limit: dev takes any input.
				Limits: &gateway.ModelLimits{MaxInputTokens: 1 << 20}},
			{Name: "farebox-scripted-free", Upstream: scripted.Kind, UpstreamConfig: paced(f.pace), Price: "0"},
			{Name: DevMeteredModel, Upstream: scripted.Kind, UpstreamConfig: paced(f.pace), PricePerMTok: &DevMeteredPrice,
				Description: "farebox's scripted dev model, charged per token"},
		},
		Admin: gateway.AdminConfig{TokenEnv: devAdminTokenEnv},
		Payments: gateway.PaymentsConfig{PayTo: DevPayTo, Networks: []string{n.network.CAIP2}, Settle: f.settle,
			BatchSettlement: gateway.BatchSettlementConfig{ClaimInterval: gateway.Duration(f.claimInterval)}},
	}
	m.Options = gateway.Options{
		Networks: []*x402.Network{n.network},
		Settler:  settler,
		Checker:  evm.NewChecker(n.backend, true),
		Ready:    settler.Ready,
		Getenv: func(name string) string {
			if name == devAdminTokenEnv {
				return m.adminToken
			}
			return m.getenv(name)
		},
	}
	return nil
}

// devAdminTokenEnv may hold the dev gateway's admin token; without it
// farebox dev makes a random one and prints it.
const devAdminTokenEnv = "FAREBOX_ADMIN_TOKEN"

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

// banner tells a newcomer everything needed for the first paid call, with
// commands that work as printed.
func (m *DevMain) banner(w io.Writer) {
	n := m.net
	root := strings.TrimSuffix(strings.TrimSuffix(m.adminURL(), "/admin"), "/v1")
	key := hex.EncodeToString(crypto.FromECDSA(n.payerKey))
	public := "a publicly known test key: never send it anything of value"
	if key != devchain.DevPayerKey {
		public = "a generated test key: it holds test dollars only"
	}
	fmt.Fprintf(w, `farebox dev is running.

  base URL        %s
  models          farebox-scripted (%s USDC per call), farebox-scripted-free,
                  %s (%s/%s USDC per million input/output tokens, at most %s per call)
  chain           %s
  chain RPC       %s
  token (USDC)    %s  (EIP-712 %q version %q)
  payments to     %s
  admin           %s  (the books: %s/admin, or Authorization: Bearer on %s/admin/api/summary)

  DEV PAYER (%s)
  address         %s
  private key     0x%s

Try it:  FAREBOX_PAYER_KEY=0x%s %s call --base-url %s%s "hello"
`, m.BaseURL, m.Config.Models[0].Price, DevMeteredModel, DevMeteredPrice.Input, DevMeteredPrice.Output, DevMeteredPrice.MaxPerCall, n.about, orNone(n.rpcURL), n.network.Asset.Hex(), n.network.Name, n.network.Version,
		DevPayTo, m.adminToken, root, root, public, n.payer().Hex(), key, key, selfCommand(), m.BaseURL, rpcFlag(n.rpcURL))
}

// rpcFlag is the --rpc-url of the Try-it line: with the chain at hand a
// client recovers its channel records from chain instead of trusting a
// local file that another client (or a refund elsewhere) made stale.
func rpcFlag(rpcURL string) string {
	if rpcURL == "" {
		return ""
	}
	return " --rpc-url " + rpcURL
}

// selfCommand is how to run this farebox again: `go run ./cmd/farebox`
// under go run (its binary is deleted on exit), else the path it was
// started by.
func selfCommand() string {
	exe := os.Args[0]
	if strings.Contains(exe, "go-build") {
		return "go run ./cmd/farebox"
	}
	return exe
}

func orNone(s string) string {
	if s == "" {
		return "(not served)"
	}
	return s
}

// deployerKey is the --chain deployer's key: from a file, the environment,
// or (deprecated, with a warning) the command line.
func deployerKey(file, flagValue string, getenv func(string) string, stderr io.Writer) (string, error) {
	switch {
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("--deployer-key-file: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	case flagValue != "":
		fmt.Fprintln(stderr, "farebox dev: --deployer-key is deprecated (the key shows in ps and shell history): use FAREBOX_DEPLOYER_KEY or --deployer-key-file")
		return flagValue, nil
	}
	return getenv("FAREBOX_DEPLOYER_KEY"), nil
}

// paced is the scripted model's keys at dev's --pace.
func paced(pace time.Duration) *scripted.Settings {
	return &scripted.Settings{Pace: gateway.Duration(pace)}
}
