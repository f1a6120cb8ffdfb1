// Package journaltest is the conformance suite every settle.Journal and
// settle.Holds implementation passes: the same assertions for the memory,
// bbolt and Redis stores.
package journaltest

import (
	"context"
	"crypto/rand"
	"errors"
	"math/big"
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

// payer is the payer of the suite's entries.
var payer = common.HexToAddress("0x00000000000000000000000000000000000000b0")

// Run checks a journal; open returns a fresh, empty one for each subtest.
func Run(t *testing.T, open func(t *testing.T) settle.Journal) {
	t.Run("lifecycle", func(t *testing.T) { journalLifecycle(t, open(t)) })
	t.Run("payment id", func(t *testing.T) { journalPaymentID(t, open(t)) })
	t.Run("100 creates of one authorization", func(t *testing.T) { journalConcurrentCreates(t, open(t)) })
	t.Run("debts", func(t *testing.T) { journalDebts(t, open(t)) })
	t.Run("entries", func(t *testing.T) { journalEntries(t, open(t)) })
}

// lister is a journal that lists every entry (the books read it on start).
type lister interface {
	Entries(ctx context.Context, fn func(*settle.Entry) error) error
}

// journalEntries: a journal lists each of its entries once, in its latest
// state, finished or not.
func journalEntries(t *testing.T, j settle.Journal) {
	l, ok := j.(lister)
	if !ok {
		t.Fatalf("%T does not list its entries: the books cannot count from it what a crash kept out of them", j)
	}
	ctx := context.Background()
	want := map[string]settle.State{}
	for i, state := range []settle.State{settle.Reserved, settle.Settling, settle.Confirmed, settle.Confirmed} {
		e := NewEntry(payer)
		e.Amount = big.NewInt(int64(1000 + i))
		if _, err := j.Create(ctx, e); err != nil {
			t.Fatal(err)
		}
		for _, step := range []settle.State{settle.Settling, settle.Confirmed} {
			if state == settle.Reserved || (step == settle.Confirmed && state != settle.Confirmed) {
				break
			}
			next, from := e.Clone(), e.State
			next.State, next.Tx = step, common.Hash{byte(i + 1)}
			if err := j.Update(ctx, next, from); err != nil {
				t.Fatal(err)
			}
			e = next
		}
		want[e.Name()] = e.State
	}
	got := map[string]settle.State{}
	err := l.Entries(ctx, func(e *settle.Entry) error {
		if _, dup := got[e.Name()]; dup {
			t.Errorf("entry %s listed twice", e.Name())
		}
		got[e.Name()] = e.State
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, state := range want {
		if got[name] != state {
			t.Errorf("entry %s listed as %q, want %q", name, got[name], state)
		}
	}
	if len(got) != len(want) {
		t.Errorf("listed %d entries, want %d", len(got), len(want))
	}
	stop := errors.New("enough")
	n := 0
	if err := l.Entries(ctx, func(*settle.Entry) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
		t.Errorf("a listing whose callback fails returned %v after %d entries, want that error after 1", err, n)
	}
}

// journalLifecycle: an entry goes Reserved -> Settling -> Confirmed
// through compare-and-set updates, and only unfinished entries are listed.
func journalLifecycle(t *testing.T, j settle.Journal) {
	ctx := context.Background()
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
}

// journalPaymentID: a payer's payment id names one live entry at a time.
func journalPaymentID(t *testing.T, j settle.Journal) {
	ctx := context.Background()
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
}

// journalConcurrentCreates: concurrent creates and updates of one
// authorization: exactly one wins each.
func journalConcurrentCreates(t *testing.T, j settle.Journal) {
	ctx := context.Background()
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
}

// journalDebts: debts are recorded once per failure, listed per payer and forgotten by ClearDebts.
func journalDebts(t *testing.T, j settle.Journal) {
	ctx := context.Background()
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
}

// names is the set of the journal's unfinished entries, by name.
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
