package payer_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/testenv"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/payertest"
)

// TestPreemptiveVouchersAgainstFarebox: farebox's own gateway with a
// per-token model settling on the dev chain. The first call reads the 402
// and deposits; every later call is one HTTP request carrying the next
// voucher; at shutdown farebox claims exactly what the receipts charged,
// and the chain agrees with the payer's ledger.
func TestPreemptiveVouchersAgainstFarebox(t *testing.T) {
	testenv.SkipShort(t, "farebox on the in-process dev chain")
	ctx := context.Background()
	f := startFarebox(t, t.TempDir()) // channels in bbolt, as farebox serve keeps them
	c, receiver, ts := f.chain, f.receiver, f.srv
	requests, paid := &f.requests, &f.paid
	closed := false
	shutdown := func() {
		if !closed {
			closed = true
			sctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			if err := f.gw.Shutdown(sctx); err != nil {
				t.Error(err)
			}
		}
	}
	defer shutdown()
	const model = fareboxModel

	key, _ := crypto.GenerateKey()
	who := crypto.PubkeyToAddress(key.PublicKey)
	if err := c.Fund(ctx, who, big.NewInt(1_000_000)); err != nil {
		t.Fatal(err)
	}
	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	var ledger payertest.Ledger
	store := payer.NewMemoryChannels()
	tr := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithChain(c.Client),
		payer.WithSchemes(channel.Scheme), payer.WithPayTo(receiver), payer.WithChannelStore(store), ledger.Option())
	client := &http.Client{Transport: tr}
	payerBefore, receiverBefore := usdcOf(t, c, who), usdcOf(t, c, receiver)

	for i := range 4 {
		before, paidBefore := requests.Load(), paid.Load()
		body := fmt.Sprintf(`{"model":%q,"input":"call %d, a few words"}`, model, i)
		resp, err := client.Post(ts.URL+"/v1/responses", "application/json", bytes.NewReader([]byte(body)))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		b.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("call %d: %d %s", i, resp.StatusCode, b.String())
		}
		want := int64(1) // the payment straight away
		if i == 0 {
			want = 2 // the 402, then the deposit
		}
		if n, p := requests.Load()-before, paid.Load()-paidBefore; n != want || p != 1 {
			t.Fatalf("call %d took %d requests (%d paid), want %d (1 paid)", i, n, p, want)
		}
	}
	s := ledger.Settlements()
	if len(s) != 4 || s[0].Deposited == nil || s[0].Deposited.Sign() <= 0 {
		t.Fatalf("settlements %+v, want a deposit first", s)
	}
	charged, deposited := ledger.Totals()
	for i, st := range s {
		if st.Charged == nil || st.Charged.Sign() <= 0 || (i > 0 && st.Deposited != nil) {
			t.Fatalf("settlement %d: %+v, want a charge and no deposit after the first", i, st)
		}
	}
	awaitRelayer(t, c)
	if moved := new(big.Int).Sub(payerBefore, usdcOf(t, c, who)); moved.Cmp(deposited) != 0 {
		t.Fatalf("payer moved %s, the ledger deposited %s", moved, deposited)
	}
	// The payer's record is what the chain and farebox's receipts say.
	k := payer.ChannelKey{Payer: who, Network: c.Network.CAIP2, Receiver: receiver}
	recs, err := store.List(k)
	if err != nil || len(recs) != 1 || recs[0].Charged.Cmp(charged) != 0 || recs[0].Balance.Cmp(deposited) != 0 {
		t.Fatalf("channel records %+v (%v), want charged %s of %s", recs, err, charged, deposited)
	}

	shutdown() // claims every voucher and sweeps the claims to the receiver
	awaitRelayer(t, c)
	if got := new(big.Int).Sub(usdcOf(t, c, receiver), receiverBefore); got.Cmp(charged) != 0 {
		t.Fatalf("receiver got %s after the claim, the receipts charged %s", got, charged)
	}
}

// usdcOf is who's token balance on c.
func usdcOf(t *testing.T, c *devchain.Chain, who common.Address) *big.Int {
	t.Helper()
	data := append(common.FromHex("0x70a08231"), common.LeftPadBytes(who.Bytes(), 32)...)
	out, err := c.Client.CallContract(context.Background(), ethereum.CallMsg{To: &c.Network.Asset, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(out)
}

// awaitRelayer waits until every transaction farebox's relayer sent is mined.
func awaitRelayer(t *testing.T, c *devchain.Chain) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := devchain.AwaitMined(ctx, c.Client, c.Relayer); err != nil {
		t.Fatal(err)
	}
}

const fareboxModel = "metered"

// farebox is farebox's gateway in process with a per-token model settling
// on an in-process dev chain, behind a server that counts its requests.
type farebox struct {
	chain          *devchain.Chain
	gw             *gateway.Server
	srv            *httptest.Server
	receiver       common.Address
	requests, paid atomic.Int64
}

func startFarebox(tb testing.TB, dataDir string) *farebox {
	tb.Helper()
	ctx := context.Background()
	c, err := devchain.Start(ctx, devchain.Config{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	settler, err := evm.NewSettler(ctx, c.Client, c.RelayerKey)
	if err != nil {
		tb.Fatal(err)
	}
	f := &farebox{chain: c, receiver: common.HexToAddress("0x00000000000000000000000000000000000fa4e5")}
	cfg := gateway.Config{
		DataDir: dataDir,
		Models: []gateway.ModelConfig{{Name: fareboxModel, Upstream: "scripted",
			PricePerMTok: &gateway.TokenPriceConfig{Input: "1.25", Output: "10", MaxPerCall: "0.02"}}},
		Payments: gateway.PaymentsConfig{PayTo: f.receiver.Hex(), Networks: []string{c.Network.CAIP2}},
	}
	var logs bytes.Buffer // written by one slog handler, read once it is done
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Log(logs.String())
		}
	})
	if f.gw, err = gateway.New(cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: settler, Ready: settler.Ready,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))}); err != nil {
		tb.Fatal(err)
	}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.requests.Add(1)
		if r.Header.Get(x402.HeaderPaymentSignature) != "" {
			f.paid.Add(1)
		}
		f.gw.Handler().ServeHTTP(w, r)
	}))
	tb.Cleanup(func() {
		f.srv.Close()
		sctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		f.gw.Shutdown(sctx)
	})
	return f
}

// BenchmarkFareboxVoucherCall is one voucher-paid call through the Go
// transport to farebox in process (its journal and channels in bbolt),
// after the channel's deposit: client and server together, so
// allocs/op counts both sides; requests/op is what farebox received.
func BenchmarkFareboxVoucherCall(b *testing.B) {
	testenv.SkipShort(b, "farebox on the in-process dev chain")
	for _, preempt := range []bool{true, false} {
		b.Run(fmt.Sprintf("preemptive=%v", preempt), func(b *testing.B) {
			f := startFarebox(b, b.TempDir())
			key, _ := crypto.GenerateKey()
			if err := f.chain.Fund(context.Background(), crypto.PubkeyToAddress(key.PublicKey), big.NewInt(1_000_000_000)); err != nil {
				b.Fatal(err)
			}
			reg, _ := x402.NewRegistry(f.chain.Network)
			tr := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithSchemes(channel.Scheme),
				payer.WithPreemptivePayment(preempt), payer.WithMaxDeposit(big.NewInt(500_000_000)), payer.WithDepositMultiplier(100_000))
			client := &http.Client{Transport: tr}
			body := []byte(`{"model":"` + fareboxModel + `","input":"Say hello."}`)
			call := func() {
				resp, err := client.Post(f.srv.URL+"/v1/responses", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Fatal(err)
				}
				var out bytes.Buffer
				out.ReadFrom(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("%d %s", resp.StatusCode, out.String())
				}
			}
			for range 3 {
				call() // the deposit, and connections
			}
			before := f.requests.Load()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				call()
			}
			b.StopTimer()
			b.ReportMetric(float64(f.requests.Load()-before)/float64(b.N), "requests/op")
		})
	}
}
