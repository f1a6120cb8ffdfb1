package agent_test

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/farebox/farebox/agent"
)

// TestBudgetIsCheckedBeforeSigning: a budget of one turn pays the first
// turn and refuses to sign the second; the chain shows one payment; the
// stopped run resumes with a bigger budget and pays just the missing turn.
func TestBudgetIsCheckedBeforeSigning(t *testing.T) {
	var runs atomic.Int32
	tool := agent.MustFunc("count", "", func(ctx context.Context, in struct{}) (string, error) {
		runs.Add(1)
		return "counted", nil
	})
	tr := transport(t)
	a, err := agent.New(agent.Config{Client: agent.NewClient(dev.url, tr), Model: "farebox-scripted", Tools: []agent.Tool{tool},
		Budget: big.NewInt(price + price/2)})
	if err != nil {
		t.Fatal(err)
	}
	before := balance(t)
	res, err := a.Ask(context.Background(), "use count")
	if !errors.Is(err, agent.ErrBudget) || !strings.Contains(err.Error(), "over the budget of 0.0015 USDC") {
		t.Fatalf("err = %v, want ErrBudget saying the budget", err)
	}
	if res.Turns != 1 || res.Spent.Int64() != price || len(res.Receipts) != 1 || runs.Load() != 1 {
		t.Fatalf("turns %d, spent %s, receipts %d, runs %d", res.Turns, res.Spent, len(res.Receipts), runs.Load())
	}
	if spent := new(big.Int).Sub(before, balance(t)); spent.Int64() != price {
		t.Fatalf("the chain shows %s spent, want %d", spent, price)
	}
	// The history ends with the outputs: resuming asks the model, runs nothing.
	b, err := agent.New(agent.Config{Client: agent.NewClient(dev.url, tr), Model: "farebox-scripted", Tools: []agent.Tool{tool},
		Budget: big.NewInt(price)})
	if err != nil {
		t.Fatal(err)
	}
	res, err = b.Run(context.Background(), res.History)
	if err != nil || res.Turns != 1 || runs.Load() != 1 || !strings.Contains(res.OutputText, "count returned: counted") {
		t.Fatalf("resumed: %v, %d turns, %d runs, %q", err, res.Turns, runs.Load(), res.OutputText)
	}
	if spent := new(big.Int).Sub(before, balance(t)); spent.Int64() != 2*price {
		t.Fatalf("the chain shows %s spent, want %d", spent, 2*price)
	}
}

// TestCancellation: a call cancelled through its event sends the reason as
// its output; a run cancelled while its calls run leaves them pending, and
// resuming runs just those.
func TestCancellation(t *testing.T) {
	var slowRuns, quickRuns atomic.Int32
	release := make(chan struct{})
	var phase atomic.Int32
	slowStarted := make(chan struct{}, 1) // told when slow starts in phase 2
	slow := agent.MustFunc("slow", "", func(ctx context.Context, in struct{}) (string, error) {
		slowRuns.Add(1)
		if phase.Load() == 2 {
			select {
			case slowStarted <- struct{}{}:
			default:
			}
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-release:
			return "slow finished", nil
		}
	})
	quick := agent.MustFunc("quick", "", func(ctx context.Context, in struct{}) (string, error) {
		quickRuns.Add(1)
		return "quick finished", nil
	})
	cfg := agent.Config{Client: agent.NewClient(dev.url, nil), Model: "farebox-scripted-free", Tools: []agent.Tool{slow, quick}}

	cfg.OnEvent = func(e agent.Event) {
		if e.Kind == agent.EventCallRunning && e.Call.Name == "slow" {
			e.Cancel("the user pressed stop")
		}
	}
	a, _ := agent.New(cfg)
	res, err := a.Ask(context.Background(), "use slow and quick")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.OutputText, "slow returned: Tool error: cancelled: the user pressed stop") || !strings.Contains(res.OutputText, "quick returned: quick finished") {
		t.Fatalf("answer %q", res.OutputText)
	}

	// Ctrl-C while slow still runs: once quick completed and slow started
	// (in either order: the two calls run in parallel).
	ctx, cancel := context.WithCancel(context.Background())
	quickDone := make(chan struct{})
	var quickOnce sync.Once
	cfg.OnEvent = func(e agent.Event) {
		if e.Kind == agent.EventCallCompleted && e.Call.Name == "quick" {
			quickOnce.Do(func() { close(quickDone) })
		}
	}
	phase.Store(2)
	go func() {
		<-quickDone
		<-slowStarted
		cancel()
	}()
	a, _ = agent.New(cfg)
	slowRuns.Store(0)
	quickRuns.Store(0)
	res, err = a.Ask(ctx, "use slow and quick")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	pending := agent.PendingCalls(res.History)
	if len(pending) != 2 || res.Turns != 1 {
		t.Fatalf("pending %v after %d turns: want both calls pending", pending, res.Turns)
	}
	close(release)
	cfg.OnEvent = nil
	a, _ = agent.New(cfg)
	res, err = a.Run(context.Background(), res.History)
	if err != nil || res.Turns != 1 || slowRuns.Load() != 2 || !strings.Contains(res.OutputText, "slow returned: slow finished") {
		t.Fatalf("resumed: %v, %d turns, %d slow runs, %q", err, res.Turns, slowRuns.Load(), res.OutputText)
	}
}

// TestMaxTurns: a run that needs more turns than allowed stops, resumable.
func TestMaxTurns(t *testing.T) {
	tool := agent.MustFunc("step", "", func(ctx context.Context, in struct{}) (string, error) { return "stepped", nil })
	a, _ := agent.New(agent.Config{Client: agent.NewClient(dev.url, nil), Model: "farebox-scripted-free", Tools: []agent.Tool{tool}, MaxTurns: 1})
	res, err := a.Ask(context.Background(), "use step")
	if !errors.Is(err, agent.ErrMaxTurns) || res.Turns != 1 {
		t.Fatalf("err %v after %d turns", err, res.Turns)
	}
	res, err = a.Run(context.Background(), res.History)
	if err != nil || !strings.Contains(res.OutputText, "step returned: stepped") {
		t.Fatalf("resumed: %v %q", err, res.OutputText)
	}
}
