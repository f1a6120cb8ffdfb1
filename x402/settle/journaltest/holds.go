package journaltest

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/settle"
)

// acct is the account of the suite's holds.
var acct = settle.Account{ChainID: "1337", Asset: common.Address{0xa}, Payer: common.Address{0xb}}

// RunHolds checks in-flight accounting; open returns fresh, empty holds.
func RunHolds(t *testing.T, open func(t *testing.T) settle.Holds) {
	t.Run("balance minus holds", func(t *testing.T) { holdsBalance(t, open(t)) })
	t.Run("expired holds do not count", func(t *testing.T) { holdsExpired(t, open(t)) })
	t.Run("holds the balance shows do not count", func(t *testing.T) { holdsShown(t, open(t)) })
	for _, n := range []int{20, 200} {
		t.Run("one call funded, concurrent holds", func(t *testing.T) { holdsConcurrent(t, open(t), n) })
	}
}

// holdsBalance: a hold is accepted while the balance less the other holds covers it.
func holdsBalance(t *testing.T, h settle.Holds) {
	ctx := context.Background()
	later := time.Now().Add(time.Hour)
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
}

// holdsExpired: an expired hold no longer reserves anything.
func holdsExpired(t *testing.T, h settle.Holds) {
	ctx := context.Background()
	later := time.Now().Add(time.Hour)
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
}

// holdsShown: holds the balance already shows mined are not counted twice.
func holdsShown(t *testing.T, h settle.Holds) {
	ctx := context.Background()
	later := time.Now().Add(time.Hour)
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
}

// holdsConcurrent: of n concurrent holds on a balance that funds one call,
// exactly one is accepted.
func holdsConcurrent(t *testing.T, h settle.Holds, n int) {
	ctx := context.Background()
	later := time.Now().Add(time.Hour)
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
}
