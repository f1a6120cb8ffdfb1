package upstreamerr

import (
	"context"
	"errors"
	"sync"
	"time"
)

// The timeout causes a Watchdog cancels its context with. They map to 504.
var (
	ErrFirstByteTimeout = errors.New("upstream sent nothing before the first-byte timeout")
	ErrGapTimeout       = errors.New("upstream stalled between two stream events")
	ErrTotalTimeout     = errors.New("upstream call exceeded its total timeout")
)

// Watchdog cancels an upstream call's context when the first byte, the next
// event, or the end of the call does not come in time. One timer re-armed per
// event keeps the per-chunk cost to a Reset.
type Watchdog struct {
	t      Timeouts
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	idle  *time.Timer
	total *time.Timer
	seen  bool
	done  bool
}

// Watch derives the context of one upstream call from parent and starts its
// first-byte and total timers. Call Stop when the call is over.
func Watch(parent context.Context, t Timeouts) (context.Context, *Watchdog) {
	t = t.WithDefaults()
	ctx, cancel := context.WithCancelCause(parent)
	w := &Watchdog{t: t, cancel: cancel}
	if t.FirstByte > 0 {
		w.idle = time.AfterFunc(t.FirstByte, w.fireIdle)
	}
	if t.Total > 0 {
		w.total = time.AfterFunc(t.Total, func() { cancel(ErrTotalTimeout) })
	}
	return ctx, w
}

func (w *Watchdog) fireIdle() {
	w.mu.Lock()
	seen := w.seen
	w.mu.Unlock()
	if seen {
		w.cancel(ErrGapTimeout)
	} else {
		w.cancel(ErrFirstByteTimeout)
	}
}

// Seen records that a stream event arrived: from now on the gap timeout
// applies, counted from this event.
func (w *Watchdog) Seen() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	w.seen = true
	if w.t.Gap <= 0 {
		if w.idle != nil {
			w.idle.Stop()
		}
		return
	}
	if w.idle == nil {
		w.idle = time.AfterFunc(w.t.Gap, w.fireIdle)
		return
	}
	w.idle.Reset(w.t.Gap)
}

// Stop disarms the timers and releases the call's context.
func (w *Watchdog) Stop() {
	w.mu.Lock()
	w.done = true
	if w.idle != nil {
		w.idle.Stop()
	}
	if w.total != nil {
		w.total.Stop()
	}
	w.mu.Unlock()
	w.cancel(context.Canceled)
}
