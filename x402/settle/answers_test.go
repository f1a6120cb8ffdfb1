package settle_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

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
	m := settle.NewMemoryAnswers(10)
	m.Now = func() time.Time { return now }
	for _, name := range []string{"a", "b", "c"} {
		if err := m.PutAnswer(ctx, name, bytes.Repeat([]byte(name), 4), now.Add(time.Minute)); err != nil {
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
