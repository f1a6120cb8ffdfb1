package gateway

import (
	"context"
	"github.com/farebox/farebox/internal/testkit/inprocess"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/farebox/farebox/responses"
)

// fakeReseller is a resold model whose wallet's payments the test sets.
type fakeReseller struct {
	mu   sync.Mutex
	paid int64
}

func (f *fakeReseller) Respond(ctx context.Context, req *responses.Request, out responses.Output) error {
	return out.Text("bought")
}

func (f *fakeReseller) Spent() (signed, settled *big.Int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return big.NewInt(f.paid), big.NewInt(f.paid)
}

func (f *fakeReseller) WalletLow() bool { return false }

func (f *fakeReseller) pay(n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paid += n
}

// TestResoldCostIsBooked: what a resold model's wallet pays its upstream
// becomes that model's cost in the books (counted from the wallet's
// payments since the gateway started, not before), and its margin drops
// by it.
func TestResoldCostIsBooked(t *testing.T) {
	old := costSampleEvery
	costSampleEvery = 10 * time.Millisecond
	defer func() { costSampleEvery = old }()
	m := &fakeReseller{paid: 5000} // paid before this gateway started: not its cost
	cfg := Config{Models: []ModelConfig{{Name: "resold", Upstream: inprocess.Kind, UpstreamConfig: inprocess.Use(m), Price: "0"}}, Admin: AdminConfig{TokenEnv: "T"}}
	s, err := New(cfg, Options{
		Getenv: func(string) string { return "test-admin-token-0123456789" }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	m.pay(1000)
	m.pay(500)
	for deadline := time.Now().Add(10 * time.Second); ; {
		sum, err := s.pay.books.Summary(context.Background(), time.Now().Add(-time.Hour), time.Now().Add(time.Hour), "")
		if err != nil {
			t.Fatal(err)
		}
		if f := sum.Models["resold"]; f != nil && f.Cost == "0.0015" {
			if f.Margin != "-0.0015" {
				t.Errorf("margin %s, want -0.0015 (nothing settled, 0.0015 spent)", f.Margin)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the books never booked the cost: %+v", sum.Models["resold"])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestModelCostIsBooked: a model with one upstream and a cost key books
// that cost for each call that reached it (no supplier), and its margin
// drops by it.
func TestModelCostIsBooked(t *testing.T) {
	m := &fakeReseller{} // answers "bought"; its wallet pays nothing
	cfg := Config{Models: []ModelConfig{{Name: "keyed", Upstream: inprocess.Kind, UpstreamConfig: inprocess.Use(m), Price: "0", Cost: CostConfig{PerCall: "0.0002"}}},
		Admin: AdminConfig{TokenEnv: "T"}}
	s, err := New(cfg, Options{
		Getenv: func(string) string { return "test-admin-token-0123456789" }})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	for range 2 {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/v1/responses", strings.NewReader(`{"model":"keyed","input":"hi"}`))
		req.Header.Set("Content-Type", "application/json")
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("call: %d %s", rec.Code, rec.Body)
		}
	}
	sum, err := s.pay.books.Summary(context.Background(), time.Now().Add(-time.Hour), time.Now().Add(time.Hour), "")
	if err != nil {
		t.Fatal(err)
	}
	if f := sum.Models["keyed"]; f == nil || f.Calls != 2 || f.Cost != "0.0004" || f.Margin != "-0.0004" || len(f.Suppliers) != 0 {
		t.Errorf("figures %+v, want 2 calls costing 0.0004, margin -0.0004, no supplier", f)
	}
}
