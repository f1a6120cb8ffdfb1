package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// Decision is an answer to an approval question.
type Decision int

// The four answers a person gives: once or always, allow or reject.
const (
	AllowOnce Decision = iota
	AllowAlways
	RejectOnce
	RejectAlways
)

// ApproveFunc asks whether call may run. An error stops the run before any
// call of the turn runs, leaving them pending (resumable).
type ApproveFunc func(ctx context.Context, call Call) (Decision, error)

// EventKind names what an Event reports.
type EventKind string

// Event kinds, in the order a turn produces them.
const (
	EventTextDelta     EventKind = "text.delta"       // Text is the next piece of the answer
	EventCallRunning   EventKind = "call.in_progress" // Call started; Cancel stops it
	EventCallCompleted EventKind = "call.completed"   // Call ended; Output is what the model gets
	EventCallFailed    EventKind = "call.failed"      // Call failed, was denied or cancelled; Output says why
	EventTurnPaid      EventKind = "turn.paid"        // Receipt is the turn's entry in the ledger
)

// Event is something the caller sees while a run goes on.
type Event struct {
	Kind    EventKind
	Text    string
	Call    *Call
	Output  string
	Receipt *Receipt
	// Cancel, on EventCallRunning, cancels the call; reason is sent to the
	// model as its output.
	Cancel func(reason string)
}

// errCancelled is the cause of a call cancelled through Event.Cancel.
type errCancelled struct{ reason string }

func (e *errCancelled) Error() string { return "cancelled: " + e.reason }

// toolError is the output the model gets when a call did not produce one.
func toolError(format string, args ...any) Output {
	return Text("Tool error: " + fmt.Sprintf(format, args...))
}

// runCalls decides and runs one turn's calls: approvals first, one at a
// time (a person answers them in order), then every allowed call in
// parallel; all outputs come back together, in the calls' order.
func (a *Agent) runCalls(ctx context.Context, calls []Call) ([]Item, error) {
	outs := make([]Output, len(calls))
	run := make([]bool, len(calls))
	for i, c := range calls {
		tool, known := a.tools[c.Name]
		switch {
		case !known:
			outs[i] = toolError("unknown tool %q", c.Name)
		default:
			allowed, err := a.approve(ctx, tool, c)
			if err != nil {
				return nil, err
			}
			if !allowed {
				outs[i] = toolError("the user denied this call of %s", c.Name)
			}
			run[i] = allowed
		}
		if !run[i] {
			cc := c
			a.emit(Event{Kind: EventCallFailed, Call: &cc, Output: outs[i].Text})
		}
	}
	var wg sync.WaitGroup
	for i, c := range calls {
		if !run[i] {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i] = a.runCall(ctx, a.tools[c.Name], c)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err // the run was stopped: the calls stay pending, to resume
	}
	items := make([]Item, len(calls))
	for i, c := range calls {
		items[i] = FunctionCallOutput(c.ID, outs[i])
	}
	return items, nil
}

// approve applies Deny, "always" answers and Config.Approve.
func (a *Agent) approve(ctx context.Context, tool Tool, c Call) (bool, error) {
	a.mu.Lock()
	d, remembered := a.always[c.Name]
	a.mu.Unlock()
	if remembered {
		return d == AllowAlways, nil
	}
	if tool.Auto || a.cfg.Approve == nil {
		return true, nil
	}
	d, err := a.cfg.Approve(ctx, c)
	if err != nil {
		return false, err
	}
	if d == AllowAlways || d == RejectAlways {
		a.mu.Lock()
		a.always[c.Name] = d
		a.mu.Unlock()
	}
	return d == AllowOnce || d == AllowAlways, nil
}

// runCall runs one call with its status events; a failure, a panic or a
// cancellation becomes a "Tool error:" output the model can recover from.
func (a *Agent) runCall(ctx context.Context, tool Tool, c Call) (out Output) {
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	a.emit(Event{Kind: EventCallRunning, Call: &c, Cancel: func(reason string) { cancel(&errCancelled{reason}) }})
	type result struct {
		out Output
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r.err = fmt.Errorf("panic: %v", p)
			}
			done <- r
		}()
		args := json.RawMessage(c.Arguments)
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		r.out, r.err = tool.Run(cctx, args)
	}()
	var err error
	select {
	case r := <-done:
		out, err = r.out, r.err
	case <-cctx.Done(): // a tool that ignores its context does not hold the turn
	}
	var cancelled *errCancelled
	if cause := context.Cause(cctx); errors.As(cause, &cancelled) {
		out, err = toolError("%s", cancelled.Error()), nil
		a.emit(Event{Kind: EventCallFailed, Call: &c, Output: out.Text})
		return out
	}
	if ctx.Err() != nil {
		return Output{}
	}
	if err != nil {
		out = toolError("%v", err)
		a.emit(Event{Kind: EventCallFailed, Call: &c, Output: out.Text})
		return out
	}
	a.emit(Event{Kind: EventCallCompleted, Call: &c, Output: out.Text})
	return out
}
