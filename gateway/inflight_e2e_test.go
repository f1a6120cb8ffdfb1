package gateway_test

import (
	"context"
	"math/big"
	"strings"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/tidwall/gjson"
)

// A payer funded for one call who signs many authorizations at once is
// served exactly once: the others are refused with 402 insufficient_funds
// before any output, and the relayer sends exactly one transaction (none
// reverted at its expense).
func TestPayerRacingItsBalanceIsServedOnce(t *testing.T) {
	for _, n := range []int{20, 200} {
		t.Run(big.NewInt(int64(n)).String(), func(t *testing.T) {
			ts, c := startPaid(t, "after")
			key, _ := crypto.GenerateKey()
			from := crypto.PubkeyToAddress(key.PublicKey)
			if err := c.Fund(context.Background(), from, big.NewInt(atomics)); err != nil {
				t.Fatal(err)
			}
			offer := offerFor(t, ts, c)
			signer := payer.NewSigner(key)
			headers := make([][2]string, n)
			for i := range headers {
				name, value, err := signer.PaymentHeader(offer, 2)
				if err != nil {
					t.Fatal(err)
				}
				headers[i] = [2]string{name, value}
			}
			nonceBefore, err := c.Client.NonceAt(context.Background(), c.Relayer, nil)
			if err != nil {
				t.Fatal(err)
			}
			statuses, bodies := make([]int, n), make([]string, n)
			var wg sync.WaitGroup
			for i := range headers {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					res, b := post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"race my balance"}`, headers[i][0], headers[i][1])
					statuses[i], bodies[i] = res.StatusCode, string(b)
				}(i)
			}
			wg.Wait()
			served := 0
			for i := range statuses {
				switch {
				case statuses[i] == 200:
					served++
				case statuses[i] == 402 && gjson.Get(bodies[i], "error.code").String() == x402.ReasonInsufficientFunds:
					if strings.Contains(bodies[i], "race my balance") {
						t.Errorf("a refused call carries output: %s", bodies[i])
					}
				default:
					t.Errorf("request %d: %d %s", i, statuses[i], bodies[i])
				}
			}
			if served != 1 {
				t.Errorf("served %d of %d, want exactly 1", served, n)
			}
			if left := tokenBalance(t, c, from); left.Sign() != 0 {
				t.Errorf("payer still holds %s, want 0 (one call paid)", left)
			}
			waitForRelayerNonce(t, c.Client, c.Relayer, nonceBefore+1)
		})
	}
}

// waitForRelayerNonce checks the relayer sent exactly up to nonce want: its
// pending nonce is want once every answer is out (each settlement was
// accepted by the node before its answer).
func waitForRelayerNonce(t *testing.T, c interface {
	PendingNonceAt(context.Context, common.Address) (uint64, error)
}, relayer common.Address, want uint64) {
	t.Helper()
	got, err := c.PendingNonceAt(context.Background(), relayer)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("the relayer sent %d transactions, want exactly one", got-(want-1))
	}
}
