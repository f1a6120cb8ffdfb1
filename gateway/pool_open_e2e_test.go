package gateway_test

import (
	"context"
	"crypto/ecdsa"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/inprocess"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/upto"
	"github.com/tidwall/gjson"
)

// switchable is a supplier that answers until failing is set, then fails
// as a provider's 503 does; calls counts its Responds.
type switchable struct {
	failing *atomic.Bool
	calls   atomic.Int64
}

func (s *switchable) Respond(ctx context.Context, req *responses.Request, out responses.Output) error {
	s.calls.Add(1)
	if s.failing.Load() {
		return &responses.Error{Status: http.StatusServiceUnavailable, Type: "server_error", Code: "upstream_unavailable", Message: "the provider is down"}
	}
	out.SetUsage(responses.Usage{InputTokens: 40, OutputTokens: 12})
	return out.Text("pooled answer")
}

// beforePaid runs hook once, the first time a request carrying a payment
// passes after arm: the moment between a client's 402 (or its decision
// to pay up front) and its paid request.
type beforePaid struct {
	base  http.RoundTripper
	armed atomic.Bool
	hook  func()
}

func (b *beforePaid) RoundTrip(r *http.Request) (*http.Response, error) {
	paid := r.Header.Get(x402.HeaderPaymentSignature) != "" || r.Header.Get(x402.HeaderXPayment) != ""
	if paid && b.armed.CompareAndSwap(true, false) {
		b.hook()
	}
	return b.base.RoundTrip(r)
}

// When every supplier's circuit is open no supplier is attempted, and a
// paid call is answered 503 with Retry-After before its payment is read:
// nothing reserved, nothing settled, on every scheme. The circuits open
// between a client's 402 and its paid request (another payer's call
// failing at both suppliers), so the paid request
// meets them open, as an attacker's well-timed call would arrange. Judged
// on chain: A's balance does not move for the 503; B pays nothing on a
// metered scheme for its failed call (exact: once, its transfer sent as
// the model started); the receiver gets exactly that.
func TestEveryCircuitOpenTakesNothing(t *testing.T) {
	for _, scheme := range []string{x402.SchemeExact, upto.Scheme, channel.Scheme} {
		t.Run(scheme, func(t *testing.T) {
			cfg, opts, c := meteredConfig(t, nil)
			cfg.Payments.BatchSettlement.ClaimInterval = 0 // the claim below is the shutdown's
			m, sups, failing, other := switchablePool(scheme)
			cfg.Models = append(cfg.Models, m)
			ts := startServer(t, cfg, opts)
			reg, err := x402.NewRegistry(c.Network)
			if err != nil {
				t.Fatal(err)
			}
			receiver := common.HexToAddress(payTo)
			transport := func(key *ecdsa.PrivateKey, scheme string, settled *[]*payer.Settlement, base http.RoundTripper) *payer.Transport {
				var mu sync.Mutex
				return payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithChain(c.Client),
					payer.WithSchemes(scheme), payer.WithPayTo(receiver), payer.WithChannelStore(payer.NewMemoryChannels()),
					payer.WithBase(base),
					payer.OnSettlement(func(s *payer.Settlement) { mu.Lock(); *settled = append(*settled, s); mu.Unlock() }))
			}
			ask := func(cl *http.Client) (int, http.Header, string) {
				res, err := cl.Post(ts.URL+"/responses", "application/json", strings.NewReader(`{"model":"`+pooled+`","input":"hi"}`))
				if err != nil {
					t.Fatal(err)
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				return res.StatusCode, res.Header, string(b)
			}

			a, b := freshPayer(t, c, 1_000_000, false), freshPayer(t, c, 1_000_000, false)
			var aSettled, bSettled []*payer.Settlement
			// The hook sits under A's paying transport: it sees the request
			// the transport sends with the payment.
			hook := &beforePaid{base: http.DefaultTransport}
			aClient := &http.Client{Transport: transport(a, scheme, &aSettled, hook)}
			bClient := &http.Client{Transport: transport(b, other, &bSettled, http.DefaultTransport)}
			receiverBefore := tokenBalance(t, c, receiver)

			// One served call (a channel opens here), then the circuits open
			// under A's next paid request.
			if code, _, body := ask(aClient); code != 200 || len(aSettled) != 1 {
				t.Fatalf("healthy call: %d %s, %d settlements", code, body, len(aSettled))
			}
			charged := aSettled[0].Charged
			if charged == nil || charged.Sign() <= 0 {
				t.Fatalf("the served call's settlement names no charge: %+v", aSettled[0])
			}
			aBefore, bBefore := tokenBalance(t, c, addressOf(a)), tokenBalance(t, c, addressOf(b))
			hook.hook = func() {
				failing.Store(true)
				if code, _, body := ask(bClient); code == 200 {
					t.Errorf("the failing pool served B: %s", body)
				}
			}
			hook.armed.Store(true)
			code, hdr, body := ask(aClient)
			if code != http.StatusServiceUnavailable || gjson.Get(body, "error.code").Str != "no_supplier_available" || hdr.Get("Retry-After") == "" {
				t.Errorf("paid call with every circuit open: %d Retry-After=%q %s, want 503 no_supplier_available with Retry-After", code, hdr.Get("Retry-After"), body)
			}
			if hook.armed.Load() {
				t.Fatal("A's second call never carried a payment: the test did not exercise a paid request")
			}
			// ordered: the first answered A's served call; B's failing call
			// tried both; A's paid request neither.
			for i, want := range []int64{2, 1} {
				if n := sups[i].calls.Load(); n != want {
					t.Errorf("supplier %d ran %d times, want %d", i, n, want)
				}
			}
			if len(aSettled) != 1 {
				t.Errorf("A saw %d settlements, want 1 (the served call)", len(aSettled))
			}
			if got := tokenBalance(t, c, addressOf(a)); got.Cmp(aBefore) != 0 {
				t.Errorf("A's balance moved by %s on a call no supplier was tried for", new(big.Int).Sub(aBefore, got))
			}
			// B's call was tried at both suppliers: a metered scheme charges
			// nothing for a model that failed; exact's transfer went as the
			// model started, so B paid once (and may run the same request
			// with the same payment again at no charge, as documented).
			bPaid := new(big.Int)
			if scheme == x402.SchemeExact {
				bPaid.Set(charged)
			}
			if got := new(big.Int).Sub(bBefore, tokenBalance(t, c, addressOf(b))); got.Cmp(bPaid) != 0 {
				t.Errorf("B paid %s for a call every supplier failed, want %s", got, bPaid)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := ts.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			want := new(big.Int).Add(charged, bPaid)
			if got := new(big.Int).Sub(tokenBalance(t, c, receiver), receiverBefore); got.Cmp(want) != 0 {
				t.Errorf("the receiver got %s, want the served call's charge and B's exact transfer, %s", got, want)
			}
		})
	}
}

// switchablePool is a pool model of two switchable suppliers whose
// circuit opens at one failure, priced for scheme (per call for exact,
// per token otherwise), and the scheme of the payer whose failing call
// opens the circuits.
func switchablePool(scheme string) (gateway.ModelConfig, []*switchable, *atomic.Bool, string) {
	failing := new(atomic.Bool)
	sups := []*switchable{{failing: failing}, {failing: failing}}
	m := gateway.ModelConfig{Name: pooled, Routing: gateway.RoutingConfig{Strategy: "ordered",
		Circuit: gateway.CircuitConfig{Failures: 1, Cooldown: gateway.Duration(time.Hour)}}}
	for i, s := range sups {
		m.Suppliers = append(m.Suppliers, gateway.SupplierConfig{Name: []string{"first", "second"}[i],
			Upstream: inprocess.Kind, UpstreamConfig: inprocess.Use(s)})
	}
	if scheme == x402.SchemeExact {
		m.Price = price
		return m, sups, failing, x402.SchemeExact
	}
	p := meteredPrice
	m.PricePerMTok = &p
	return m, sups, failing, upto.Scheme
}
