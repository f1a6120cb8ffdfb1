package settle_test

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

type env struct {
	e  *settle.Engine
	ev events
	j  settle.Journal
	b  *buyer
}

// settleNow begins and settles one purchase and waits for its confirmation.
func (v *env) settleNow(t *testing.T, pu settle.Purchase) *x402.Receipt {
	t.Helper()
	ctx := context.Background()
	p, err := v.e.Begin(ctx, pu)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := p.Settle(ctx)
	if err != nil || !rc.Success {
		t.Fatalf("Settle = %+v, %v", rc, err)
	}
	v.ev.await(t, settle.EventConfirmed, p.Entry().Name())
	return rc
}

func (v *env) move(t *testing.T, p *settle.Purchase, to settle.State) {
	t.Helper()
	next := p.Entry()
	next.State = to
	if err := v.j.Update(context.Background(), next, settle.Reserved); err != nil {
		t.Fatal(err)
	}
}

// Every outcome of Begin, on the dev chain with the real token balances.
func TestBeginOutcomes(t *testing.T) {
	ctx := context.Background()
	funded := newBuyer(t, 1000*price)
	cases := []struct {
		name   string
		run    func(t *testing.T, v *env) (*settle.Purchase, error)
		want   error
		replay bool
	}{
		{"new authorization", func(t *testing.T, v *env) (*settle.Purchase, error) {
			return v.e.Begin(ctx, v.b.purchase(v.b.pay(t), "a"))
		}, nil, false},
		{"same authorization while the first is reserved", func(t *testing.T, v *env) (*settle.Purchase, error) {
			p := v.b.pay(t)
			if _, err := v.e.Begin(ctx, v.b.purchase(p, "a")); err != nil {
				t.Fatal(err)
			}
			return v.e.Begin(ctx, v.b.purchase(p, "a"))
		}, settle.ErrInProgress, false},
		{"same authorization while settling", func(t *testing.T, v *env) (*settle.Purchase, error) {
			p := v.b.pay(t)
			first, err := v.e.Begin(ctx, v.b.purchase(p, "a"))
			if err != nil {
				t.Fatal(err)
			}
			v.move(t, first, settle.Settling)
			return v.e.Begin(ctx, v.b.purchase(p, "a"))
		}, settle.ErrInProgress, false},
		{"same authorization and body after it settled: replay", func(t *testing.T, v *env) (*settle.Purchase, error) {
			p := v.b.pay(t)
			rc := v.settleNow(t, v.b.purchase(p, "a"))
			again, err := v.e.Begin(ctx, v.b.purchase(p, "a"))
			if err != nil {
				return nil, err
			}
			rc2, err := again.Settle(ctx)
			if err != nil || *rc2 != *rc {
				t.Fatalf("replay receipt = %+v, %v; want %+v", rc2, err, rc)
			}
			r, err := chain.Client.TransactionReceipt(ctx, common.HexToHash(rc.Transaction))
			if err != nil {
				t.Fatal(err)
			}
			// One charge in the transfer's block, and the replay sent nothing.
			if n := v.e.Count(settle.EventBroadcast); n != 1 {
				t.Fatalf("%d transfers broadcast, want 1", n)
			}
			from, to := v.b.balancesAt(t, new(big.Int).Sub(r.BlockNumber, big.NewInt(1)))
			if f, tt := v.b.balancesAfter(t, rc.Transaction); from-f != price || tt-to != price {
				t.Fatalf("charged %d (%d -> %d), paid %d (%d -> %d); want exactly one price (%d)", from-f, from, f, tt-to, to, tt, price)
			}
			return again, nil
		}, nil, true},
		{"same authorization, other body", func(t *testing.T, v *env) (*settle.Purchase, error) {
			p := v.b.pay(t)
			v.settleNow(t, v.b.purchase(p, "a"))
			return v.e.Begin(ctx, v.b.purchase(p, "b"))
		}, settle.ErrNonceUsed, false},
		{"same authorization after its transfer failed", func(t *testing.T, v *env) (*settle.Purchase, error) {
			p := v.b.pay(t)
			first, err := v.e.Begin(ctx, v.b.purchase(p, "a"))
			if err != nil {
				t.Fatal(err)
			}
			v.move(t, first, settle.Failed)
			return v.e.Begin(ctx, v.b.purchase(p, "a"))
		}, settle.ErrNonceUsed, false},
		{"payment id of another authorization", func(t *testing.T, v *env) (*settle.Purchase, error) {
			a, b := v.b.purchase(v.b.pay(t), "a"), v.b.purchase(v.b.pay(t), "a")
			a.PaymentID, b.PaymentID = "pay_7d5d747be160e280", "pay_7d5d747be160e280"
			if _, err := v.e.Begin(ctx, a); err != nil {
				t.Fatal(err)
			}
			return v.e.Begin(ctx, b)
		}, settle.ErrIdempotencyConflict, false},
		{"same payment id and payload after it settled: replay", func(t *testing.T, v *env) (*settle.Purchase, error) {
			pu := v.b.purchase(v.b.pay(t), "a")
			pu.PaymentID = "pay_0a1b2c3d4e5f60718293"
			v.settleNow(t, pu)
			return v.e.Begin(ctx, pu)
		}, nil, true},
		{"payer in debt", func(t *testing.T, v *env) (*settle.Purchase, error) {
			err := v.j.AddDebt(ctx, v.b.addr, settle.DebtItem{Entry: "x", Amount: big.NewInt(price), At: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			_, err = v.e.Begin(ctx, v.b.purchase(v.b.pay(t), "a"))
			if _, err := v.e.Forgive(ctx, v.b.addr); err != nil {
				t.Fatal(err)
			}
			if _, ferr := v.e.Begin(ctx, v.b.purchase(v.b.pay(t), "a")); ferr != nil {
				t.Fatalf("Begin after Forgive = %v", ferr)
			}
			return nil, err
		}, settle.ErrPayerInDebt, false},
		{"lapsed debt", func(t *testing.T, v *env) (*settle.Purchase, error) {
			err := v.j.AddDebt(ctx, v.b.addr, settle.DebtItem{Entry: "x", Amount: big.NewInt(price),
				At: time.Now().Add(-time.Hour), Until: time.Now().Add(-time.Minute)})
			if err != nil {
				t.Fatal(err)
			}
			return v.e.Begin(ctx, v.b.purchase(v.b.pay(t), "a"))
		}, nil, false},
		{"balance minus holds below the price", func(t *testing.T, v *env) (*settle.Purchase, error) {
			poor := newBuyer(t, price-1)
			pu := poor.purchase(poor.pay(t), "a")
			_, err := v.e.Begin(ctx, pu)
			if _, gerr := v.j.Get(ctx, pu.Payment.Key(chain.Network)); gerr == nil {
				t.Fatal("a refused purchase left its entry: the retry would be refused as in progress")
			}
			return nil, err
		}, settle.ErrInsufficientFunds, false},
		{"released authorization is free again", func(t *testing.T, v *env) (*settle.Purchase, error) {
			pu := v.b.purchase(v.b.pay(t), "a")
			first, err := v.e.Begin(ctx, pu)
			if err != nil {
				t.Fatal(err)
			}
			if err := first.Release(ctx); err != nil {
				t.Fatal(err)
			}
			return v.e.Begin(ctx, pu)
		}, nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			j := settle.NewMemoryJournal(100)
			e, ev := newEngine(t, settle.Config{Journal: j})
			p, err := c.run(t, &env{e: e, ev: ev, j: j, b: funded})
			if !isErr(err, c.want) {
				t.Fatalf("Begin = %v, want %v", err, c.want)
			}
			if c.want != nil {
				if p != nil {
					t.Fatal("a refused Begin returned a purchase")
				}
				return
			}
			if p.Replay() != c.replay {
				t.Fatalf("Replay = %v, want %v", p.Replay(), c.replay)
			}
			if !c.replay && p.Entry().State != settle.Reserved {
				t.Fatalf("new purchase in state %s", p.Entry().State)
			}
		})
	}
}

// Settle answers once the node accepted the transfer; confirmation follows
// in the background and releases the hold; the chain moved exactly the price.
func TestSettleConfirmsInBackground(t *testing.T) {
	for _, mode := range []settle.ConfirmMode{settle.ConfirmBroadcast, settle.ConfirmMined} {
		t.Run(string(mode), func(t *testing.T) {
			ctx := context.Background()
			b := newBuyer(t, 3*price)
			holds := settle.NewMemoryHolds()
			j := settle.NewMemoryJournal(100)
			e, ev := newEngine(t, settle.Config{Journal: j, Holds: holds, Confirm: mode})
			pu := b.purchase(b.pay(t), "hello")
			p, err := e.Begin(ctx, pu)
			if err != nil {
				t.Fatal(err)
			}
			acct := settle.Account{ChainID: "1337", Asset: chain.Network.Asset, Payer: b.addr}
			if held, _ := holds.Held(ctx, acct); held.Int64() != price {
				t.Fatalf("held %v before settling, want %d", held, price)
			}
			rc, err := p.Settle(ctx)
			if err != nil || !rc.Success || rc.Transaction == "" || rc.Payer != b.addr.Hex() || rc.Network != chain.Network.CAIP2 {
				t.Fatalf("Settle = %+v, %v", rc, err)
			}
			if mode == settle.ConfirmMined {
				if en, _ := j.Get(ctx, pu.Payment.Key(chain.Network)); en.State != settle.Confirmed {
					t.Fatalf("confirm mined: Settle returned with the entry %s", en.State)
				}
			}
			ev.await(t, settle.EventConfirmed, p.Entry().Name())
			en, err := j.Get(ctx, pu.Payment.Key(chain.Network))
			if err != nil || en.State != settle.Confirmed || en.Receipt.Transaction != rc.Transaction || en.Tx.Hex() != rc.Transaction {
				t.Fatalf("entry = %+v, %v", en, err)
			}
			if held, _ := holds.Held(ctx, acct); held.Sign() != 0 {
				t.Fatalf("held %v after confirmation, want 0", held)
			}
			if from, to := b.balancesAfter(t, rc.Transaction); from != 2*price || to != price {
				t.Fatalf("payer %d, payee %d; want %d and %d", from, to, 2*price, price)
			}
			if _, err := p.Settle(ctx); err == nil {
				t.Fatal("a second Settle of one purchase succeeded")
			}
			if e.Count(settle.EventConfirmed) != 1 || e.Count(settle.EventBroadcast) != 1 {
				t.Fatalf("counted %d confirmed, %d broadcast", e.Count(settle.EventConfirmed), e.Count(settle.EventBroadcast))
			}
		})
	}
}

// A transfer the chain refuses before anything is sent (here the payer's
// funds went to another purchase through an engine that did not share the
// holds) releases the entry and the hold: the relayer spent no gas.
func TestRefusedTransferIsReleased(t *testing.T) {
	ctx := context.Background()
	b := newBuyer(t, price)
	j := settle.NewMemoryJournal(100)
	e1, _ := newEngine(t, settle.Config{Journal: j})
	e2, ev2 := newEngine(t, settle.Config{})
	pu1, pu2 := b.purchase(b.pay(t), "a"), b.purchase(b.pay(t), "b")
	p1, err := e1.Begin(ctx, pu1)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := e2.Begin(ctx, pu2)
	if err != nil {
		t.Fatal(err)
	}
	rc2, err := p2.Settle(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ev2.await(t, settle.EventConfirmed, p2.Entry().Name()) // the funds are gone at the latest block
	gas, err := chain.Client.BalanceAt(ctx, chain.Relayer, nil)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := p1.Settle(ctx)
	if err == nil || rc.Success || rc.ErrorReason != x402.ReasonInsufficientFunds {
		t.Fatalf("Settle without funds = %+v, %v; want insufficient_funds", rc, err)
	}
	if _, err := j.Get(ctx, pu1.Payment.Key(chain.Network)); err == nil {
		t.Fatal("the refused purchase is still in the journal")
	}
	if after, _ := chain.Client.BalanceAt(ctx, chain.Relayer, nil); after.Cmp(gas) != 0 {
		t.Fatalf("the relayer spent %s wei on a refused transfer", new(big.Int).Sub(gas, after))
	}
	if from, to := b.balancesAfter(t, rc2.Transaction); from != 0 || to != price {
		t.Fatalf("payer %d, payee %d; want 0 and %d", from, to, price)
	}
}

// The same refusal once the model runs for the purchase (Running): the
// operator ran the model unpaid, so the authorization is spent (Failed: a
// retry with it is ErrNonceUsed once the debt is forgiven), the payer is
// in debt for the price (its next purchase is ErrPayerInDebt), and Settle
// says so with ErrUnpaidRun; still no gas was spent.
func TestRefusedTransferOfARunningPurchaseIsSpent(t *testing.T) {
	ctx := context.Background()
	b := newBuyer(t, price)
	j := settle.NewMemoryJournal(100)
	e1, ev1 := newEngine(t, settle.Config{Journal: j})
	e2, ev2 := newEngine(t, settle.Config{})
	pu1, pu2 := b.purchase(b.pay(t), "a"), b.purchase(b.pay(t), "b")
	p1, err := e1.Begin(ctx, pu1)
	if err != nil {
		t.Fatal(err)
	}
	p1.Running()
	p2, err := e2.Begin(ctx, pu2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p2.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	ev2.await(t, settle.EventConfirmed, p2.Entry().Name()) // the funds are gone while p1's model runs
	rc, err := p1.Settle(ctx)
	if !errors.Is(err, settle.ErrUnpaidRun) || rc.Success || rc.ErrorReason != x402.ReasonInsufficientFunds {
		t.Fatalf("Settle of a running purchase without funds = %+v, %v; want ErrUnpaidRun, insufficient_funds", rc, err)
	}
	ev1.await(t, settle.EventFailed, p1.Entry().Name())
	if en, err := j.Get(ctx, pu1.Payment.Key(chain.Network)); err != nil || en.State != settle.Failed {
		t.Fatalf("the refused running purchase in the journal: %+v, %v; want failed", en, err)
	}
	if err := p1.Owe(ctx, rc.ErrorReason); err != nil {
		t.Fatal(err)
	}
	debt, items, err := e1.Debt(ctx, b.addr)
	if err != nil || len(items) != 1 || debt.Int64() != price {
		t.Fatalf("debt %v (%d items), %v; want one of %d", debt, len(items), err, price)
	}
	if _, err := e1.Begin(ctx, b.purchase(b.pay(t), "next")); !errors.Is(err, settle.ErrPayerInDebt) {
		t.Fatalf("the payer's next purchase = %v, want ErrPayerInDebt", err)
	}
	if _, err := e1.Forgive(ctx, b.addr); err != nil {
		t.Fatal(err)
	}
	if _, err := e1.Begin(ctx, pu1); !errors.Is(err, settle.ErrNonceUsed) {
		t.Fatalf("the spent authorization again = %v, want ErrNonceUsed", err)
	}
	if e1.Count(settle.EventFailed) != 1 {
		t.Fatalf("counted %d failed, want 1 (Owe adds nothing)", e1.Count(settle.EventFailed))
	}
}
