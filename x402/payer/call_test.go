package payer_test

import (
	"context"
	"encoding/hex"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/payertest"
)

// postIn sends body to url under ctx and returns the status (0 and the
// error when nothing was answered).
func postIn(t *testing.T, ctx context.Context, c *http.Client, url, body string) (int, error) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, nil
}

// A call's retry presents the payment its first request left unanswered
// (a 502, a reset connection), and only that call does: an identical
// request from another caller sent in between signs its own. Once the
// call's payment was answered, a retry signs nothing.
func TestCallRetryPresentsItsOwnPayment(t *testing.T) {
	for _, fail := range []string{"502", "reset"} {
		t.Run(fail, func(t *testing.T) {
			s, srv := newFlakyShop(t, 1, fail)
			c := &http.Client{Transport: payer.NewTransport(payer.NewSigner(payerKey(t)))}
			var signed int
			call := payer.NewCall()
			ctx := payer.WithCall(payer.WithHooks(context.Background(), &payer.Hooks{
				Signed: func(*x402.Requirement, *x402.Payment) { signed++ }}), call)
			const body = `{"same":"body"}`
			if code, err := postIn(t, ctx, c, srv.URL, body); code == 200 || !call.Paid() {
				t.Fatalf("the first request: %d %v, paid %v: want a failure after paying", code, err, call.Paid())
			}
			// Another caller's identical request: its own purchase.
			if code, _ := postIn(t, context.Background(), c, srv.URL, body); code == 200 {
				t.Fatal("the other caller's first attempt was served: it presented the call's payment")
			}
			if code, err := postIn(t, ctx, c, srv.URL, body); code != 200 || err != nil {
				t.Fatalf("the call's retry: %d %v, want it served", code, err)
			}
			if _, err := postIn(t, ctx, c, srv.URL, body); !errors.Is(err, payer.ErrNotPresentable) {
				t.Fatalf("a retry after the answer: %v, want ErrNotPresentable", err)
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if len(s.nonces) != 3 || s.nonces[0] != s.nonces[2] || s.nonces[1] == s.nonces[0] || signed != 1 {
				t.Fatalf("nonces %v, the call signed %d: want the call's payment presented twice, the other caller's once", s.nonces, signed)
			}
		})
	}
}

// A 402 to a call's retry is the seller's refusal of that payment: the
// call signs no second one, even for a refusal that proves the first was
// never spendable (a request outside a call would sign anew).
func TestCallRetryRefusedSignsNothing(t *testing.T) {
	var mu sync.Mutex
	var nonces []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs := []*x402.Requirement{{Scheme: x402.SchemeExact, Network: x402.BaseSepolia, Amount: big.NewInt(10), PayTo: payTo, MaxTimeoutSeconds: 60, Resource: "http://x/"}}
		w.Header().Set(x402.HeaderPaymentRequired, x402.PaymentRequiredHeader(reqs, ""))
		h := r.Header.Get(x402.HeaderPaymentSignature)
		if h == "" {
			w.WriteHeader(402)
			return
		}
		p, _ := x402.DecodePayment(h, 2)
		mu.Lock()
		defer mu.Unlock()
		nonces = append(nonces, hex.EncodeToString(p.Authorization.Nonce[:]))
		if len(nonces) == 1 {
			w.WriteHeader(502)
			return
		}
		w.WriteHeader(402)
		io.WriteString(w, `{"error":{"message":"no","code":"`+x402.ReasonSignature+`"}}`)
	}))
	defer srv.Close()
	c := &http.Client{Transport: payer.NewTransport(payer.NewSigner(payerKey(t)))}
	var signed, voided int
	ctx := payer.WithCall(payer.WithHooks(context.Background(), &payer.Hooks{
		Signed: func(*x402.Requirement, *x402.Payment) { signed++ },
		Void:   func(*x402.Requirement, *x402.Payment) { voided++ }}), payer.NewCall())
	var codes []int
	for range 2 {
		code, err := postIn(t, ctx, c, srv.URL, `{}`)
		if err != nil {
			t.Fatal(err)
		}
		codes = append(codes, code)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(nonces) != 2 || nonces[0] != nonces[1] || codes[1] != 402 || signed != 1 || voided != 1 {
		t.Fatalf("nonces %v codes %v signed %d voided %d: want the refused payment voided and none signed after it", nonces, codes, signed, voided)
	}
}

// A call to a batch-settlement seller retries with the same payment too:
// the deposit, then a voucher (sent without a 402 first), each failed
// once and presented again under its call, nothing signed twice.
func TestCallRetryPresentsTheSameChannelPayment(t *testing.T) {
	s, srv := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(700))
	c := &http.Client{Transport: payer.NewTransport(payer.NewSigner(payerKey(t)))}
	for _, body := range []string{`{"n":1}`, `{"n":2}`} {
		s.Mu.Lock()
		s.FailNext = true
		before := len(s.Headers)
		s.Mu.Unlock()
		var signed int
		ctx := payer.WithCall(payer.WithHooks(context.Background(), &payer.Hooks{
			Signed: func(*x402.Requirement, *x402.Payment) { signed++ }}), payer.NewCall())
		if code, err := postIn(t, ctx, c, srv.URL, body); code != http.StatusBadGateway {
			t.Fatalf("status %d %v, want the 502", code, err)
		}
		if code, err := postIn(t, ctx, c, srv.URL, body); code != http.StatusOK {
			t.Fatalf("retry: status %d %v, refusals %v", code, err, s.Refused)
		}
		s.Mu.Lock()
		h := s.Headers[before:]
		s.Mu.Unlock()
		if len(h) != 2 || h[0] != h[1] || signed != 1 {
			t.Fatalf("%s: %d payments (identical %v), %d signed: want one presented twice", body, len(h), len(h) == 2 && h[0] == h[1], signed)
		}
	}
	if st := s.State(); st.Balance.Int64() != 5000 || st.Charged.Int64() != 1400 {
		t.Fatalf("server balance %s charged %s: want one deposit of 5000 and two charges", st.Balance, st.Charged)
	}
	if seen := s.Seen(); !slices.Equal(seen, []string{"batch-settlement:502", "batch-settlement:deposit", "batch-settlement:502", "batch-settlement:voucher"}) {
		t.Fatalf("payments %v", seen)
	}
}
