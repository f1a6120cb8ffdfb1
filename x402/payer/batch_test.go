package payer_test

import (
	"encoding/base64"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/payertest"
	"github.com/farebox/farebox/x402/upto"
)

// pay sends one POST with body through tr and returns the status.
func pay(t *testing.T, tr http.RoundTripper, url, body string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestPrefersBatchSettlementThenUptoThenExact(t *testing.T) {
	for _, tc := range []struct {
		name    string
		offered []string
		opts    []payer.Option
		want    string
	}{
		{"all three offered", nil, nil, "batch-settlement:deposit"},
		{"no channel offered", []string{x402.SchemeExact, upto.Scheme}, nil, upto.Scheme},
		{"only exact offered", []string{x402.SchemeExact}, nil, x402.SchemeExact},
		{"restricted to upto and exact", nil, []payer.Option{payer.WithSchemes(upto.Scheme, x402.SchemeExact)}, upto.Scheme},
		{"restricted to exact", nil, []payer.Option{payer.WithSchemes(x402.SchemeExact)}, x402.SchemeExact},
		{"exact preferred", nil, []payer.Option{payer.WithSchemes(x402.SchemeExact, channel.Scheme)}, x402.SchemeExact},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, srv := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(400))
			if tc.offered != nil {
				s.Schemes = tc.offered
			}
			var got *payer.Settlement
			opts := append([]payer.Option{payer.OnSettlement(func(st *payer.Settlement) { got = st })}, tc.opts...)
			tr := payer.NewTransport(payer.NewSigner(payerKey(t)), opts...)
			if code := pay(t, tr, srv.URL, `{"n":1}`); code != http.StatusOK {
				t.Fatalf("status %d, refusals %v", code, s.Refused)
			}
			if seen := s.Seen(); len(seen) != 1 || seen[0] != tc.want {
				t.Fatalf("paid with %v, want [%s]", seen, tc.want)
			}
			want := int64(400) // what the shop charged
			if tc.want == x402.SchemeExact {
				want = 1000 // exact pays the ceiling
			}
			if got == nil || got.Charged == nil || got.Charged.Int64() != want {
				t.Fatalf("settlement %+v, want a charge of %d", got, want)
			}
		})
	}
}

func TestBatchVouchersFollowReceiptsAndTopUp(t *testing.T) {
	s, srv := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(640, 1000, 0, 337, 1000, 1000))
	var got payertest.Ledger
	store := payer.NewMemoryChannels()
	key := payerKey(t)
	tr := payer.NewTransport(payer.NewSigner(key), payer.WithChannelStore(store), payer.WithDepositMultiplier(3), got.Option())
	for i := range 6 {
		if code := pay(t, tr, srv.URL, fmt.Sprintf(`{"n":%d}`, i)); code != http.StatusOK {
			t.Fatalf("call %d: status %d, refusals %v", i, code, s.Refused)
		}
	}
	// cumulative ceilings 1000, 1640, 2640, 2640, 2977 fit the 3000 deposit; 3977 does not.
	want := []string{"batch-settlement:deposit", "batch-settlement:voucher", "batch-settlement:voucher",
		"batch-settlement:voucher", "batch-settlement:voucher", "batch-settlement:deposit"}
	if seen := s.Seen(); !slices.Equal(seen, want) {
		t.Fatalf("payments %v, want %v", seen, want)
	}
	if c := got.Charged(); !slices.Equal(c, []int64{640, 1000, 0, 337, 1000, 1000}) {
		t.Fatalf("settlements charged %v", c)
	}
	st := s.State()
	rec, err := store.Get(payer.ChannelKey{Payer: crypto.PubkeyToAddress(key.PublicKey), Network: x402.BaseSepolia.CAIP2, Receiver: payTo}, st.ChannelID)
	if err != nil || rec == nil {
		t.Fatalf("no channel record: %v", err)
	}
	if rec.Charged.Cmp(st.Charged) != 0 || rec.Charged.Int64() != 3977 || rec.Balance.Cmp(st.Balance) != 0 || rec.Balance.Int64() != 6000 {
		t.Fatalf("client record charged %s balance %s, server charged %s balance %s", rec.Charged, rec.Balance, st.Charged, st.Balance)
	}
	if len(s.Refused) != 0 {
		t.Fatalf("refusals %v", s.Refused)
	}
}

func TestChannelStorePersistsAcrossRestarts(t *testing.T) {
	s, srv := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(250))
	dir := t.TempDir()
	key := payerKey(t)
	transport := func() *payer.Transport {
		store, err := payer.NewFileChannels(dir)
		if err != nil {
			t.Fatal(err)
		}
		return payer.NewTransport(payer.NewSigner(key), payer.WithChannelStore(store))
	}
	for i := range 2 {
		if code := pay(t, transport(), srv.URL, fmt.Sprintf(`{"n":%d}`, i)); code != http.StatusOK {
			t.Fatalf("call %d: %d %v", i, code, s.Refused)
		}
	}
	// Four "processes" share the directory and pay concurrently: the lock
	// serialises them, so every voucher builds on the last receipt.
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := transport()
			for i := range 3 {
				if code := pay(t, tr, srv.URL, fmt.Sprintf(`{"g":%d,"n":%d}`, g, i)); code != http.StatusOK {
					t.Errorf("goroutine %d call %d: %d", g, i, code)
				}
			}
		}()
	}
	wg.Wait()
	seen := s.Seen()
	if len(seen) != 14 || seen[0] != "batch-settlement:deposit" || slices.Contains(seen[1:], "batch-settlement:deposit") || len(s.Refused) != 0 {
		t.Fatalf("payments %v, refusals %v: want one deposit, then vouchers only", seen, s.Refused)
	}
	if st := s.State(); st.Charged.Int64() != 14*250 {
		t.Fatalf("server charged %s, want %d", st.Charged, 14*250)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*.json"))
	if len(files) != 1 {
		t.Fatalf("store files %v, want one per payer/network/receiver", files)
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), `"chargedCumulativeAmount": 3500`) {
		t.Fatalf("store file does not hold the charged total:\n%s", b)
	}
}

func TestCorrective402Resynchronises(t *testing.T) {
	s, srv := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(300))
	store := payer.NewMemoryChannels()
	key := payerKey(t)
	var got payertest.Ledger
	tr := payer.NewTransport(payer.NewSigner(key), payer.WithChannelStore(store), got.Option())
	pay(t, tr, srv.URL, `{"n":1}`)
	s.Mu.Lock()
	s.DropNext = true // the client never learns this charge
	s.Mu.Unlock()
	pay(t, tr, srv.URL, `{"n":2}`)
	if code := pay(t, tr, srv.URL, `{"n":3}`); code != http.StatusOK {
		t.Fatalf("status %d after the corrective 402, refusals %v", code, s.Refused)
	}
	if !slices.Equal(s.Refused, []string{channel.ReasonCumulativeAmountMismatch}) {
		t.Fatalf("refusals %v, want one corrective 402", s.Refused)
	}
	st := s.State()
	k := payer.ChannelKey{Payer: crypto.PubkeyToAddress(key.PublicKey), Network: x402.BaseSepolia.CAIP2, Receiver: payTo}
	rec, _ := store.Get(k, st.ChannelID)
	if rec.Charged.Int64() != 900 || st.Charged.Int64() != 900 {
		t.Fatalf("client charged %s, server %s, want 900 both", rec.Charged, st.Charged)
	}

	// A corrective 402 whose voucher the payer never signed is not adopted.
	other, _ := crypto.GenerateKey()
	s.Mu.Lock()
	forged := *st
	forged.Charged = big.NewInt(5000)
	forged.SignedMaxClaimable = big.NewInt(5000)
	forged.Signature, _ = crypto.Sign(func() []byte { d := s.Contracts.VoucherDigest(st.ChannelID, forged.Charged); return d[:] }(), other)
	s.States[st.ChannelID] = &forged
	s.Mu.Unlock()
	if code := pay(t, tr, srv.URL, `{"n":4}`); code != http.StatusPaymentRequired {
		t.Fatalf("status %d, want the server's 402 passed through", code)
	}
	if rec, _ := store.Get(k, st.ChannelID); rec.Charged.Int64() != 900 {
		t.Fatalf("client adopted a forged charged amount %s", rec.Charged)
	}
}

func TestBatchSpendCap(t *testing.T) {
	t.Run("ceiling over the cap", func(t *testing.T) {
		s, srv := payertest.NewShop(t, x402.BaseSepolia, 2000, payertest.Charges(1))
		var refusal error
		tr := payer.NewTransport(payer.NewSigner(payerKey(t)), payer.WithSpendCap(big.NewInt(1999)),
			payer.OnRefusal(func(err error) { refusal = err }))
		if code := pay(t, tr, srv.URL, `{}`); code != http.StatusPaymentRequired {
			t.Fatalf("status %d", code)
		}
		if len(s.Seen()) != 0 || refusal == nil || strings.Count(refusal.Error(), "spend cap") != 3 {
			t.Fatalf("payments %v, refusal %v: want no payment and each scheme refused for the cap", s.Seen(), refusal)
		}
	})
	t.Run("deposit bounded by the cap", func(t *testing.T) {
		s, srv := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(1000))
		var got payertest.Ledger
		tr := payer.NewTransport(payer.NewSigner(payerKey(t)), payer.WithSpendCap(big.NewInt(2500)), got.Option())
		for i := range 3 {
			if code := pay(t, tr, srv.URL, fmt.Sprintf(`{"n":%d}`, i)); code != http.StatusOK {
				t.Fatalf("call %d: %d %v", i, code, s.Refused)
			}
		}
		// 5 x 1000 is over the cap: deposits of 2500 each time the channel runs dry.
		var deposits []int64
		for _, st := range got.Settlements() {
			if st.Deposited != nil {
				deposits = append(deposits, st.Deposited.Int64())
			}
		}
		if !slices.Equal(deposits, []int64{2500, 2500}) || !slices.Equal(s.Seen(), []string{"batch-settlement:deposit",
			"batch-settlement:voucher", "batch-settlement:deposit"}) {
			t.Fatalf("deposits %v, payments %v", deposits, s.Seen())
		}
	})
}

func TestMaxDepositBoundsDepositsInsteadOfTheCap(t *testing.T) {
	s, srv := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(1000))
	var got payertest.Ledger
	tr := payer.NewTransport(payer.NewSigner(payerKey(t)), payer.WithSpendCap(big.NewInt(1000)),
		payer.WithMaxDeposit(big.NewInt(3000)), got.Option())
	if code := pay(t, tr, srv.URL, `{}`); code != http.StatusOK {
		t.Fatalf("status %d %v", code, s.Refused)
	}
	if _, deposited := got.Totals(); deposited.Int64() != 3000 {
		t.Fatalf("deposited %s, want 5 x 1000 cut to the max deposit of 3000", deposited)
	}
}

func TestBatchRetryPresentsTheSamePayment(t *testing.T) {
	s, srv := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(700))
	dir := t.TempDir()
	key := payerKey(t)
	transport := func() *payer.Transport {
		store, err := payer.NewFileChannels(dir)
		if err != nil {
			t.Fatal(err)
		}
		return payer.NewTransport(payer.NewSigner(key), payer.WithChannelStore(store))
	}
	a := transport()
	for _, restart := range []bool{true, false} { // first a deposit, then a voucher
		s.Mu.Lock()
		s.FailNext = true
		before := len(s.Headers)
		s.Mu.Unlock()
		body := fmt.Sprintf(`{"restart":%v}`, restart)
		if code := pay(t, a, srv.URL, body); code != http.StatusBadGateway {
			t.Fatalf("status %d, want the 502", code)
		}
		retry := a
		if restart {
			retry = transport() // a new process: only the store remembers
		}
		if code := pay(t, retry, srv.URL, body); code != http.StatusOK {
			t.Fatalf("retry: status %d, refusals %v", code, s.Refused)
		}
		s.Mu.Lock()
		h := s.Headers[before:]
		s.Mu.Unlock()
		if len(h) != 2 || h[0] != h[1] {
			t.Fatalf("restart=%v: %d payments, identical=%v: want the same payment presented again", restart, len(h), len(h) == 2 && h[0] == h[1])
		}
	}
	if st := s.State(); st.Balance.Int64() != 5000 || st.Charged.Int64() != 1400 {
		t.Fatalf("server balance %s charged %s: want one deposit of 5000 and two charges", st.Balance, st.Charged)
	}
	if seen := s.Seen(); !slices.Equal(seen, []string{"batch-settlement:502", "batch-settlement:deposit", "batch-settlement:502", "batch-settlement:voucher"}) {
		t.Fatalf("payments %v", seen)
	}
}

func TestUptoPaymentVerifies(t *testing.T) {
	s, srv := payertest.NewShop(t, x402.BaseSepolia, 50_000, payertest.Charges(12_345, 0))
	var got payertest.Ledger
	tr := payer.NewTransport(payer.NewSigner(payerKey(t)), payer.WithSchemes(upto.Scheme), got.Option())
	for i := range 2 {
		if code := pay(t, tr, srv.URL, fmt.Sprintf(`{"n":%d}`, i)); code != http.StatusOK {
			t.Fatalf("status %d, refusals %v", code, s.Refused)
		}
	}
	if c := got.Charged(); !slices.Equal(c, []int64{12_345, 0}) {
		t.Fatalf("charged %v", c)
	}
	s.Mu.Lock()
	defer s.Mu.Unlock()
	for _, h := range s.Headers {
		if !strings.Contains(decode(t, h), `"eip2612GasSponsoring":{"info":{`) {
			t.Fatalf("no EIP-2612 permit although the shop declares gas sponsoring:\n%s", decode(t, h))
		}
	}
}

func decode(t *testing.T, h string) string {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStreamedAnswersChargeFromTheInbandReceipt: a streamed answer carries
// its receipt on the terminal event; the transport reads it there, so the
// next voucher builds on the charge (no corrective 402), and a stream
// closed before its receipt leaves the charge to the corrective 402.
func TestStreamedAnswersChargeFromTheInbandReceipt(t *testing.T) {
	s, srv := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(120, 340, 560, 780))
	var got payertest.Ledger
	tr := payer.NewTransport(payer.NewSigner(payerKey(t)), got.Option())
	for i := range 3 {
		if code := pay(t, tr, srv.URL, fmt.Sprintf(`{"stream":true,"n":%d}`, i)); code != http.StatusOK {
			t.Fatalf("call %d: %d %v", i, code, s.Refused)
		}
	}
	if c := got.Charged(); !slices.Equal(c, []int64{120, 340, 560}) || len(s.Refused) != 0 {
		t.Fatalf("charged %v, refusals %v: want the in-band charges and no corrective 402", c, s.Refused)
	}
	if _, deposited := got.Totals(); deposited.Int64() != 5000 {
		t.Fatalf("deposited %s, want one deposit of 5000", deposited)
	}
	// Closed unread: the charge is unknown until the server corrects it.
	req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"stream":true,"n":"unread"}`))
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if code := pay(t, tr, srv.URL, `{"n":"after"}`); code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	if c := got.Charged(); !slices.Equal(c, []int64{120, 340, 560, -1, 780}) || !slices.Equal(s.Refused, []string{channel.ReasonCumulativeAmountMismatch}) {
		t.Fatalf("charged %v, refusals %v", c, s.Refused)
	}
}
