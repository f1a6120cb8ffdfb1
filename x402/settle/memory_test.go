package settle_test

import (
	"context"
	"errors"
	"math/big"
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
