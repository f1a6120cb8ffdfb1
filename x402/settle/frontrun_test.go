package settle_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/settle"
)

// A third party submits the payer's own transferWithAuthorization after
// Begin and before farebox's relayer sends it: the money reached payTo, so
// the purchase is paid (confirmed, its receipt naming the front-runner's
// transaction) and the payer owes nothing, with confirmation at broadcast
// and at mined alike. The chain moved the price once.
func TestHostileFrontRunIsPaid(t *testing.T) {
	for _, confirm := range []settle.ConfirmMode{settle.ConfirmBroadcast, settle.ConfirmMined} {
		t.Run(string(confirm), func(t *testing.T) {
			ctx := context.Background()
			key, err := crypto.GenerateKey()
			if err != nil {
				t.Fatal(err)
			}
			if err := chain.FundETH(ctx, crypto.PubkeyToAddress(key.PublicKey), big.NewInt(1e18)); err != nil {
				t.Fatal(err)
			}
			own, err := evm.NewSettler(ctx, chain.Client, key)
			if err != nil {
				t.Fatal(err)
			}
			j := settle.NewMemoryJournal(100)
			e, _ := newEngine(t, settle.Config{Journal: j, Settler: own, Confirm: confirm})
			b := newBuyer(t, 2*price)
			pay := b.pay(t)
			p, err := e.Begin(ctx, b.purchase(pay, "front-run"))
			if err != nil {
				t.Fatal(err)
			}
			front, err := settler.Settle(ctx, pay, b.req) // another relayer submits it first
			if err != nil || !front.Success {
				t.Fatalf("front-run: %+v %v", front, err)
			}
			rc, err := p.Settle(ctx)
			if err != nil || rc == nil || !rc.Success || rc.Transaction != front.Transaction {
				t.Fatalf("Settle = %+v, %v; want success naming %s", rc, err, front.Transaction)
			}
			if en, err := j.Get(ctx, pay.Key(chain.Network)); err != nil || en.State != settle.Confirmed || en.Tx.Hex() != front.Transaction {
				t.Errorf("journal entry %+v, %v; want confirmed in %s", en, err, front.Transaction)
			}
			if debts, err := j.Debts(ctx, b.addr); err != nil || len(debts) != 0 {
				t.Errorf("debts %v, %v; want none", debts, err)
			}
			if from, to := b.balancesAfter(t, front.Transaction); from != price || to != price {
				t.Fatalf("payer has %d, payee %d; want exactly one price moved", from, to)
			}
		})
	}
}
