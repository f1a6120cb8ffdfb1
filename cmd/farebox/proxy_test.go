package main

import (
	"context"
	"encoding/hex"
	"errors"
	"math/big"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/farebox/farebox/x402"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
)

// proxyDev is a `farebox dev` with a freshly funded payer, and that
// payer's key, to run `farebox proxy` against.
type proxyDev struct {
	base, rpcURL string
	token, payer common.Address
	keyHex       string
	rpc          *ethclient.Client
}

func startProxyDev(t *testing.T) *proxyDev {
	t.Helper()
	key, _ := crypto.GenerateKey()
	d := &proxyDev{payer: crypto.PubkeyToAddress(key.PublicKey), keyHex: hex.EncodeToString(crypto.FromECDSA(key))}
	_, banner := startDevCommand(t, "--fund", d.payer.Hex()+"=1")
	d.base = field(t, banner, `base URL\s+(\S+)`)
	d.rpcURL = field(t, banner, `chain RPC\s+(\S+)`)
	d.token = common.HexToAddress(field(t, banner, `token \(USDC\)\s+(0x[0-9a-fA-F]{40})`))
	var err error
	if d.rpc, err = ethclientDial(context.Background(), d.rpcURL); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.rpc.Close)
	return d
}

// balance is who's token balance once the relayer's transactions are mined.
func (d *proxyDev) balance(t *testing.T, who common.Address) *big.Int {
	t.Helper()
	awaitRelayer(t, d.rpc, devRelayer)
	return tokenBalance(t, d.rpc, d.token, who)
}

// startProxy runs `farebox proxy --upstream d.base` with d's key in
// FAREBOX_PAYER_KEY and extra flags, on a free loopback port, and returns
// it and its log.
func startProxy(t *testing.T, d *proxyDev, extra ...string) (*ProxyMain, *syncBuffer) {
	t.Helper()
	log := &syncBuffer{}
	m := NewProxyMain(&syncBuffer{}, log, func(name string) string {
		if name == "FAREBOX_PAYER_KEY" {
			return d.keyHex
		}
		return ""
	})
	if err := m.ParseFlags(append([]string{"--upstream", d.base, "--addr", "127.0.0.1:0"}, extra...)); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	return m, log
}

var receiptLine = regexp.MustCompile(`receipt (\d+): scheme=(\S+) amount=([0-9.]+) USDC tx=(\S+) payer=(\S+) .* total=([0-9.]+) USDC`)

// receipts reads the proxy's receipt lines: each scheme, and the sum of
// their amounts.
func receipts(t *testing.T, log string) (schemes []string, sum *big.Int) {
	t.Helper()
	sum = new(big.Int)
	for _, m := range receiptLine.FindAllStringSubmatch(log, -1) {
		a, err := x402.ParseUSDC(m[3])
		if err != nil {
			t.Fatal(err)
		}
		sum.Add(sum, a)
		schemes = append(schemes, m[2])
	}
	return schemes, sum
}

// proxyClient is the official openai-go client pointed at the proxy, as
// any app with a base URL setting is; calls counts the requests it sends.
func proxyClient(m *ProxyMain, calls *atomic.Int64) openai.Client {
	return openai.NewClient(option.WithBaseURL(m.BaseURL+"/"), option.WithAPIKey("unused"),
		option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			calls.Add(1)
			return next(r)
		}))
}

func ask(model, prompt string) oresponses.ResponseNewParams {
	return oresponses.ResponseNewParams{Model: model, Input: oresponses.ResponseNewParamsInputUnion{OfString: openai.String(prompt)}}
}

// streamText runs a streamed call and returns its text deltas joined and
// the terminal status.
func streamText(ctx context.Context, c *openai.Client, p oresponses.ResponseNewParams) (text, status string, err error) {
	s := c.Responses.NewStreaming(ctx, p)
	var b strings.Builder
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "response.output_text.delta":
			b.WriteString(ev.Delta)
		case "response.completed", "response.incomplete", "response.failed":
			status = string(ev.Response.Status)
		}
	}
	return b.String(), status, s.Err()
}

// TestProxyPaysForAnOpenAIClient: the official openai-go client, knowing
// nothing of x402, calls `farebox dev`'s paid models through `farebox
// proxy`, plain and streamed, per call (exact) and per token (a channel);
// the proxy logs a receipt per call, and once the channel is refunded the
// payer is short of exactly the receipts' amounts and pay_to got exactly
// them, judged on chain.
func TestProxyPaysForAnOpenAIClient(t *testing.T) {
	ctx := context.Background()
	d := startProxyDev(t)
	payTo := common.HexToAddress(DevPayTo)
	payerBefore, payToBefore := d.balance(t, d.payer), d.balance(t, payTo)
	dir := t.TempDir()
	m, log := startProxy(t, d, "--channels", dir, "--rpc-url", d.rpcURL, "--max-price", "0.01", "--max-deposit", "0.05")
	var calls atomic.Int64
	client := proxyClient(m, &calls)

	for _, model := range []string{"farebox-scripted", DevMeteredModel} {
		res, err := client.Responses.New(ctx, ask(model, "hello through the proxy"))
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		if got := res.OutputText(); got != "You said: hello through the proxy" {
			t.Errorf("%s answered %q", model, got)
		}
		text, status, err := streamText(ctx, &client, ask(model, "streamed through the proxy"))
		if err != nil || status != "completed" || text != "You said: streamed through the proxy" {
			t.Errorf("%s streamed %q (%s, %v)", model, text, status, err)
		}
	}
	schemes, paid := receipts(t, log.String())
	if got, want := strings.Join(schemes, " "), "exact exact batch-settlement batch-settlement"; got != want {
		t.Fatalf("receipts by scheme %q, want %q; log:\n%s", got, want, log.String())
	}
	if spent := m.Proxy.Spent(); spent.Cmp(paid) != 0 {
		t.Errorf("the proxy's total is %s, its receipts add up to %s", spent, paid)
	}
	// The running total is what the wallet signed: two exact payments and
	// the channel's deposit; what was charged stands beside it.
	signed := big.NewInt(2*1000 + 50_000)
	if m.Proxy.Signed().Cmp(signed) != 0 || !strings.Contains(log.String(), "total="+x402.FormatUSDC(signed)+" USDC signed, charged="+x402.FormatUSDC(paid)+" USDC") {
		t.Errorf("the last receipt line does not give the running totals %s signed, %s charged:\n%s", x402.FormatUSDC(signed), x402.FormatUSDC(paid), log.String())
	}

	// The channel's deposit less its charges comes back: what is left
	// gone from the wallet is exactly what the receipts say.
	if _, err := callWith(t, d.keyHex, "--base-url", d.base, "--channels", dir, "--rpc-url", d.rpcURL, "--model", DevMeteredModel, "--refund"); err != nil {
		t.Fatalf("refund: %v", err)
	}
	if spent := new(big.Int).Sub(payerBefore, d.balance(t, d.payer)); spent.Cmp(paid) != 0 {
		t.Errorf("payer is short of %s, the receipts say %s", spent, paid)
	}
	if earned := new(big.Int).Sub(d.balance(t, payTo), payToBefore); earned.Cmp(paid) != 0 {
		t.Errorf("pay_to got %s, the receipts say %s", earned, paid)
	}
}

// TestProxyBudgetRefusesInOpenAIShape: once the next payment would take
// the total over --budget, the proxy answers the openai-go client with a
// 402 OpenAI error (insufficient_quota, budget_exceeded) that the SDK does
// not retry, and pays nothing more, judged on chain.
func TestProxyBudgetRefusesInOpenAIShape(t *testing.T) {
	ctx := context.Background()
	d := startProxyDev(t)
	before := d.balance(t, d.payer)
	m, log := startProxy(t, d, "--budget", "0.002", "--scheme", "exact")
	var calls atomic.Int64
	client := proxyClient(m, &calls)

	if _, err := client.Responses.New(ctx, ask("farebox-scripted", "one")); err != nil {
		t.Fatal(err)
	}
	if _, status, err := streamText(ctx, &client, ask("farebox-scripted", "two")); err != nil || status != "completed" {
		t.Fatalf("second call: %s %v", status, err)
	}
	for i, stream := range []bool{false, true} {
		calls.Store(0)
		var err error
		if stream {
			_, _, err = streamText(ctx, &client, ask("farebox-scripted", "three"))
		} else {
			_, err = client.Responses.New(ctx, ask("farebox-scripted", "three"))
		}
		var apiErr *openai.Error
		if !errors.As(err, &apiErr) {
			t.Fatalf("over budget (stream %v): %v, want an OpenAI error", stream, err)
		}
		if apiErr.StatusCode != http.StatusPaymentRequired || apiErr.Type != "insufficient_quota" || apiErr.Code != "budget_exceeded" ||
			!strings.Contains(apiErr.Message, "over the budget of 0.002 USDC") {
			t.Errorf("refusal %d: %d %s %s %q", i, apiErr.StatusCode, apiErr.Type, apiErr.Code, apiErr.Message)
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("refusal %d: the client sent the request %d times, want once (no retry)", i, n)
		}
	}
	// A free model still answers: the budget bounds money, not use.
	if _, err := client.Responses.New(ctx, ask("farebox-scripted-free", "free")); err != nil {
		t.Errorf("free model over budget: %v", err)
	}
	if schemes, paid := receipts(t, log.String()); len(schemes) != 2 || paid.Int64() != 2000 {
		t.Errorf("receipts %v adding up to %s, want two of 0.001", schemes, paid)
	}
	if spent := new(big.Int).Sub(before, d.balance(t, d.payer)); spent.Int64() != 2000 {
		t.Errorf("payer spent %s, want exactly the budget's two calls (2000)", spent)
	}
}

// TestProxyListensOnLoopbackOnly: an address reachable from elsewhere
// would let anyone spend the wallet; it takes --allow-remote.
func TestProxyListensOnLoopbackOnly(t *testing.T) {
	parse := func(args ...string) error {
		return NewProxyMain(&syncBuffer{}, &syncBuffer{}, func(string) string { return "" }).ParseFlags(args)
	}
	for _, addr := range []string{"127.0.0.1:8403", "[::1]:8403", "localhost:8403"} {
		if err := parse("--addr", addr); err != nil {
			t.Errorf("--addr %s: %v", addr, err)
		}
	}
	for _, addr := range []string{"0.0.0.0:8403", ":8403", "192.0.2.1:8403", "example.com:8403"} {
		if err := parse("--addr", addr); err == nil || !strings.Contains(err.Error(), "--allow-remote") {
			t.Errorf("--addr %s: %v, want a refusal naming --allow-remote", addr, err)
		}
		if err := parse("--addr", addr, "--allow-remote"); err != nil {
			t.Errorf("--addr %s --allow-remote: %v", addr, err)
		}
	}
	if err := parse("--key", "0x01"); err == nil {
		t.Error("a key was accepted from a flag")
	}
}
