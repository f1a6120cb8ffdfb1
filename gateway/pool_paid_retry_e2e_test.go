package gateway_test

import (
	"context"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/x402"
	"github.com/openai/openai-go/v3"
	oresponses "github.com/openai/openai-go/v3/responses"
)

// A reseller pools two farebox sellers; the first is paid and its model's
// provider fails that first run (the seller answers 502). Before, the call
// ended with the 502: the wallet had paid for nothing it could resell. Now
// the reseller sends the same request again to the same seller with the
// same payment header; the seller knows the payment (its journal), has no
// answer stored for it, runs its model once more and answers. The client's
// call succeeds, served by the first seller; the wallet paid exactly one
// seller's price, the second seller nothing, and the pool's books count
// what the wallet paid, chain-judged.
func TestPaidSellerRetriedWithTheSamePayment(t *testing.T) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	target, _ := url.Parse(up.URL())
	forward := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	var runs atomic.Int64
	provider := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if runs.Add(1) == 1 { // the paid run fails once
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"error":{"message":"provider failed","type":"server_error"}}`)
			return
		}
		forward.ServeHTTP(w, r)
	}))
	defer provider.Close()
	pr := startPairedSellers(t, provider.URL+"/v1", nil)
	pr.callOnce(t)
	if n := runs.Load(); n != 2 {
		t.Errorf("the first seller's provider ran %d times, want 2 (the failed run and the retry's)", n)
	}
	pr.judge(t)
}

// The same with the connection cut instead: the first seller is paid,
// serves its answer (the seller's model runs and its answer is stored for
// the payment), and the connection to the reseller is reset before a byte
// of that answer reaches it. The reseller retries the same seller with the
// same payment header and is answered with the stored answer: the model
// does not run again and nothing more is paid.
func TestFaultPaidSellerConnectionResetRetriedWithTheSamePayment(t *testing.T) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	var cut atomic.Bool
	pr := startPairedSellers(t, up.URL(), func(seller string) http.Handler {
		target, _ := url.Parse(seller)
		forward := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get(x402.HeaderPaymentSignature) == "" || !cut.CompareAndSwap(false, true) {
				forward.ServeHTTP(w, r)
				return
			}
			// The first paid request reaches the seller, whose whole
			// answer is read here and dropped with the connection.
			req, _ := http.NewRequestWithContext(r.Context(), r.Method, strings.TrimSuffix(seller, "/v1")+r.URL.Path, r.Body)
			req.Header = r.Header.Clone()
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Errorf("the first paid request: %v", err)
			} else {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.SetLinger(0) // a reset, not a clean close
			}
			conn.Close()
		})
	})
	pr.callOnce(t)
	if !cut.Load() {
		t.Fatal("no paid request reached the first seller")
	}
	if n := len(up.Records()); n != 1 {
		t.Errorf("the first seller's model ran %d times, want 1 (the retry is answered from the seller's stored answer)", n)
	}
	pr.judge(t)
}

// pairedSellers is a reseller whose pool buys from two farebox sellers on
// one anvil, in order: "first", whose model is an openai provider, and
// "second", a scripted model; the chain judges the five accounts.
type pairedSellers struct {
	client   *openai.Client
	reseller *testServer
	balances func() map[string]*big.Int
	before   map[string]*big.Int
}

// startPairedSellers runs the sellers and the reseller; front, when set,
// stands between the reseller and the first seller (given its URL).
func startPairedSellers(t *testing.T, providerURL string, front func(seller string) http.Handler) *pairedSellers {
	a := sharedAnvil(t)
	seller := func(model gateway.ModelConfig) (*testServer, common.Address) {
		pc, env := chainSettled(t, a)
		ts := startServer(t, gateway.Config{Models: []gateway.ModelConfig{model}, Payments: pc},
			gateway.Options{Getenv: func(k string) string { return env[k] }})
		return ts, common.HexToAddress(pc.PayTo)
	}
	first, firstPayTo := seller(gateway.ModelConfig{Name: sellerModel, Price: "0.001", Upstream: "openai",
		UpstreamConfig: endpoint("openai", providerURL, "fixed")})
	second, secondPayTo := seller(gateway.ModelConfig{Name: sellerModel, Upstream: "scripted", Price: "0.001"})
	firstURL := first.URL
	if front != nil {
		fs := httptest.NewServer(front(first.URL))
		t.Cleanup(fs.Close)
		firstURL = fs.URL + "/v1"
	}

	wallet, pc, env := resellerWallet(t, a, 20*sellerPrice)
	resellerPayTo := common.HexToAddress(pc.PayTo)
	sup := x402Supplier
	reseller := startServer(t, gateway.Config{Payments: pc, Models: []gateway.ModelConfig{{Name: resoldModel, Price: "0.002",
		Suppliers: []gateway.SupplierConfig{sup("first", firstURL), sup("second", second.URL)},
		Routing:   gateway.RoutingConfig{Strategy: "ordered", Circuit: gateway.CircuitConfig{Failures: 5, Cooldown: gateway.Duration(time.Hour)}}}}},
		gateway.Options{Getenv: func(k string) string { return env[k] }})

	userKey, _ := crypto.GenerateKey()
	user := crypto.PubkeyToAddress(userKey.PublicKey)
	if err := a.Fund(context.Background(), user, 20*resalePrice); err != nil {
		t.Fatal(err)
	}
	accounts := map[string]common.Address{"wallet": wallet, "first": firstPayTo, "second": secondPayTo, "user": user, "reseller": resellerPayTo}
	pr := &pairedSellers{client: payingReseller(t, reseller, a.Network, userKey, resellerPayTo), reseller: reseller}
	pr.balances = func() map[string]*big.Int {
		out := map[string]*big.Int{}
		for k, addr := range accounts {
			out[k] = usdcBalance(t, a, addr)
		}
		return out
	}
	pr.before = pr.balances()
	return pr
}

// callOnce makes one paid call of the resold model: it must be answered,
// by the first seller (the provider's fixed text, not the scripted one).
func (pr *pairedSellers) callOnce(t *testing.T) {
	res, err := pr.client.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: resoldModel, Input: userText("retry me")})
	if err != nil {
		t.Fatalf("the call failed: %v", err)
	}
	if got := res.OutputText(); got != fakeupstream.DefaultText {
		t.Errorf("answered %q, want the first seller's %q", got, fakeupstream.DefaultText)
	}
}

// judge checks the chain after one call: the client paid the resale price
// once, the wallet one seller's price, to the first seller only, and the
// pool booked as its suppliers' cost what the wallet paid.
func (pr *pairedSellers) judge(t *testing.T) {
	after := pr.balances()
	moved := map[string]int64{}
	for who, want := range map[string]int64{"user": -resalePrice, "reseller": resalePrice, "wallet": -sellerPrice, "first": sellerPrice, "second": 0} {
		got := new(big.Int).Sub(after[who], pr.before[who]).Int64()
		moved[who] = got
		if got != want {
			t.Errorf("%s moved %d, want %d", who, got, want)
		}
	}
	if booked := suppliersSpent(t, pr.reseller, resoldModel); booked != -moved["wallet"] {
		t.Errorf("the pool booked %d as its suppliers' cost; the wallet paid %d", booked, -moved["wallet"])
	}
}
