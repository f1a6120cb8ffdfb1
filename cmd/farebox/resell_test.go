package main

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

const (
	resellSellerPrice = 1000 // 0.001 USDC, farebox dev's default price: what the reseller pays
	resellPrice       = 2000 // 0.002 USDC: what the reseller's client pays
)

// process is a farebox command run as its own process (this test binary
// with FAREBOX_TEST_AS_MAIN=1), stopped when the test ends.
type process struct {
	cmd    *exec.Cmd
	out    *syncBuffer // stdout: the banner
	logs   *syncBuffer // stderr: the logs
	exited chan struct{}
	err    error
}

func startProcess(t *testing.T, env []string, args ...string) *process {
	t.Helper()
	p := &process{cmd: exec.Command(os.Args[0], args...), out: &syncBuffer{wrote: make(chan struct{}, 1)}, logs: &syncBuffer{},
		exited: make(chan struct{})}
	p.cmd.Env = append(append(os.Environ(), "FAREBOX_TEST_AS_MAIN=1"), env...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.logs
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() { p.stop(syscall.SIGKILL) })
	return p
}

// stop signals the process and waits for it to exit.
func (p *process) stop(sig os.Signal) {
	select {
	case <-p.exited:
		return
	default:
	}
	p.cmd.Process.Signal(sig)
	<-p.exited
}

// waitOutput waits for marker on stdout and returns all of it.
func (p *process) waitOutput(t *testing.T, marker string) string {
	t.Helper()
	return waitFor(t, p.out, marker, p.exited, &p.err)
}

// resellChain is the chain of two as processes on one anvil mining every
// 2 s: `farebox dev --chain` sells farebox-scripted, `farebox serve`
// resells it with an `upstream: x402` model, and the client pays the
// reseller; the chain judges the four accounts.
type resellChain struct {
	a                                        *chaintest.Anvil
	seller, reseller                         *process
	resellerBase                             string
	asset                                    common.Address
	network                                  *x402.Network
	client, wallet, resellerPayTo, sellerPay common.Address
	clientKey                                *ecdsa.PrivateKey
}

func startResellChain(t *testing.T) *resellChain {
	a := chaintest.StartAnvil(t, chaintest.BlockTime(2*time.Second))
	c := &resellChain{a: a, sellerPay: common.HexToAddress(DevPayTo)}
	walletKey, _ := crypto.GenerateKey()
	c.clientKey, _ = crypto.GenerateKey()
	c.wallet, c.client = crypto.PubkeyToAddress(walletKey.PublicKey), crypto.PubkeyToAddress(c.clientKey.PublicKey)

	c.seller = startProcess(t, nil, "dev", "--addr", "127.0.0.1:0", "--log-level", "warn", "--chain", a.RPCURL,
		"--data", t.TempDir(), "--fund", c.wallet.Hex()+"=0.01", "--fund", c.client.Hex()+"=0.01")
	banner := c.seller.waitOutput(t, "Try it:")
	sellerBase := field(t, banner, `base URL\s+(\S+)`)
	c.asset = common.HexToAddress(field(t, banner, `token \(USDC\)\s+(0x[0-9a-fA-F]{40})`))
	name, version := field(t, banner, `EIP-712 "([^"]*)"`), field(t, banner, `version "([^"]*)"`)
	c.network = x402.NewNetwork("", "", big.NewInt(chaintest.ChainID), c.asset, name, version)

	relayer, err := a.NewRelayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	payToKey, _ := crypto.GenerateKey()
	c.resellerPayTo = crypto.PubkeyToAddress(payToKey.PublicKey)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c.resellerBase = "http://" + addr + "/v1"
	// Two resold models of one seller: one may pay its price, one may not.
	yaml := fmt.Sprintf(`addr: %s
log_level: info
payments:
  pay_to: %q
  networks: ["eip155:84532"]
  settler: chain
  chain:
    rpc_url: %q
    relayer_key_env: RESELL_RELAYER_KEY
  custom_networks:
    - {caip2: "eip155:84532", chain_id: 84532, asset: %q, name: %q, version: %q}
models:
  - {name: resold, upstream: x402, base_url: %q, upstream_model: farebox-scripted, payer_key_env: RESELL_WALLET_KEY, max_upstream_price: "0.001", price: "0.002"}
  - {name: resold-capped, upstream: x402, base_url: %q, upstream_model: farebox-scripted, payer_key_env: RESELL_WALLET_KEY, max_upstream_price: "0.0005", price: "0.002"}
`, addr, c.resellerPayTo.Hex(), a.RPCURL, c.asset.Hex(), name, version, sellerBase, sellerBase)
	config := filepath.Join(t.TempDir(), "farebox.yaml")
	if err := os.WriteFile(config, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	c.reseller = startProcess(t, []string{"RESELL_RELAYER_KEY=" + hexutil.Encode(crypto.FromECDSA(relayer)),
		"RESELL_WALLET_KEY=" + hexutil.Encode(crypto.FromECDSA(walletKey))}, "serve", "--config", config)
	c.reseller.waitOutput(t, "farebox listening")
	return c
}

// openai is openai-go paying the reseller with the client's key, on the
// dev token only.
func (c *resellChain) openai(t *testing.T) openai.Client {
	reg, err := x402.NewRegistry(c.network)
	if err != nil {
		t.Fatal(err)
	}
	tr := payer.NewTransport(payer.NewSigner(c.clientKey), payer.WithNetworks(reg), payer.WithPayTo(c.resellerPayTo))
	return openai.NewClient(option.WithBaseURL(c.resellerBase+"/"), option.WithAPIKey("x402"), option.WithMaxRetries(0),
		option.WithHTTPClient(&http.Client{Transport: tr}))
}

// balances waits for every settlement to be mined (both fareboxes answer
// once the node accepted their transfer, before its block), then reads the
// four accounts.
func (c *resellChain) balances(t *testing.T) map[string]*big.Int {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); pendingIn(t, c.a) > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("settlements still pending after a minute")
		}
	}
	return map[string]*big.Int{
		"client": tokenBalance(t, c.a.Client, c.asset, c.client), "reseller": tokenBalance(t, c.a.Client, c.asset, c.resellerPayTo),
		"wallet": tokenBalance(t, c.a.Client, c.asset, c.wallet), "seller": tokenBalance(t, c.a.Client, c.asset, c.sellerPay),
	}
}

// checkMoved asserts each account moved by exactly want (atomic units).
func (c *resellChain) checkMoved(t *testing.T, before map[string]*big.Int, want map[string]int64) {
	t.Helper()
	after := c.balances(t)
	for _, who := range []string{"client", "reseller", "wallet", "seller"} {
		if got := new(big.Int).Sub(after[who], before[who]); got.Int64() != want[who] {
			t.Errorf("%s moved %s, want %d", who, got, want[who])
		}
	}
}

// checkPurchases finds n upstream purchases in the reseller's logs, each
// with the seller's receipt naming a transaction mined successfully.
func (c *resellChain) checkPurchases(t *testing.T, n int) {
	t.Helper()
	var found int
	for _, line := range strings.Split(c.reseller.logs.String(), "\n") {
		if gjson.Get(line, "msg").String() != "upstream purchase" {
			continue
		}
		found++
		tx := gjson.Get(line, "transaction").String()
		if !gjson.Get(line, "success").Bool() || tx == "" || gjson.Get(line, "amount").Int() != resellSellerPrice {
			t.Errorf("upstream purchase without a successful receipt: %s", line)
			continue
		}
		rec, err := c.a.Client.TransactionReceipt(context.Background(), common.HexToHash(tx))
		if err != nil || rec.Status != types.ReceiptStatusSuccessful {
			t.Errorf("the seller's settlement %s is not mined successfully: %v", tx, err)
		}
	}
	if found != n {
		t.Errorf("%d upstream purchases logged, want %d:\n%s", found, n, c.reseller.logs)
	}
}

// pendingIn is how many transactions anvil holds unmined.
func pendingIn(t *testing.T, a *chaintest.Anvil) int {
	t.Helper()
	var status struct{ Pending hexutil.Uint64 }
	if err := a.Client.Client().CallContext(context.Background(), &status, "txpool_status"); err != nil {
		t.Fatal(err)
	}
	return int(status.Pending)
}

// TestResellChainOfTwoProcesses runs the resale chain of two as the
// operators would: the seller is `farebox dev --chain <anvil>`, the
// reseller `farebox serve` with an `upstream: x402` model, each settling
// on the same anvil (2 s blocks) with its own relayer. For a text, a
// streamed and a tool-call turn the client pays 2x to the reseller and the
// reseller's wallet x to the seller; an upstream over the reseller's limit
// and a seller that is down give a 502 and charge nobody.
func TestResellChainOfTwoProcesses(t *testing.T) {
	c := startResellChain(t)
	cl := c.openai(t)
	ctx := context.Background()
	text := func(s string) oresponses.ResponseNewParamsInputUnion {
		return oresponses.ResponseNewParamsInputUnion{OfString: openai.String(s)}
	}
	tool := oresponses.ToolUnionParam{OfFunction: &oresponses.FunctionToolParam{Name: "get_weather",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"}}}}
	paid := map[string]int64{"client": -resellPrice, "reseller": resellPrice, "wallet": -resellSellerPrice, "seller": resellSellerPrice}
	for _, tt := range []struct {
		name string
		turn func(t *testing.T)
	}{
		{"text", func(t *testing.T) {
			res, err := cl.Responses.New(ctx, oresponses.ResponseNewParams{Model: "resold", Input: text("resold by a process")})
			if err != nil || !strings.Contains(res.OutputText(), "resold by a process") {
				t.Fatalf("%v %+v", err, res)
			}
		}},
		{"stream", func(t *testing.T) {
			st := cl.Responses.NewStreaming(ctx, oresponses.ResponseNewParams{Model: "resold", Input: text("streamed through two")})
			var final oresponses.Response
			for st.Next() {
				if ev := st.Current(); ev.Type == "response.completed" {
					final = ev.Response
				}
			}
			if err := st.Err(); err != nil || !strings.Contains(final.OutputText(), "streamed through two") {
				t.Fatalf("%v %q", err, final.OutputText())
			}
			if rc := gjson.Get(final.RawJSON(), "x402"); !rc.Get("success").Bool() || !strings.EqualFold(rc.Get("payer").String(), c.client.Hex()) {
				t.Errorf("the reseller's in-band receipt: %s", rc.Raw)
			}
		}},
		{"tool call", func(t *testing.T) {
			res, err := cl.Responses.New(ctx, oresponses.ResponseNewParams{Model: "resold", Input: text("call get_weather please"),
				Tools: []oresponses.ToolUnionParam{tool}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Output) != 1 || res.Output[0].Type != "function_call" || res.Output[0].Name != "get_weather" ||
				!gjson.Get(res.Output[0].Arguments.OfString, "city").Exists() {
				t.Fatalf("the call does not come back to the client: %s", res.RawJSON())
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := c.balances(t)
			tt.turn(t)
			c.checkMoved(t, before, paid)
		})
	}
	c.checkPurchases(t, 3)

	charged := map[string]int64{"client": 0, "reseller": 0, "wallet": 0, "seller": 0}
	refused := func(t *testing.T, model string, status int, code string) {
		t.Helper()
		before := c.balances(t)
		_, err := cl.Responses.New(ctx, oresponses.ResponseNewParams{Model: model, Input: text("hi")})
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) || apiErr.StatusCode != status || apiErr.Code != code {
			t.Fatalf("got %v, want %d %s", err, status, code)
		}
		c.checkMoved(t, before, charged)
	}
	t.Run("upstream asks more than the limit", func(t *testing.T) {
		refused(t, "resold-capped", http.StatusBadGateway, "upstream_price_too_high")
	})
	t.Run("seller down", func(t *testing.T) {
		c.seller.stop(syscall.SIGTERM)
		refused(t, "resold", http.StatusBadGateway, "server_error")
	})
	if t.Failed() {
		t.Logf("reseller logs:\n%s\nseller logs:\n%s", c.reseller.logs, c.seller.logs)
	}
}
