package settle

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// AnswerStore keeps the answer of each paid purchase, under its entry's
// name, until its authorization expires: a paid retry (the same
// authorization and body) is answered with it instead of running the model
// (or buying an upstream) again. Implementations bound the bytes they hold
// in total and per payer, and make room by dropping the payer's own
// oldest answers first, then those of the payer holding the most:
// MemoryAnswers (one process), store/redis's (shared by replicas).
type AnswerStore interface {
	// PutAnswer stores payer's answer under name until expires; an answer
	// larger than a payer's share is not kept.
	PutAnswer(ctx context.Context, name string, payer common.Address, answer []byte, expires time.Time) error
	// Answer returns the answer stored under name, or ErrNotFound.
	Answer(ctx context.Context, name string) ([]byte, error)
}

// ErrNoAnswer is returned by Purchase.Answer when a paid purchase has no
// stored answer and its retries may not run the model again
// (Config.MaxReruns spent).
var ErrNoAnswer = errors.New("settle: the paid answer is not available any more")

// answering is the engine's in-process view of answers being made: one per
// entry name, closed when the answer is stored or given up, so requests
// for the same purchase wait for it instead of running the model again.
type answering struct {
	mu     sync.Mutex
	making map[string]chan struct{}
	reruns map[string]int // replays that ran the model again, by name
}

// start marks name's answer as being made by the caller; false when
// someone else already makes it.
func (a *answering) start(name string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.making[name]; ok {
		return false
	}
	if a.making == nil {
		a.making = make(map[string]chan struct{})
	}
	a.making[name] = make(chan struct{})
	return true
}

// done ends the making of name's answer, waking its waiters.
func (a *answering) done(name string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ch, ok := a.making[name]; ok {
		close(ch)
		delete(a.making, name)
	}
}

// wait returns a channel closed when name's answer is made, nil when
// nobody in this process makes it.
func (a *answering) wait(name string) <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.making[name]
}

// rerun counts one more run of the model for a paid purchase that has no
// stored answer: false once max were spent.
func (a *answering) rerun(name string, max int) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.reruns == nil {
		a.reruns = make(map[string]int)
	}
	if a.reruns[name] >= max {
		return false
	}
	if len(a.reruns) >= maxRerunNames {
		clear(a.reruns) // bounded: forgetting counts allows a few more runs, never a replay of money
	}
	a.reruns[name]++
	return true
}

const maxRerunNames = 100_000

// pollInterval spaces reads of a shared store while another replica may be
// making the answer.
const pollInterval = 50 * time.Millisecond

// BeginWait is Begin that waits, instead of ErrInProgress, while the same
// authorization is in progress: in this process as long as the first
// request runs (bounded by ctx), for another replica's at most
// Config.AnswerWait. Then the first request's outcome decides: paid, this
// one is a replay (see Purchase.Answer); released, this one runs.
func (e *Engine) BeginWait(ctx context.Context, p Purchase) (*Purchase, error) {
	var deadline time.Time
	for {
		pu, err := e.Begin(ctx, p)
		if !errors.Is(err, ErrInProgress) {
			return pu, err
		}
		name := KeyName(p.Payment.Key(p.Requirement.Network))
		if ch := e.ans.wait(name); ch != nil {
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, err
			}
		}
		if deadline.IsZero() {
			deadline = e.cfg.Now().Add(e.cfg.AnswerWait)
		}
		if !e.cfg.Now().Before(deadline) || !sleep(ctx, pollInterval) {
			return nil, err
		}
	}
}

// Answer is the stored answer a replay is served with; nil for a purchase
// that is not a replay. While the request that paid is still making it,
// Answer waits for it (in this process as long as it runs, bounded by
// ctx; on another replica for Config.AnswerWait after the entry last
// changed). When no answer is stored it returns nil and the caller runs
// the model again, a bounded number of times (then ErrNoAnswer), and
// hands its answer to Keep.
func (p *Purchase) Answer(ctx context.Context) ([]byte, error) {
	if !p.replay || p.making {
		return nil, nil
	}
	e, name := p.engine, p.keyName()
	deadline := p.entry.Updated.Add(e.cfg.AnswerWait)
	for {
		b, err := e.answers.Answer(ctx, name)
		if err == nil {
			return b, nil
		}
		if !errors.Is(err, ErrNotFound) {
			e.cfg.Logger.Warn("settle: reading a stored answer", "entry", name, "err", err)
		}
		if ch := e.ans.wait(name); ch != nil {
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if e.shared && e.cfg.Now().Before(deadline) && errors.Is(err, ErrNotFound) {
			if !sleep(ctx, pollInterval) {
				return nil, ctx.Err()
			}
			continue
		}
		if !e.ans.start(name) {
			continue // another request of this process just began making it
		}
		if !e.ans.rerun(name, e.cfg.MaxReruns) {
			e.ans.done(name)
			return nil, ErrNoAnswer
		}
		p.making = true
		return nil, nil
	}
}

// Keep stores the answer this request made for its purchase (nil: none
// to store, e.g. nothing was delivered) and wakes the requests waiting
// for it. Only a purchase that was paid keeps its answer; calling Keep
// again, or on a purchase that did not make the answer, does nothing.
func (p *Purchase) Keep(ctx context.Context, answer []byte) {
	if !p.making {
		return
	}
	e, state := p.engine, p.entry.State
	if p.f != nil {
		state = p.f.state()
	}
	paid := p.replay || state == Broadcast || state == Confirmed
	if answer != nil && paid {
		if err := e.answers.PutAnswer(context.WithoutCancel(ctx), p.keyName(), p.entry.Payer, answer, p.entry.Expires); err != nil {
			e.cfg.Logger.Warn("settle: storing a paid answer", "entry", p.keyName(), "err", err)
		}
	}
	p.keepNothing()
}

// keepNothing ends this request's making of the answer.
func (p *Purchase) keepNothing() {
	if p.making {
		p.making = false
		p.engine.ans.done(p.keyName())
	}
}

// sleep waits d or until ctx is done (false).
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
