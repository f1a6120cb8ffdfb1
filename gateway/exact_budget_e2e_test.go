package gateway_test

import (
	"context"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/tidwall/gjson"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/farebox/farebox/x402/payer"
)

// lateFollower is the chain settler whose confirmations reach the engine
// only once late is closed, though the chain mined the transfers long
// before: the lag of a follower that polls a remote node, made as long as
// the test needs, so every call meets transfers mined but not yet
// released.
type lateFollower struct {
	*evm.Settler
	late chan struct{}
}

// Await waits for late, then for the transaction.
func (l lateFollower) Await(ctx context.Context, tx common.Hash, p *x402.Payment) error {
	select {
	case <-l.late:
	case <-ctx.Done():
		return ctx.Err()
	}
	return l.Settler.Await(ctx, tx, p)
}

// AwaitFee is Await with the fee (the engine prefers it when the settler
// has it, so it must wait for late too).
func (l lateFollower) AwaitFee(ctx context.Context, tx common.Hash, p *x402.Payment) (*big.Int, error) {
	select {
	case <-l.late:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return l.Settler.AwaitFee(ctx, tx, p)
}

// A payer funded for exactly N calls that makes them one after the other,
// as fast as a client can, is served all N: a transfer already mined is
// counted once (in the balance), not also as money in flight, however
// late the confirmation follower learns of it. Call N+1 is refused with
// insufficient_funds, and payTo gains exactly N calls. On a chain that
// mines each transaction as it arrives and on one with 2 s blocks (many
// calls per block), with the holds in memory (balances cached) and in
// Redis (balances read every call); with 2 s blocks also with the real
// follower, prompt, whose confirmations race the calls' balance reads.
func TestPayerFundedForExactlyNCallsGetsAllN(t *testing.T) {
	for _, chain := range []struct {
		name  string
		start func(testing.TB) *devchain.Chain
	}{{"on demand", devChain}, {"2s blocks", meteredDevChain}} {
		for _, cfgName := range []string{"memory", "redis", "memory/prompt", "redis/prompt"} {
			store, prompt := strings.CutSuffix(cfgName, "/prompt")
			if prompt && chain.name != "2s blocks" {
				continue
			}
			t.Run(chain.name+"/"+cfgName, func(t *testing.T) {
				const n = 30
				ctx := context.Background()
				c := chain.start(t)
				st, err := evm.NewSettler(ctx, c.Client, c.RelayerKey)
				if err != nil {
					t.Fatal(err)
				}
				cfg := paidConfig(c, "after")
				payee, _ := crypto.GenerateKey()
				cfg.Payments.PayTo = crypto.PubkeyToAddress(payee.PublicKey).Hex()
				if store == "redis" {
					cfg.Payments.RedisURL = "redis://" + redistest.Start(t)
				}
				late := make(chan struct{})
				defer func() {
					select {
					case <-late:
					default:
						close(late)
					}
				}()
				var settler x402.Settler = lateFollower{Settler: st, late: late}
				if prompt {
					settler = st
				}
				ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network},
					Settler: settler, Ready: st.Ready})
				offer := offerFor(t, ts, c)
				key, _ := crypto.GenerateKey()
				from := crypto.PubkeyToAddress(key.PublicKey)
				if err := c.Fund(ctx, from, new(big.Int).Mul(offer.Amount, big.NewInt(n))); err != nil {
					t.Fatal(err)
				}
				signer := payer.NewSigner(key)
				payeeBefore := tokenBalance(t, c, offer.PayTo)
				call := func(i int) answer {
					name, value, err := signer.PaymentHeader(offer, 2)
					if err != nil {
						t.Fatal(err)
					}
					return postAnswer(ts.URL+"/responses", fmt.Sprintf(`{"model":%q,"input":"call %d"}`, paid, i), name, value)
				}
				for i := range n {
					if a := call(i); a.status != 200 {
						t.Fatalf("call %d of %d, funded for all: %d %.300s", i+1, n, a.status, a.body)
					}
					if i%10 == 9 {
						// The chain mines this group's transfers before the
						// next call; the follower learns of it only at the end.
						settledBalances(t, c)
					}
				}
				a := call(n)
				if a.status != 402 || gjson.Get(a.body, "error.code").String() != x402.ReasonInsufficientFunds {
					t.Errorf("call %d, funded for %d: %d %.300s; want 402 insufficient_funds", n+1, n, a.status, a.body)
				}
				close(late)
				if left := tokenBalance(t, c, from); left.Sign() != 0 {
					t.Errorf("the payer still holds %s after %d calls, want 0", left, n)
				}
				gained := new(big.Int).Sub(tokenBalance(t, c, offer.PayTo), payeeBefore)
				if want := new(big.Int).Mul(offer.Amount, big.NewInt(n)); gained.Cmp(want) != 0 {
					t.Errorf("payTo gained %s, want %s (%d calls)", gained, want, n)
				}
			})
		}
	}
}
