package payer_test

import (
	"context"
	"encoding/hex"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/testenv"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/farebox/farebox/x402/payer"
)

// TestExpiredAuthorizationIsReplacedOnlyWhenTheChainProvesItUnused: a
// purchase whose every attempt failed keeps its authorization until it
// expires; then a transport with a chain reads authorizationState and pays
// anew only for an unused nonce, and one without a chain refuses to guess.
func TestExpiredAuthorizationIsReplacedOnlyWhenTheChainProvesItUnused(t *testing.T) {
	testenv.SkipShort(t, "the in-process dev chain")
	ctx := context.Background()
	chain, err := devchain.Start(ctx, devchain.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer chain.Close()
	settler, err := evm.NewSettler(ctx, chain.Client, chain.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	settler.PollInterval = 10 * time.Millisecond
	reg, _ := x402.NewRegistry(chain.Network)

	var mu sync.Mutex
	var nonces []string
	settleFirst := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// 12 s of validity: presentable for 6 s (servers want 6 s left), and
		// settleable (the chain settler wants 6 s left when it sends).
		reqs := []*x402.Requirement{{Scheme: x402.SchemeExact, Network: chain.Network, Amount: big.NewInt(10), PayTo: payTo, MaxTimeoutSeconds: 12, Resource: "http://x/"}}
		h := r.Header.Get(x402.HeaderPaymentSignature)
		w.Header().Set(x402.HeaderPaymentRequired, x402.PaymentRequiredHeader(reqs, ""))
		if h == "" {
			w.WriteHeader(402)
			return
		}
		p, _ := x402.DecodePayment(h, 2)
		mu.Lock()
		nonces = append(nonces, hex.EncodeToString(p.Authorization.Nonce[:]))
		first := len(nonces) == 1
		mu.Unlock()
		if first && settleFirst {
			if _, err := settler.Settle(r.Context(), p, reqs[0]); err != nil {
				t.Errorf("settle: %v", err)
			}
		}
		w.WriteHeader(502) // every attempt: the outcome stays unknown
	}))
	defer srv.Close()

	send := func(tr *payer.Transport) error {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"same":"body"}`))
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return err
	}
	// expire mines blocks (mints) until the chain's clock passes every
	// authorization signed so far.
	expire := func() {
		deadline := time.Now().Add(12 * time.Second).Unix()
		for {
			if err := chain.Fund(ctx, chain.Payer, big.NewInt(1)); err != nil {
				t.Fatal(err)
			}
			head, err := chain.Client.HeaderByNumber(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if int64(head.Time) > deadline+1 {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	for _, tc := range []struct {
		name        string
		chain       bool
		settleFirst bool
		replaced    bool
	}{{"unused on chain", true, false, true}, {"settled on chain", true, true, false}, {"no chain", false, false, false}} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			nonces, settleFirst = nil, tc.settleFirst
			mu.Unlock()
			opts := []payer.Option{payer.WithNetworks(reg)}
			if tc.chain {
				opts = append(opts, payer.WithChain(chain.Client))
			}
			tr := payer.NewTransport(payer.NewSigner(chain.PayerKey), opts...)
			if err := send(tr); err != nil {
				t.Fatal(err)
			}
			expire()
			err := send(tr)
			mu.Lock()
			defer mu.Unlock()
			if tc.replaced {
				if err != nil || len(nonces) != 2 || nonces[0] == nonces[1] {
					t.Fatalf("err %v nonces %v: want a new authorization once the old one provably expired unused", err, nonces)
				}
				return
			}
			if !errors.Is(err, payer.ErrOutcomeUnknown) || len(nonces) != 1 {
				t.Fatalf("err %v nonces %v: want ErrOutcomeUnknown and no second authorization", err, nonces)
			}
		})
	}
}
