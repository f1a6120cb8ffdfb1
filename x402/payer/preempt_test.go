package payer_test

import (
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/payertest"
)

// countedShop serves s and counts every request it receives.
func countedShop(t *testing.T, s *payertest.Shop) (*atomic.Int64, string) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return &n, srv.URL
}

// calls pays one request with body and returns the status and how many
// requests the server saw for it.
func calls(t *testing.T, tr http.RoundTripper, n *atomic.Int64, url, body string) (int, int64) {
	t.Helper()
	before := n.Load()
	code := pay(t, tr, url, body)
	return code, n.Load() - before
}

func TestPreemptivePaymentSkipsThe402(t *testing.T) {
	s, _ := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(400, 250, 1000, 10))
	n, url := countedShop(t, s)
	store := payer.NewMemoryChannels()
	var got payertest.Ledger
	key := payerKey(t)
	tr := payer.NewTransport(payer.NewSigner(key), payer.WithChannelStore(store), got.Option())
	want := []int64{2, 1, 1, 2} // the first call and a new model read the 402 first
	for i, body := range []string{`{"model":"a","n":0}`, `{"model":"a","n":1}`, `{"model":"a","n":2}`, `{"model":"b","n":3}`} {
		code, reqs := calls(t, tr, n, url, body)
		if code != http.StatusOK || reqs != want[i] {
			t.Fatalf("call %d: status %d after %d requests, want 200 after %d (refusals %v)", i, code, reqs, want[i], s.Refused)
		}
	}
	if c := got.Charged(); !slices.Equal(c, []int64{400, 250, 1000, 10}) {
		t.Fatalf("charged %v", c)
	}
	if seen := s.Seen(); !slices.Equal(seen, []string{"batch-settlement:deposit", "batch-settlement:voucher",
		"batch-settlement:voucher", "batch-settlement:voucher"}) {
		t.Fatalf("payments %v", seen)
	}
	st := s.State()
	k := payer.ChannelKey{Payer: crypto.PubkeyToAddress(key.PublicKey), Network: x402.BaseSepolia.CAIP2, Receiver: payTo}
	rec, _ := store.Get(k, st.ChannelID)
	if rec == nil || rec.Charged.Int64() != 1660 || st.Charged.Int64() != 1660 || len(s.Refused) != 0 {
		t.Fatalf("client record %+v, server charged %s, refusals %v: want 1660 both, no refusal", rec, st.Charged, s.Refused)
	}

	// Turned off, every call reads the 402 first.
	off := payer.NewTransport(payer.NewSigner(key), payer.WithChannelStore(store), payer.WithPreemptivePayment(false))
	for i := range 2 {
		if code, reqs := calls(t, off, n, url, `{"model":"a"}`); code != http.StatusOK || reqs != 2 {
			t.Fatalf("without preemption, call %d: status %d after %d requests", i, code, reqs)
		}
	}
}

// A preemptive voucher at a price that went up (or down) is refused with
// the corrective 402, and the call is paid at the new price from it.
func TestPreemptivePaymentFollowsAPriceChange(t *testing.T) {
	for _, price := range []int64{1500, 600} {
		t.Run(fmt.Sprint(price), func(t *testing.T) {
			s, _ := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(300))
			n, url := countedShop(t, s)
			var got payertest.Ledger
			tr := payer.NewTransport(payer.NewSigner(payerKey(t)), payer.WithDepositMultiplier(10), got.Option())
			if code, _ := calls(t, tr, n, url, `{}`); code != http.StatusOK {
				t.Fatalf("status %d", code)
			}
			s.Mu.Lock()
			s.Ceiling = big.NewInt(price)
			s.Mu.Unlock()
			if code, reqs := calls(t, tr, n, url, `{}`); code != http.StatusOK || reqs != 2 {
				t.Fatalf("after the price change: status %d after %d requests, want 200 after 2 (refusals %v)", code, reqs, s.Refused)
			}
			if code, reqs := calls(t, tr, n, url, `{}`); code != http.StatusOK || reqs != 1 {
				t.Fatalf("at the new price: status %d after %d requests, want 200 after 1", code, reqs)
			}
			if !slices.Equal(s.Refused, []string{channel.ReasonCumulativeAmountMismatch}) {
				t.Fatalf("refusals %v, want the one corrective 402", s.Refused)
			}
			st := s.State()
			if st.Charged.Int64() != 900 || !slices.Equal(got.Charged(), []int64{300, 300, 300}) {
				t.Fatalf("server charged %s, client %v", st.Charged, got.Charged())
			}
			// Every voucher signed built on the charges: the last one is charged + the new ceiling.
			if st.SignedMaxClaimable.Int64() != 600+price {
				t.Fatalf("last voucher %s, want %d", st.SignedMaxClaimable, 600+price)
			}
		})
	}
}

// The spend cap and the payTo allow-list judge the remembered terms and
// what the server answers them with.
func TestPreemptivePaymentKeepsTheLimits(t *testing.T) {
	t.Run("price over the cap", func(t *testing.T) {
		s, _ := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(300))
		n, url := countedShop(t, s)
		var refusal error
		tr := payer.NewTransport(payer.NewSigner(payerKey(t)), payer.WithSpendCap(big.NewInt(2500)),
			payer.OnRefusal(func(err error) { refusal = err }))
		pay(t, tr, url, `{}`)
		s.Mu.Lock()
		s.Ceiling = big.NewInt(3000)
		s.Mu.Unlock()
		if code, _ := calls(t, tr, n, url, `{}`); code != http.StatusPaymentRequired || refusal == nil {
			t.Fatalf("status %d, refusal %v: want the 402 over the cap", code, refusal)
		}
		// One preemptive voucher at the old ceiling; nothing was signed at 3000.
		s.Mu.Lock()
		headers := len(s.Headers)
		s.Mu.Unlock()
		if headers != 2 || !slices.Equal(s.Refused, []string{channel.ReasonCumulativeAmountMismatch}) {
			t.Fatalf("%d payments, refusals %v", headers, s.Refused)
		}
	})
	t.Run("payTo changed outside the allow-list", func(t *testing.T) {
		s, _ := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(300))
		n, url := countedShop(t, s)
		tr := payer.NewTransport(payer.NewSigner(payerKey(t)), payer.WithPayTo(payTo))
		if code := pay(t, tr, url, `{}`); code != http.StatusOK {
			t.Fatalf("status %d", code)
		}
		other := common.HexToAddress("0x00000000000000000000000000000000000000b0")
		s.Mu.Lock()
		s.PayTo = other
		s.Mu.Unlock()
		if code, reqs := calls(t, tr, n, url, `{}`); code != http.StatusPaymentRequired || reqs != 1 {
			t.Fatalf("status %d after %d requests, want the 402 to the preemptive voucher", code, reqs)
		}
		if !slices.Equal(s.Refused, []string{channel.ReasonReceiverMismatch}) {
			t.Fatalf("refusals %v", s.Refused)
		}
		// Nothing is ever signed for the new receiver, and the old terms are forgotten.
		if code, reqs := calls(t, tr, n, url, `{}`); code != http.StatusPaymentRequired || reqs != 1 || len(s.Seen()) != 2 {
			t.Fatalf("status %d after %d requests, payments %v", code, reqs, s.Seen())
		}
	})
	t.Run("payTo changed inside the allow-list", func(t *testing.T) {
		s, _ := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(300))
		n, url := countedShop(t, s)
		other := common.HexToAddress("0x00000000000000000000000000000000000000b0")
		tr := payer.NewTransport(payer.NewSigner(payerKey(t)), payer.WithPayTo(payTo, other))
		pay(t, tr, url, `{}`)
		s.Mu.Lock()
		s.PayTo = other
		s.Mu.Unlock()
		if code, reqs := calls(t, tr, n, url, `{}`); code != http.StatusOK || reqs != 2 {
			t.Fatalf("status %d after %d requests", code, reqs)
		}
		if code, reqs := calls(t, tr, n, url, `{}`); code != http.StatusOK || reqs != 1 {
			t.Fatalf("status %d after %d requests", code, reqs)
		}
		if seen := s.Seen(); !slices.Equal(seen, []string{"batch-settlement:deposit", "batch-settlement:voucher",
			"batch-settlement:deposit", "batch-settlement:voucher"}) {
			t.Fatalf("payments %v: want a new channel for the new receiver", seen)
		}
	})
	t.Run("a budget hook refuses", func(t *testing.T) {
		s, _ := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(300))
		n, url := countedShop(t, s)
		tr := payer.NewTransport(payer.NewSigner(payerKey(t)))
		pay(t, tr, url, `{}`)
		var asked, refused int
		h := &payer.Hooks{Authorize: func(*x402.Requirement) error { asked++; return errors.New("over budget") },
			Refused: func(error) { refused++ }}
		req, _ := http.NewRequestWithContext(payer.WithHooks(t.Context(), h), http.MethodPost, url, nil)
		before := n.Load()
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusPaymentRequired || n.Load()-before != 1 || asked != 2 || refused != 1 || len(s.Seen()) != 1 {
			t.Fatalf("status %d, %d requests, asked %d, refused %d, payments %v: want the unpaid 402",
				resp.StatusCode, n.Load()-before, asked, refused, s.Seen())
		}
	})
}

// A preemptive voucher whose answer is lost is presented again by the
// retry, and a refusal of it for the balance makes the next call deposit.
func TestPreemptivePaymentRetriesAndRefusals(t *testing.T) {
	s, _ := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(1000))
	n, url := countedShop(t, s)
	tr := payer.NewTransport(payer.NewSigner(payerKey(t)), payer.WithDepositMultiplier(2))
	pay(t, tr, url, `{"n":1}`)
	s.Mu.Lock()
	s.FailNext = true
	s.Mu.Unlock()
	if code, reqs := calls(t, tr, n, url, `{"n":2}`); code != http.StatusBadGateway || reqs != 1 {
		t.Fatalf("status %d after %d requests", code, reqs)
	}
	if code, reqs := calls(t, tr, n, url, `{"n":2}`); code != http.StatusOK || reqs != 1 {
		t.Fatalf("retry: status %d after %d requests", code, reqs)
	}
	s.Mu.Lock()
	h := s.Headers
	s.Mu.Unlock()
	if len(h) != 3 || h[1] != h[2] {
		t.Fatalf("the retry did not present the same voucher")
	}
	// The channel (2000) is spent: the next call reads the 402 and deposits.
	if code, reqs := calls(t, tr, n, url, `{"n":3}`); code != http.StatusOK || reqs != 2 {
		t.Fatalf("status %d after %d requests", code, reqs)
	}
	if seen := s.Seen(); !slices.Equal(seen, []string{"batch-settlement:deposit", "batch-settlement:502",
		"batch-settlement:voucher", "batch-settlement:deposit"}) || len(s.Refused) != 0 {
		t.Fatalf("payments %v, refusals %v", seen, s.Refused)
	}
}
