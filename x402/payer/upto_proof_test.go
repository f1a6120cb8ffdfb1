package payer_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"sync"
	"testing"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/payertest"
	"github.com/farebox/farebox/x402/upto"
)

// TestUptoSettlementIsProvenByTheChain: a Settlement of an upto answer
// tells what the chain proves the seller's settlement moved. An honest
// receipt (300 of a 1000 maximum) is proven, the same answer each time it
// is asked; a receipt saying 0 for a charge of 300, a receipt naming an
// earlier call's transaction (already proven) for a charge of 400, and a
// transport reading no chain are ErrUnproven.
func TestUptoSettlementIsProvenByTheChain(t *testing.T) {
	for _, tc := range []struct {
		name    string
		hostile func(*payertest.Shop)
		noChain bool
		want    []int64 // per call: the proven charge, -1 for ErrUnproven
	}{
		{"honest", func(*payertest.Shop) {}, false, []int64{300, 400}},
		{"receipt of 0", func(s *payertest.Shop) { s.LieCharge = true }, false, []int64{-1, -1}},
		{"an earlier transaction again", func(s *payertest.Shop) { s.StaleReceipt = true }, false, []int64{300, -1}},
		{"no chain", func(*payertest.Shop) {}, true, []int64{-1, -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, url, chain, funds := devShop(t, 1000, payertest.Charges(300, 400))
			s.Schemes = []string{upto.Scheme}
			tc.hostile(s)
			reg, _ := x402.NewRegistry(chain.Network)
			var mu sync.Mutex
			var got []*payer.Settlement
			opts := []payer.Option{payer.WithNetworks(reg), payer.OnSettlement(func(st *payer.Settlement) { mu.Lock(); got = append(got, st); mu.Unlock() })}
			if !tc.noChain {
				opts = append(opts, payer.WithChain(chain.Client))
			}
			tr := payer.NewTransport(payer.NewSigner(chain.PayerKey), opts...)
			for i := range tc.want {
				if code := pay(t, tr, url, fmt.Sprintf(`{"n":%d}`, i)); code != http.StatusOK {
					t.Fatalf("call %d: %d", i, code)
				}
			}
			awaitRelayer(t, chain)
			if lost := new(big.Int).Sub(funds, usdcOf(t, chain, chain.Payer)); lost.Int64() != 700 {
				t.Fatalf("the payer lost %s on chain, want 300 + 400", lost)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != len(tc.want) {
				t.Fatalf("%d settlements, want %d", len(got), len(tc.want))
			}
			for i, want := range tc.want {
				for range 2 { // asked again, the same answer
					v, err := got[i].Proven(context.Background())
					switch {
					case want < 0 && !errors.Is(err, payer.ErrUnproven):
						t.Errorf("call %d: proven %v (%v), want ErrUnproven (the receipt said %v)", i, v, err, got[i].Charged)
					case want >= 0 && (err != nil || v.Int64() != want):
						t.Errorf("call %d: proven %v (%v), want %d", i, v, err, want)
					}
				}
			}
		})
	}
}
