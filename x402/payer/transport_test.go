package payer_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

var payTo = common.HexToAddress("0x209693Bc6afc0C5328bA36FaF03C514EF312287C")

// shop is a tiny paid endpoint built from the x402 package's own offer,
// decode, verify and replay functions: what a gateway does, minus the rest.
type shop struct {
	t        *testing.T
	amount   *big.Int
	v1Only   bool
	used     sync.Map // x402.Key: each authorization is accepted once
	verifier x402.Verifier
	mu       sync.Mutex
	bodies   []string
	versions []int
}

func (s *shop) requirements(r *http.Request) []*x402.Requirement {
	s.mu.Lock()
	amount := new(big.Int).Set(s.amount)
	s.mu.Unlock()
	return []*x402.Requirement{{Scheme: x402.SchemeExact, Network: x402.BaseSepolia, Amount: amount, PayTo: payTo,
		MaxTimeoutSeconds: 300, Resource: "http://" + r.Host + r.URL.Path, Description: "test", MimeType: "application/json"}}
}

func (s *shop) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	reqs := s.requirements(r)
	version, header := 2, r.Header.Get(x402.HeaderPaymentSignature)
	if header == "" {
		version, header = 1, r.Header.Get(x402.HeaderXPayment)
	}
	s.mu.Lock()
	s.bodies = append(s.bodies, string(body))
	s.versions = append(s.versions, version)
	s.mu.Unlock()
	if header == "" {
		if !s.v1Only {
			w.Header().Set(x402.HeaderPaymentRequired, x402.PaymentRequiredHeader(reqs, "payment required"))
		}
		w.WriteHeader(http.StatusPaymentRequired)
		io.WriteString(w, `{"error":{"message":"pay","type":"invalid_request_error","code":"payment_required"},"x402Version":1,"accepts":`+string(x402.V1Accepts(reqs))+`}`)
		return
	}
	p, err := x402.DecodePayment(header, version)
	if err == nil {
		var req *x402.Requirement
		if req, err = s.verifier.Verify(r.Context(), p, reqs); err == nil {
			if _, taken := s.used.LoadOrStore(p.Key(req.Network), true); taken {
				err = errors.New("authorization already used")
			}
		}
	}
	if err != nil {
		w.WriteHeader(http.StatusPaymentRequired)
		io.WriteString(w, `{"error":{"message":"`+err.Error()+`"}}`)
		return
	}
	rc := &x402.Receipt{Success: true, Payer: p.Authorization.From.Hex(), Transaction: "0x01", Network: p.Network}
	if version == 2 {
		w.Header().Set(x402.HeaderPaymentResponse, x402.EncodeReceipt(rc))
	} else {
		w.Header().Set(x402.HeaderXPaymentResponse, x402.EncodeReceipt(rc))
	}
	io.WriteString(w, `{"ok":true}`)
}

func newShop(t *testing.T, amount int64) (*shop, *httptest.Server) {
	s := &shop{t: t, amount: big.NewInt(amount)}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv
}

func payerKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// post sends a body that cannot be rewound, so the transport must buffer it.
func post(t *testing.T, c *http.Client, url, body string) *http.Response {
	req, err := http.NewRequest(http.MethodPost, url, io.NopCloser(strings.NewReader(body)))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestTransportPaysOnceAndReadsTheReceipt(t *testing.T) {
	for _, tc := range []struct {
		name    string
		v1Only  bool
		version int
	}{{"v2 header offer", false, 2}, {"v1-only body offer", true, 1}} {
		t.Run(tc.name, func(t *testing.T) {
			s, srv := newShop(t, 1000)
			s.v1Only = tc.v1Only
			signer := payer.NewSigner(payerKey(t))
			var receipts []*x402.Receipt
			tr := payer.NewTransport(signer, payer.WithPayTo(payTo), payer.OnReceipt(func(r *x402.Receipt) { receipts = append(receipts, r) }))
			resp := post(t, &http.Client{Transport: tr}, srv.URL+"/v1/responses", `{"model":"m","input":"hi"}`)
			if resp.StatusCode != http.StatusOK {
				b, _ := io.ReadAll(resp.Body)
				t.Fatalf("status %d: %s", resp.StatusCode, b)
			}
			if len(s.bodies) != 2 || s.bodies[0] != s.bodies[1] || s.bodies[1] != `{"model":"m","input":"hi"}` {
				t.Fatalf("server saw bodies %q, want the same body twice", s.bodies)
			}
			if s.versions[1] != tc.version {
				t.Fatalf("paid with x402 v%d, want v%d", s.versions[1], tc.version)
			}
			if len(receipts) != 1 || !receipts[0].Success || receipts[0].Payer != signer.Address().Hex() {
				t.Fatalf("receipts = %+v", receipts)
			}
		})
	}
}

func TestTransportRefusesToPay(t *testing.T) {
	other := common.HexToAddress("0x0000000000000000000000000000000000000bad")
	for _, tc := range []struct {
		name   string
		amount int64
		opts   []payer.Option
		why    string
	}{
		{"over the default spend cap", 100_001, nil, "spend cap"},
		{"over a configured spend cap", 1000, []payer.Option{payer.WithSpendCap(big.NewInt(999))}, "spend cap"},
		{"payTo not allowed", 1000, []payer.Option{payer.WithPayTo(other)}, "allow-list"},
		{"network not configured", 1000, []payer.Option{payer.WithNetworks(mustRegistry(t, x402.Base))}, "not configured"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, srv := newShop(t, tc.amount)
			var refusal error
			opts := append([]payer.Option{payer.OnRefusal(func(err error) { refusal = err })}, tc.opts...)
			tr := payer.NewTransport(payer.NewSigner(payerKey(t)), opts...)
			resp := post(t, &http.Client{Transport: tr}, srv.URL, "{}")
			if resp.StatusCode != http.StatusPaymentRequired {
				t.Fatalf("status %d, want the server's 402", resp.StatusCode)
			}
			b, _ := io.ReadAll(resp.Body)
			if !strings.Contains(string(b), `"payment_required"`) {
				t.Fatalf("the 402 body did not reach the caller intact: %s", b)
			}
			if len(s.bodies) != 1 {
				t.Fatalf("server saw %d requests, want 1 (no payment)", len(s.bodies))
			}
			if refusal == nil || !strings.Contains(refusal.Error(), tc.why) {
				t.Fatalf("refusal = %v, want one mentioning %q", refusal, tc.why)
			}
		})
	}
}

func mustRegistry(t *testing.T, nets ...*x402.Network) *x402.Registry {
	r, err := x402.NewRegistry(nets...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSignerSignsLikeTheReferenceClients(t *testing.T) {
	now := time.Unix(1_760_000_000, 0)
	s := payer.NewSigner(payerKey(t))
	s.Now = func() time.Time { return now }
	req := &x402.Requirement{Scheme: x402.SchemeExact, Network: x402.Base, Amount: big.NewInt(1234), PayTo: payTo, MaxTimeoutSeconds: 120}
	p, err := s.Sign(req, 2)
	if err != nil {
		t.Fatal(err)
	}
	a := p.Authorization
	if a.From != s.Address() || a.To != payTo || a.Value.Int64() != 1234 || a.ValidAfter.Sign() != 0 || a.ValidBefore.Int64() != now.Unix()+120 {
		t.Fatalf("authorization = %+v", a)
	}
	if v := p.Signature[64]; v != 27 && v != 28 {
		t.Fatalf("v = %d, want 27 or 28", v)
	}
	s.Backdate = 600 * time.Second
	q, _ := s.Sign(req, 2)
	if q.Authorization.ValidAfter.Int64() != now.Unix()-600 {
		t.Fatalf("validAfter = %s, want now-600", q.Authorization.ValidAfter)
	}
	if q.Authorization.Nonce == a.Nonce {
		t.Fatal("two authorizations share a nonce")
	}
	v := x402.Verifier{Now: func() time.Time { return now }}
	for _, version := range []int{1, 2} {
		name, value, err := s.PaymentHeader(req, version)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[int]string{1: "X-PAYMENT", 2: "PAYMENT-SIGNATURE"}[version]; name != want {
			t.Fatalf("header name %q, want %q", name, want)
		}
		dec, err := x402.DecodePayment(value, version)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := v.Verify(context.Background(), dec, []*x402.Requirement{req}); err != nil {
			t.Fatalf("v%d: a signed payment does not verify: %v", version, err)
		}
	}
}

func TestReplayedHeaderIsRefusedByTheShop(t *testing.T) {
	_, srv := newShop(t, 1000)
	s := payer.NewSigner(payerKey(t))
	req := &x402.Requirement{Scheme: x402.SchemeExact, Network: x402.BaseSepolia, Amount: big.NewInt(1000), PayTo: payTo, MaxTimeoutSeconds: 300}
	name, value, err := s.PaymentHeader(req, 2)
	if err != nil {
		t.Fatal(err)
	}
	tr := payer.NewTransport(s)
	var codes []int
	for i := 0; i < 2; i++ {
		r, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader("{}"))
		r.Header.Set(name, value) // pre-signed: the transport must not pay again
		resp, err := (&http.Client{Transport: tr}).Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	if codes[0] != 200 || codes[1] != 402 {
		t.Fatalf("statuses %v, want [200 402]", codes)
	}
}
