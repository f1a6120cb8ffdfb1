package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/evm/devchain"
	"math/big"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
)

// syncBuffer is stdout shared between the command and the test; wrote,
// when made, is signalled after each write.
type syncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{}
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case s.wrote <- struct{}{}:
	default:
	}
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// TestFareboxDevPaidCall runs `farebox dev` as a user would and pays one
// call with openai-go and the paying transport: the receipt names a mined
// transaction and the payer's balance dropped by exactly 0.001 USDC.
func TestFareboxDevPaidCall(t *testing.T) {
	ctx := context.Background()
	_, banner := startDevCommand(t, "--fund", "0x1111111111111111111111111111111111111111=2.5")
	base := field(t, banner, `base URL\s+(\S+)`)
	rpcURL := field(t, banner, `chain RPC\s+(\S+)`)
	tokenAddr := common.HexToAddress(field(t, banner, `token \(USDC\)\s+(0x[0-9a-fA-F]{40})`))
	payerAddr := common.HexToAddress(field(t, banner, `address\s+(0x[0-9a-fA-F]{40})`))
	if !strings.Contains(banner, "gone on exit") || !strings.Contains(banner, "publicly known") {
		t.Errorf("banner must say the state is in memory and the key is public:\n%s", banner)
	}

	// Everything else goes through the served JSON-RPC, as a wallet would.
	rpc, err := ethclientDial(ctx, rpcURL)
	if err != nil {
		t.Fatal(err)
	}
	balanceOf := func(who common.Address) *big.Int {
		data := append(common.FromHex("0x70a08231"), common.LeftPadBytes(who.Bytes(), 32)...)
		res, err := rpc.CallContract(ctx, ethereum.CallMsg{To: &tokenAddr, Data: data}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return new(big.Int).SetBytes(res)
	}
	balance := func() *big.Int { awaitRelayer(t, rpc, devRelayer); return balanceOf(payerAddr) }
	if funded := balanceOf(common.HexToAddress("0x1111111111111111111111111111111111111111")); funded.Int64() != 2_500_000 {
		t.Errorf("--fund gave %s atomic units, want 2500000", funded)
	}
	before := balance()

	// The per-token model, and the canonical contracts @x402/evm's clients need.
	if !strings.Contains(banner, DevMeteredModel) {
		t.Errorf("the banner does not list %s:\n%s", DevMeteredModel, banner)
	}
	mres, err := http.Get(base + "/models/" + DevMeteredModel)
	if err != nil {
		t.Fatal(err)
	}
	var model struct {
		Price map[string]string `json:"price"`
	}
	if err := json.NewDecoder(mres.Body).Decode(&model); err != nil || model.Price["unit"] != "token" || model.Price["max_atomic_per_call"] != "10000" {
		t.Errorf("%s: %+v (%v)", DevMeteredModel, model, err)
	}
	mres.Body.Close()
	if code, err := rpc.CodeAt(ctx, contracts.CanonicalUptoPermit2Proxy, nil); err != nil || len(code) == 0 {
		t.Errorf("no upto proxy at its canonical address (%v)", err)
	}

	key := devPayerKey(t)
	network := x402.NewNetwork("eip155:1337", "", big.NewInt(1337), tokenAddr, "USDC", "2")
	reg, _ := x402.NewRegistry(network)
	var receipt *x402.Receipt
	tr := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.OnReceipt(func(r *x402.Receipt) { receipt = r }))
	client := openai.NewClient(option.WithBaseURL(base+"/"), option.WithAPIKey("x402"), option.WithHTTPClient(&http.Client{Transport: tr}))
	res, err := client.Responses.New(ctx, oresponses.ResponseNewParams{Model: "farebox-scripted",
		Input: oresponses.ResponseNewParamsInputUnion{OfString: openai.String("hello from the README")}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.OutputText(), "hello from the README") {
		t.Errorf("answer %q", res.OutputText())
	}
	if receipt == nil || !receipt.Success {
		t.Fatalf("receipt %+v", receipt)
	}
	if mined := awaitMined(t, rpc, common.HexToHash(receipt.Transaction)); mined.Status != 1 {
		t.Fatalf("transaction %s reverted", receipt.Transaction)
	}
	if spent := new(big.Int).Sub(before, balance()); spent.Int64() != 1000 {
		t.Errorf("payer spent %s atomic units, want 1000 (0.001 USDC)", spent)
	}

	// The command-line client pays too, with the dev key.
	var callOut syncBuffer
	if err := run(ctx, []string{"call", "--base-url", base, "--stream", "hi from farebox call"}, &callOut, &syncBuffer{}, func(string) string { return "" }); err != nil {
		t.Fatal(err)
	}
	if s := callOut.String(); !strings.Contains(s, "You said: hi from farebox call") || !regexp.MustCompile(`transaction=0x[0-9a-f]{64} amount=0.001 USDC`).MatchString(s) {
		t.Errorf("farebox call printed:\n%s", s)
	}
	if spent := new(big.Int).Sub(before, balance()); spent.Int64() != 2000 {
		t.Errorf("after farebox call the payer spent %s, want 2000", spent)
	}
}

// startDevCommand runs `farebox dev` (on free loopback ports, plus extra
// flags) as a user would, until the test ends or stop is called, and
// returns its output and banner.
func startDevCommand(t *testing.T, extra ...string) (stop func(), banner string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{wrote: make(chan struct{}, 1)}
	args := []string{"dev", "--addr", "127.0.0.1:0", "--log-level", "warn"}
	if !slices.Contains(extra, "--chain") {
		args = append(args, "--rpc-addr", "127.0.0.1:0")
	}
	args = append(args, extra...)
	var runErr error
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		runErr = run(ctx, args, out, &syncBuffer{}, func(string) string { return "" })
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			<-exited
			if runErr != nil {
				t.Errorf("farebox dev exited with %v", runErr)
			}
		})
	}
	t.Cleanup(stop)
	return stop, waitFor(t, out, "Try it:", exited, &runErr)
}

// waitFor waits for marker in out, written by a command that closes exited
// (with *runErr set) when it ends.
func waitFor(t *testing.T, out *syncBuffer, marker string, exited <-chan struct{}, runErr *error) string {
	t.Helper()
	timeout := time.After(3 * time.Minute)
	for {
		// A write between the check and the wait is not lost: wrote holds one signal.
		if s := out.String(); strings.Contains(s, marker) {
			return s
		}
		select {
		case <-out.wrote:
		case <-exited:
			if s := out.String(); strings.Contains(s, marker) {
				return s
			}
			t.Fatalf("farebox dev ended before %q: %v\n%s", marker, *runErr, out.String())
		case <-timeout:
			t.Fatalf("no %q in output:\n%s", marker, out.String())
		}
	}
}

func field(t *testing.T, s, re string) string {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no %s in:\n%s", re, s)
	}
	return m[1]
}
func devPayerKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := crypto.HexToECDSA(devchain.DevPayerKey)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func ethclientDial(ctx context.Context, url string) (*ethclient.Client, error) {
	return ethclient.DialContext(ctx, url)
}
