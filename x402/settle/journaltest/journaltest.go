// Package journaltest is the conformance suite every settle.Journal and
// settle.Holds implementation passes: the same assertions for the memory,
// bbolt and Redis stores.
package journaltest

import (
	"context"
	"crypto/rand"
	"errors"
	"math/big"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// NewEntry is a Reserved entry for a fresh random authorization of payer.
func NewEntry(payer common.Address) *settle.Entry {
	var nonce common.Hash
	_, _ = rand.Read(nonce[:])
	now := time.Now().Truncate(time.Millisecond)
	return &settle.Entry{ChainID: "1337", Asset: common.HexToAddress("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"),
		Payer: payer, Nonce: nonce, Version: 2, Payment: []byte(`{"x402Version":2}`), Network: "eip155:1337",
		Amount: big.NewInt(10_000), PayTo: common.HexToAddress("0x00000000000000000000000000000000000000a1"),
		BodyHash: common.Hash{1}, State: settle.Reserved, Created: now, Updated: now, Expires: now.Add(time.Hour)}
}

// Run checks a journal; open returns a fresh, empty one for each subtest.
func Run(t *testing.T, open func(t *testing.T) settle.Journal) {
	ctx := context.Background()
	payer := common.HexToAddress("0x00000000000000000000000000000000000000b0")

	t.Run("lifecycle", func(t *testing.T) {
		j := open(t)
		e := NewEntry(payer)
		if _, err := j.Get(ctx, e.Key()); !errors.Is(err, settle.ErrNotFound) {
			t.Fatalf("Get before Create = %v, want ErrNotFound", err)
		}
		if cur, err := j.Create(ctx, e); err != nil || cur != nil {
			t.Fatalf("Create = %v, %v", cur, err)
		}
		again := e.Clone()
		again.BodyHash = common.Hash{2}
		cur, err := j.Create(ctx, again)
		if !errors.Is(err, settle.ErrExists) || cur == nil || cur.BodyHash != e.BodyHash {
			t.Fatalf("second Create = %+v, %v; want the first entry and ErrExists", cur, err)
		}
		got, err := j.Get(ctx, e.Key())
		if err != nil || got.State != settle.Reserved || got.Amount.Cmp(e.Amount) != 0 || string(got.Payment) != string(e.Payment) ||
			!got.Expires.Equal(e.Expires) || got.PayTo != e.PayTo {
			t.Fatalf("Get = %+v, %v", got, err)
		}
		next := got.Clone()
		next.State, next.Tx = settle.Settling, common.Hash{9}
		if err := j.Update(ctx, next, settle.Broadcast); !errors.Is(err, settle.ErrStateChanged) {
			t.Fatalf("Update from the wrong state = %v, want ErrStateChanged", err)
		}
		if err := j.Update(ctx, next, settle.Reserved); err != nil {
			t.Fatal(err)
		}
		if err := j.Delete(ctx, e.Key(), settle.Reserved); !errors.Is(err, settle.ErrStateChanged) {
			t.Fatalf("Delete of a settling entry as reserved = %v, want ErrStateChanged", err)
		}
		if open := names(t, j); !open[e.Name()] {
			t.Fatalf("a settling entry is not unfinished: %v", open)
		}
		done := next.Clone()
		done.State, done.Receipt = settle.Confirmed, &x402.Receipt{Success: true, Transaction: next.Tx.Hex()}
		if err := j.Update(ctx, done, settle.Settling); err != nil {
			t.Fatal(err)
		}
		if open := names(t, j); open[e.Name()] {
			t.Fatalf("a confirmed entry is still unfinished")
		}
		got, err = j.Get(ctx, e.Key())
		if err != nil || got.State != settle.Confirmed || got.Tx != next.Tx || got.Receipt == nil || !got.Receipt.Success {
			t.Fatalf("Get after confirm = %+v, %v", got, err)
		}
		missing := NewEntry(payer)
		if err := j.Update(ctx, missing, settle.Reserved); !errors.Is(err, settle.ErrNotFound) {
			t.Fatalf("Update of a missing entry = %v, want ErrNotFound", err)
		}
		if err := j.Delete(ctx, missing.Key(), settle.Reserved); err != nil {
			t.Fatalf("Delete of a missing entry = %v", err)
		}
	})

	t.Run("payment id", func(t *testing.T) {
		j := open(t)
		a, b := NewEntry(payer), NewEntry(payer)
		a.PaymentID, b.PaymentID = "pay_0123456789abcdef", "pay_0123456789abcdef"
		if _, err := j.Create(ctx, a); err != nil {
			t.Fatal(err)
		}
		cur, err := j.Create(ctx, b)
		if !errors.Is(err, settle.ErrIDTaken) || cur == nil || cur.Nonce != a.Nonce {
			t.Fatalf("Create with a taken id = %+v, %v; want entry a and ErrIDTaken", cur, err)
		}
		if _, err := j.Get(ctx, b.Key()); !errors.Is(err, settle.ErrNotFound) {
			t.Fatalf("a refused Create stored its entry: %v", err)
		}
		other := NewEntry(common.HexToAddress("0x00000000000000000000000000000000000000b1"))
		other.PaymentID = a.PaymentID
		if _, err := j.Create(ctx, other); err != nil {
			t.Fatalf("another payer's same id = %v, want accepted", err)
		}
		if err := j.Delete(ctx, a.Key(), settle.Reserved); err != nil {
			t.Fatal(err)
		}
		if _, err := j.Create(ctx, b); err != nil {
			t.Fatalf("the id of a released entry = %v, want free", err)
		}
	})

	t.Run("100 creates of one authorization", func(t *testing.T) {
		j := open(t)
		e := NewEntry(payer)
		var wg sync.WaitGroup
		var mu sync.Mutex
		won, lost := 0, 0
		for range 100 {
			wg.Go(func() {
				_, err := j.Create(ctx, e)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					won++
				case errors.Is(err, settle.ErrExists):
					lost++
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if won != 1 || lost != 99 {
			t.Fatalf("created %d, refused %d; want 1 and 99", won, lost)
		}
		cas := 0
		for range 50 {
			wg.Go(func() {
				next := e.Clone()
				next.State = settle.Settling
				if err := j.Update(ctx, next, settle.Reserved); err == nil {
					mu.Lock()
					cas++
					mu.Unlock()
				} else if !errors.Is(err, settle.ErrStateChanged) {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if cas != 1 {
			t.Fatalf("%d concurrent Reserved->Settling updates won, want 1", cas)
		}
	})

	t.Run("debts", func(t *testing.T) {
		j := open(t)
		if d, err := j.Debts(ctx, payer); err != nil || len(d) != 0 {
			t.Fatalf("Debts of a clean payer = %v, %v", d, err)
		}
		now := time.Now().Truncate(time.Millisecond)
		item := settle.DebtItem{Entry: "e1", Amount: big.NewInt(5), Reason: "insufficient_funds", At: now, Until: now.Add(time.Hour)}
		for range 2 { // recording the same failure twice is one debt
			if err := j.AddDebt(ctx, payer, item); err != nil {
				t.Fatal(err)
			}
		}
		item2 := item
		item2.Entry = "e2"
		if err := j.AddDebt(ctx, payer, item2); err != nil {
			t.Fatal(err)
		}
		d, err := j.Debts(ctx, payer)
		if err != nil || len(d) != 2 || d[0].Amount.Int64() != 5 || !d[0].Until.Equal(item.Until) {
			t.Fatalf("Debts = %+v, %v; want the two items", d, err)
		}
		if d, _ := j.Debts(ctx, common.Address{}); len(d) != 0 {
			t.Fatalf("another payer has debts %v", d)
		}
		cleared, err := j.ClearDebts(ctx, payer)
		if err != nil || len(cleared) != 2 || cleared[0].Amount.Int64() != 5 || cleared[0].Reason != item.Reason {
			t.Fatalf("ClearDebts = %+v, %v; want the two items it forgot", cleared, err)
		}
		if d, _ := j.Debts(ctx, payer); len(d) != 0 {
			t.Fatalf("Debts after ClearDebts = %v", d)
		}
		if cleared, err := j.ClearDebts(ctx, payer); err != nil || len(cleared) != 0 {
			t.Fatalf("clearing twice = %v, %v; want nothing forgotten", cleared, err)
		}
	})
}

func names(t *testing.T, j settle.Journal) map[string]bool {
	t.Helper()
	list, err := j.Unfinished(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]bool)
	for _, e := range list {
		out[e.Name()] = true
	}
	return out
}

// RunHolds checks in-flight accounting; open returns fresh, empty holds.
func RunHolds(t *testing.T, open func(t *testing.T) settle.Holds) {
	ctx := context.Background()
	acct := settle.Account{ChainID: "1337", Asset: common.Address{0xa}, Payer: common.Address{0xb}}
	later := time.Now().Add(time.Hour)

	t.Run("balance minus holds", func(t *testing.T) {
		h := open(t)
		bal := big.NewInt(25)
		if err := h.Hold(ctx, acct, "a", big.NewInt(10), bal, later); err != nil {
			t.Fatal(err)
		}
		if err := h.Hold(ctx, acct, "b", big.NewInt(10), bal, later); err != nil {
			t.Fatal(err)
		}
		if err := h.Hold(ctx, acct, "c", big.NewInt(10), bal, later); !errors.Is(err, settle.ErrInsufficientFunds) {
			t.Fatalf("third hold = %v, want ErrInsufficientFunds", err)
		}
		if err := h.Hold(ctx, acct, "a", big.NewInt(10), bal, later); err != nil {
			t.Fatalf("holding the same id again = %v, want nil", err)
		}
		other := acct
		other.Payer = common.Address{0xc}
		if err := h.Hold(ctx, other, "c", big.NewInt(10), bal, later); err != nil {
			t.Fatalf("another payer's hold = %v", err)
		}
		if held, err := h.Held(ctx, acct); err != nil || held.Int64() != 20 {
			t.Fatalf("Held = %v, %v; want 20", held, err)
		}
		if err := h.Release(ctx, acct, "a"); err != nil {
			t.Fatal(err)
		}
		if err := h.Release(ctx, acct, "missing"); err != nil {
			t.Fatal(err)
		}
		if err := h.Hold(ctx, acct, "c", big.NewInt(10), bal, later); err != nil {
			t.Fatalf("hold after a release = %v", err)
		}
		if held, _ := h.Held(ctx, acct); held.Int64() != 20 {
			t.Fatalf("Held = %v, want 20", held)
		}
	})

	t.Run("expired holds do not count", func(t *testing.T) {
		h := open(t)
		bal := big.NewInt(10)
		if err := h.Hold(ctx, acct, "gone", big.NewInt(10), bal, time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if err := h.Hold(ctx, acct, "next", big.NewInt(10), bal, later); err != nil {
			t.Fatalf("a hold beside an expired one = %v, want nil", err)
		}
		if held, _ := h.Held(ctx, acct); held.Int64() != 10 {
			t.Fatalf("Held = %v, want 10", held)
		}
	})

	t.Run("holds the balance shows do not count", func(t *testing.T) {
		h := open(t)
		for _, id := range []string{"mined", "sent"} {
			if err := h.Hold(ctx, acct, id, big.NewInt(10), big.NewInt(30), later); err != nil {
				t.Fatal(err)
			}
		}
		// The balance went from 30 to 20 when "mined" was mined; "sent" is
		// still on its way.
		bal := big.NewInt(20)
		if err := h.Hold(ctx, acct, "next", big.NewInt(10), bal, later); !errors.Is(err, settle.ErrInsufficientFunds) {
			t.Fatalf("a hold counting the mined transfer twice = %v, want ErrInsufficientFunds", err)
		}
		if err := h.Hold(ctx, acct, "next", big.NewInt(10), big.NewInt(19), later, "mined", "mined", "missing"); !errors.Is(err, settle.ErrInsufficientFunds) {
			t.Fatalf("19 less the transfer not yet mined, a duplicate and a missing id shown = %v, want ErrInsufficientFunds", err)
		}
		if err := h.Hold(ctx, acct, "next", big.NewInt(10), bal, later, "mined"); err != nil {
			t.Fatalf("a hold leaving out the mined transfer = %v, want nil", err)
		}
		if held, _ := h.Held(ctx, acct); held.Int64() != 30 {
			t.Fatalf("Held = %v, want 30 (the mined hold stays until released)", held)
		}
		ids, err := h.IDs(ctx, acct)
		slices.Sort(ids)
		if err != nil || !slices.Equal(ids, []string{"mined", "next", "sent"}) {
			t.Fatalf("IDs = %v, %v", ids, err)
		}
		if err := h.Hold(ctx, acct, "gone", big.NewInt(10), big.NewInt(100), time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		if ids, _ := h.IDs(ctx, acct); len(ids) != 3 {
			t.Fatalf("IDs = %v, an expired hold listed", ids)
		}
	})

	for _, n := range []int{20, 200} {
		t.Run("one call funded, concurrent holds", func(t *testing.T) {
			h := open(t)
			var wg sync.WaitGroup
			var mu sync.Mutex
			won := 0
			for i := range n {
				wg.Go(func() {
					err := h.Hold(ctx, acct, big.NewInt(int64(i)).String(), big.NewInt(10), big.NewInt(19), later)
					mu.Lock()
					defer mu.Unlock()
					if err == nil {
						won++
					} else if !errors.Is(err, settle.ErrInsufficientFunds) {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			if won != 1 {
				t.Fatalf("%d of %d holds accepted, want 1", won, n)
			}
		})
	}
}
