package settle_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/settle"
)

// A paid purchase's answer is kept for its retries: a duplicate begun while
// the first runs waits for it and replays its answer; a replay whose answer
// is lost runs the model again at most MaxReruns times.
func TestPaidAnswersAreKeptForRetries(t *testing.T) {
	ctx := context.Background()
	e, ev := newEngine(t, settle.Config{MaxReruns: 1})
	b := newBuyer(t, 10*price)
	pay := b.pay(t)
	first, err := e.Begin(ctx, b.purchase(pay, "q"))
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		answer []byte
		err    error
	}
	waiter := make(chan result, 1)
	go func() {
		p, err := e.BeginWait(ctx, b.purchase(pay, "q"))
		if err != nil {
			waiter <- result{nil, err}
			return
		}
		if !p.Replay() {
			waiter <- result{nil, errors.New("the duplicate is not a replay")}
			return
		}
		a, err := p.Answer(ctx)
		waiter <- result{a, err}
	}()
	if _, err := first.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	first.Keep(ctx, []byte("the answer"))
	if r := <-waiter; r.err != nil || string(r.answer) != "the answer" {
		t.Fatalf("the duplicate got %q, %v", r.answer, r.err)
	}
	ev.await(t, settle.EventConfirmed, first.Entry().Name())

	// Another authorization paid whose answer was never kept: its retries
	// rerun the model once, then are refused.
	lost, err := e.Begin(ctx, b.purchase(b.pay(t), "r"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lost.Settle(ctx); err != nil {
		t.Fatal(err)
	}
	lost.Keep(ctx, nil)
	again := func() ([]byte, error) {
		p, err := e.Begin(ctx, settle.Purchase{Payment: lost.Payment, Requirement: lost.Requirement, BodyHash: lost.BodyHash})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Keep(ctx, nil)
		return p.Answer(ctx)
	}
	if a, err := again(); a != nil || err != nil {
		t.Fatalf("the first rerun: %q %v, want a run of the model", a, err)
	}
	if _, err := again(); !errors.Is(err, settle.ErrNoAnswer) {
		t.Fatalf("the second rerun: %v, want ErrNoAnswer", err)
	}
}

// The memory store is bounded: the oldest answers go first, expired ones
// are never returned.
func TestMemoryAnswersAreBounded(t *testing.T) {
	ctx := context.Background()
	now := time.Unix(1000, 0)
	m := settle.NewMemoryAnswers(10, 0)
	m.Now = func() time.Time { return now }
	for _, name := range []string{"a", "b", "c"} {
		if err := m.PutAnswer(ctx, name, common.Address{}, bytes.Repeat([]byte(name), 4), now.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Answer(ctx, "a"); !errors.Is(err, settle.ErrNotFound) {
		t.Errorf("the oldest answer outlived the bound: %v", err)
	}
	if b, err := m.Answer(ctx, "c"); err != nil || string(b) != "cccc" {
		t.Errorf("the newest answer: %q %v", b, err)
	}
	now = now.Add(2 * time.Minute)
	if _, err := m.Answer(ctx, "c"); !errors.Is(err, settle.ErrNotFound) {
		t.Errorf("an expired answer: %v", err)
	}
}

// A payer flooding the memory store evicts its own answers first (its
// share), then, with many wallets, those of whoever holds the most: the
// store never holds more than its bound, and a payer holding little keeps
// its answer.
func TestMemoryAnswersEvictTheHeaviestPayerFirst(t *testing.T) {
	ctx := context.Background()
	exp := time.Now().Add(time.Minute)
	const total, share = 1000, 300
	m := settle.NewMemoryAnswers(total, share)
	victim := common.HexToAddress("0x1")
	if err := m.PutAnswer(ctx, "victim", victim, bytes.Repeat([]byte("v"), 50), exp); err != nil {
		t.Fatal(err)
	}
	for w := range 8 {
		attacker := common.BigToAddress(big.NewInt(int64(100 + w)))
		for i := range 40 {
			name := fmt.Sprintf("a%d-%d", w, i)
			if err := m.PutAnswer(ctx, name, attacker, bytes.Repeat([]byte("x"), 90), exp); err != nil {
				t.Fatal(err)
			}
			all, mine := m.Bytes(attacker)
			if all > total || mine > share {
				t.Fatalf("after %s the store holds %d bytes (bound %d), the attacker %d (share %d)", name, all, total, mine, share)
			}
			if b, err := m.Answer(ctx, name); err != nil || len(b) != 90 {
				t.Fatalf("the answer just stored: %d bytes, %v", len(b), err)
			}
		}
	}
	if b, err := m.Answer(ctx, "victim"); err != nil || len(b) != 50 {
		t.Fatalf("the victim's answer after the flood: %d bytes, %v", len(b), err)
	}
	if err := m.PutAnswer(ctx, "huge", victim, make([]byte, share), exp); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Answer(ctx, "huge"); !errors.Is(err, settle.ErrNotFound) {
		t.Errorf("an answer over a payer's share was kept: %v", err)
	}
}
