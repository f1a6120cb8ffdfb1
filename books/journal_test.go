package books

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/settle"
)

// TestTheJournalCountsWhatACrashKeptOutOfTheBooks: a process booked one
// paid call and its confirmation and was killed before it wrote the next
// call and the next confirmations; books started on the same store and
// journal count every purchase the journal holds confirmed exactly once
// (calls, paid calls, charged, settled), leave what is not confirmed to
// the engine's events, and leave alone what is too old for its marks.
func TestTheJournalCountsWhatACrashKeptOutOfTheBooks(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)
	store := NewMemoryStore()
	journal := settle.NewMemoryJournal(100)
	payer := common.HexToAddress("0xAbC0000000000000000000000000000000000009")
	put := func(nonce byte, state settle.State, amount int64, created time.Time) *settle.Entry {
		t.Helper()
		en := &settle.Entry{ChainID: "1", Payer: payer, Nonce: common.Hash{nonce}, Amount: big.NewInt(amount), Model: "m",
			State: settle.Reserved, Created: created, Updated: created}
		if _, err := journal.Create(ctx, en); err != nil {
			t.Fatal(err)
		}
		if state != settle.Reserved {
			next := en.Clone()
			next.State = state
			if err := journal.Update(ctx, next, settle.Reserved); err != nil {
				t.Fatal(err)
			}
			en = next
		}
		return en
	}
	booked := put(1, settle.Confirmed, 1000, now.Add(-time.Minute))
	lostCall := put(2, settle.Confirmed, 1000, now.Add(-time.Minute))
	put(3, settle.Confirmed, 2000, now.Add(-30*time.Second))
	put(4, settle.Broadcast, 5000, now.Add(-10*time.Second)) // the engine's Resume confirms it, or not
	put(5, settle.Confirmed, 7000, now.Add(-40*24*time.Hour))

	// The killed process: one call and its confirmation written; the next
	// call's row written, its confirmation not; the third not at all.
	first := New(Config{Store: store, Now: func() time.Time { return now.Add(-2 * time.Minute) }})
	first.RecordCall(Call{Model: "m", Payer: payer.Hex(), Reached: true, Paid: true, Charged: 1000, Status: 200, Wire: "responses",
		Entry: booked.Name()})
	first.Event(settle.Event{Kind: settle.EventConfirmed, Entry: booked})
	first.RecordCall(Call{Model: "m", Payer: payer.Hex(), Reached: true, Paid: true, Charged: 1000, Status: 200, Wire: "responses",
		Entry: lostCall.Name()})
	first.Close()

	b := New(Config{Store: store, Journal: journal, ReconcileAfter: time.Millisecond, Now: func() time.Time { return now }})
	defer b.Close()
	<-b.reconciled
	want := map[string]int64{FCalls: 3, FPaid: 3, FCharged: 4000, FSettled: 4000, FSettledN: 3}
	got := sums(t, store, now)
	for f, v := range want {
		if got[f] != v {
			t.Errorf("%s = %d, want %d (all: %v)", f, got[f], v, got)
		}
	}
	if got[WireField("responses")] != 2 {
		t.Errorf("calls by wire %d, want the 2 the gateway booked", got[WireField("responses")])
	}
	// Started again: the marks keep every purchase at one count.
	b.Close()
	again := New(Config{Store: store, Journal: journal, ReconcileAfter: time.Millisecond, Now: func() time.Time { return now }})
	<-again.reconciled
	again.Close()
	for f, v := range want {
		if g := sums(t, store, now)[f]; g != v {
			t.Errorf("after another start %s = %d, want %d", f, g, v)
		}
	}
}

// sums adds up the fields of every row in the store from 50 days before
// now to an hour after.
func sums(t *testing.T, s Store, now time.Time) map[string]int64 {
	t.Helper()
	rows, err := s.Rows(context.Background(), now.Add(-50*24*time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range rows {
		for f, v := range r.Fields {
			out[f] += v
		}
	}
	return out
}
