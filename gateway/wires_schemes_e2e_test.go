package gateway_test

import (
	"context"
	"math/big"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/upto"
	"github.com/openai/openai-go/v3/option"
)

// TestEveryWirePaysByUptoAndByChannel: the per-token model on Chat
// Completions and Anthropic Messages (a tool call, then its result
// streamed back), paid by upto and by a batch-settlement channel with the
// Go paying client: every answer carries its charge (at most its
// ceiling); upto takes exactly the charges from the payer, and the
// channel's claim at shutdown gives the receiver exactly their sum, all
// judged on chain.
func TestEveryWirePaysByUptoAndByChannel(t *testing.T) {
	for _, scheme := range []string{upto.Scheme, channel.Scheme} {
		t.Run(scheme, func(t *testing.T) {
			cfg, opts, c := meteredConfig(t, nil)
			cfg.Payments.BatchSettlement.ClaimInterval = 0 // the claim below is the shutdown's
			ts := startServer(t, cfg, opts)
			reg, err := x402.NewRegistry(c.Network)
			if err != nil {
				t.Fatal(err)
			}
			key := freshPayer(t, c, 1_000_000, false)
			receiver := common.HexToAddress(payTo)
			payerBefore, receiverBefore := tokenBalance(t, c, addressOf(key)), tokenBalance(t, c, receiver)
			var mu sync.Mutex
			var settled []*payer.Settlement
			tr := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithChain(c.Client),
				payer.WithSchemes(scheme), payer.WithPayTo(receiver), payer.WithChannelStore(payer.NewMemoryChannels()),
				payer.OnSettlement(func(s *payer.Settlement) { mu.Lock(); settled = append(settled, s); mu.Unlock() }))
			chatRoundTrip(t, ts.client(t, option.WithHTTPClient(&http.Client{Transport: tr})), metered)
			messagesRoundTrip(t, anthropicClient(ts, tr), metered)

			if len(settled) != 4 {
				t.Fatalf("%d settlements for 4 calls", len(settled))
			}
			charged, deposited := new(big.Int), new(big.Int)
			for i, s := range settled {
				if s.Scheme != scheme || s.Charged == nil || s.Charged.Sign() <= 0 || s.Charged.Cmp(s.Ceiling) > 0 {
					t.Errorf("call %d: settlement %+v", i, s)
					continue
				}
				charged.Add(charged, s.Charged)
				if s.Deposited != nil {
					deposited.Add(deposited, s.Deposited)
				}
			}
			if scheme == upto.Scheme {
				if spent := new(big.Int).Sub(payerBefore, tokenBalance(t, c, addressOf(key))); spent.Cmp(charged) != 0 {
					t.Errorf("upto: the payer paid %s for charges adding up to %s", spent, charged)
				}
				return
			}
			if moved := new(big.Int).Sub(payerBefore, tokenBalance(t, c, addressOf(key))); moved.Cmp(deposited) != 0 || deposited.Sign() <= 0 {
				t.Errorf("channel: the payer moved %s, the receipts say %s was deposited", moved, deposited)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := ts.Shutdown(ctx); err != nil {
				t.Fatal(err)
			}
			if got := new(big.Int).Sub(tokenBalance(t, c, receiver), receiverBefore); got.Cmp(charged) != 0 {
				t.Errorf("channel: the receiver got %s after the claim, want the sum charged %s", got, charged)
			}
		})
	}
}
