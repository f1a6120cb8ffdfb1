package settle_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/settle"
	"github.com/farebox/farebox/x402/settle/journaltest"
)

func TestMemoryJournal(t *testing.T) {
	journaltest.Run(t, func(t *testing.T) settle.Journal { return settle.NewMemoryJournal(1000) })
}

func TestMemoryHolds(t *testing.T) {
	journaltest.RunHolds(t, func(t *testing.T) settle.Holds { return settle.NewMemoryHolds() })
}

// The memory journal is bounded: when full it forgets only finished
// entries whose authorization expired, and refuses rather than forget a
// live one.
func TestMemoryJournalIsBounded(t *testing.T) {
	ctx := context.Background()
	now := time.Now()
	j := settle.NewMemoryJournal(2)
	j.Now = func() time.Time { return now }
	payer := common.Address{1}
	a, b := journaltest.NewEntry(payer), journaltest.NewEntry(payer)
	for _, e := range []*settle.Entry{a, b} {
		if _, err := j.Create(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := j.Create(ctx, journaltest.NewEntry(payer)); !errors.Is(err, settle.ErrJournalFull) {
		t.Fatalf("Create in a full journal = %v, want ErrJournalFull", err)
	}
	done := a.Clone()
	done.State, done.Amount = settle.Confirmed, big.NewInt(1)
	if err := j.Update(ctx, done, settle.Reserved); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Create(ctx, journaltest.NewEntry(payer)); !errors.Is(err, settle.ErrJournalFull) {
		t.Fatalf("a confirmed entry whose authorization is still valid was forgotten: %v", err)
	}
	now = a.Expires.Add(time.Second)
	if _, err := j.Create(ctx, journaltest.NewEntry(payer)); err != nil {
		t.Fatalf("Create after the confirmed entry expired = %v", err)
	}
	if _, err := j.Get(ctx, b.Key()); err != nil {
		t.Fatalf("the live entry was forgotten: %v", err)
	}
	if j.Len() != 2 {
		t.Fatalf("Len = %d, want 2", j.Len())
	}
}

func TestPaymentID(t *testing.T) {
	raw := []byte(`{"x402Version":2,"payload":{},"extensions":{"payment-identifier":{"info":{"id":"pay_7d5d747be160e280504c099d984bcfe0"},"schema":{}}}}`)
	if got := settle.PaymentIDOf(raw); got != "pay_7d5d747be160e280504c099d984bcfe0" {
		t.Fatalf("PaymentIDOf = %q", got)
	}
	if got := settle.PaymentIDOf([]byte(`{"x402Version":2,"payload":{}}`)); got != "" {
		t.Fatalf("PaymentIDOf without the extension = %q", got)
	}
	for id, ok := range map[string]bool{
		"pay_7d5d747be160e280504c099d984bcfe0": true, "0123456789abcdef": true, "0123456789abcde": false,
		"pay 7d5d747be160e280": false, "pay_7d5d747be160é280": false, string(make([]byte, 129)): false,
	} {
		if settle.ValidPaymentID(id) != ok {
			t.Errorf("ValidPaymentID(%q) = %v, want %v", id, !ok, ok)
		}
	}
}

// MemoryHolds keeps a running sum and drops expired holds lazily; under a
// random mix of holds, releases and a clock that moves, every answer must
// be the one a full scan of the live holds gives.
func TestMemoryHoldsAgreeWithAFullScan(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	now := time.Unix(1_800_000_000, 0)
	h := settle.NewMemoryHolds()
	h.Now = func() time.Time { return now }
	accts := []settle.Account{{ChainID: "1", Payer: common.Address{1}}, {ChainID: "1", Payer: common.Address{2}}}
	type model struct {
		amount  int64
		expires time.Time
	}
	want := map[settle.Account]map[string]model{}
	liveSum := func(a settle.Account) int64 {
		var sum int64
		for _, m := range want[a] {
			if m.expires.After(now) {
				sum += m.amount
			}
		}
		return sum
	}
	for i := range 5000 {
		a := accts[rng.IntN(len(accts))]
		id := fmt.Sprintf("h%d", rng.IntN(40))
		switch op := rng.IntN(10); {
		case op < 5:
			amount, bal := rng.Int64N(10)+1, rng.Int64N(200)
			expires := now.Add(time.Duration(rng.IntN(20)-2) * time.Second)
			err := h.Hold(ctx, a, id, big.NewInt(amount), big.NewInt(bal), expires)
			m, exists := want[a][id]
			exists = exists && m.expires.After(now)
			switch {
			case exists && err != nil:
				t.Fatalf("step %d: holding %s again = %v, want nil (a no-op)", i, id, err)
			case exists:
			case bal-liveSum(a) < amount:
				if !errors.Is(err, settle.ErrInsufficientFunds) {
					t.Fatalf("step %d: Hold %d on balance %d with %d held = %v, want ErrInsufficientFunds", i, amount, bal, liveSum(a), err)
				}
			case err != nil:
				t.Fatalf("step %d: Hold %d on balance %d with %d held = %v", i, amount, bal, liveSum(a), err)
			default:
				if want[a] == nil {
					want[a] = map[string]model{}
				}
				want[a][id] = model{amount, expires}
			}
		case op < 8:
			if err := h.Release(ctx, a, id); err != nil {
				t.Fatal(err)
			}
			delete(want[a], id)
		default:
			now = now.Add(time.Duration(rng.IntN(3)) * time.Second)
		}
		for _, a := range accts {
			got, err := h.Held(ctx, a)
			if err != nil {
				t.Fatal(err)
			}
			if got.Int64() != liveSum(a) {
				t.Fatalf("step %d: Held(%s) = %v, a full scan says %d", i, a.Payer, got, liveSum(a))
			}
		}
	}
}

// BenchmarkMemoryHold is one hold and its release while the payer has
// `held` others in flight (a payer's calls of the last blocks, unmined).
func BenchmarkMemoryHold(b *testing.B) {
	for _, held := range []int{1, 300, 3000} {
		b.Run(fmt.Sprintf("held=%d", held), func(b *testing.B) {
			ctx := context.Background()
			h := settle.NewMemoryHolds()
			a := settle.Account{ChainID: "1", Payer: common.Address{1}}
			bal, one, exp := big.NewInt(1<<40), big.NewInt(1000), time.Now().Add(time.Hour)
			for i := range held {
				if err := h.Hold(ctx, a, fmt.Sprint("old", i), one, bal, exp); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				id := fmt.Sprint("new", i)
				if err := h.Hold(ctx, a, id, one, bal, exp); err != nil {
					b.Fatal(err)
				}
				if err := h.Release(ctx, a, id); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
