package gateway_test

import (
	"context"
	"math/big"
	"net/http"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/upto"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
)

// farebox's own Go paying transport, offered batch-settlement, upto and
// exact, pays the per-token model with its preferred scheme: every answer
// is charged exactly its use (the transport's OnSettlement and the chain
// agree); restricted to upto, it pays upto.
func TestGoPayerPaysTheMeteredModelByUse(t *testing.T) {
	ts, c := startMetered(t, nil)
	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	for _, scheme := range []string{channel.Scheme, upto.Scheme} {
		t.Run(scheme, func(t *testing.T) {
			key := freshPayer(t, c, 1_000_000, false)
			payerAddr := addressOf(key)
			before := tokenBalance(t, c, payerAddr)
			var mu sync.Mutex
			var got []*payer.Settlement
			tr := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithChain(c.Client),
				payer.WithSchemes(scheme), payer.WithPayTo(common.HexToAddress(payTo)),
				payer.OnSettlement(func(s *payer.Settlement) { mu.Lock(); got = append(got, s); mu.Unlock() }))
			cl := ts.client(t, option.WithHTTPClient(&http.Client{Transport: tr}))
			var charged int64
			for _, in := range []string{"one", "two, a bit longer"} {
				res, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: metered, Input: userText(in)})
				if err != nil {
					t.Fatal(err)
				}
				want := min((res.Usage.InputTokens*inputPerMTok+res.Usage.OutputTokens*outputPerMTok+999_999)/1_000_000, ceilingAtomics)
				mu.Lock()
				s := got[len(got)-1]
				mu.Unlock()
				if s.Scheme != scheme || s.Charged == nil || s.Charged.Int64() != want {
					t.Fatalf("settlement %+v, want %s charging %d", s, scheme, want)
				}
				charged += want
			}
			spent := new(big.Int).Sub(before, tokenBalance(t, c, payerAddr))
			switch scheme {
			case upto.Scheme:
				if spent.Int64() != charged {
					t.Errorf("upto: payer spent %s, charged %d", spent, charged)
				}
			case channel.Scheme:
				// The deposit sits in the channel; what was charged is claimed from it.
				if got[0].Deposited == nil || spent.Cmp(got[0].Deposited) != 0 {
					t.Errorf("batch-settlement: payer moved %s, deposited %v", spent, got[0].Deposited)
				}
			}
		})
	}
}
