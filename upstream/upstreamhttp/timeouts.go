package upstreamhttp

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Timeouts bounds one upstream call. A zero field takes its default; a
// negative field disables that bound.
type Timeouts struct {
	Connect   time.Duration // TCP (and TLS) connection setup
	FirstByte time.Duration // request sent -> first stream event
	Gap       time.Duration // between two stream events
	Total     time.Duration // the whole call
}

// DefaultTimeouts are generous enough for slow reasoning models yet short
// enough that a dead upstream is noticed.
var DefaultTimeouts = Timeouts{
	Connect:   10 * time.Second,
	FirstByte: 120 * time.Second,
	Gap:       60 * time.Second,
	Total:     10 * time.Minute,
}

// WithDefaults returns t with every zero field replaced by its default.
func (t Timeouts) WithDefaults() Timeouts {
	if t.Connect == 0 {
		t.Connect = DefaultTimeouts.Connect
	}
	if t.FirstByte == 0 {
		t.FirstByte = DefaultTimeouts.FirstByte
	}
	if t.Gap == 0 {
		t.Gap = DefaultTimeouts.Gap
	}
	if t.Total == 0 {
		t.Total = DefaultTimeouts.Total
	}
	return t
}

// The timeout causes a watchdog cancels its context with. They map to 504.
var (
	ErrFirstByteTimeout = errors.New("upstream sent nothing before the first-byte timeout")
	ErrGapTimeout       = errors.New("upstream stalled between two stream events")
	ErrTotalTimeout     = errors.New("upstream call exceeded its total timeout")
)

// watchdog cancels an upstream call's context when the first byte, the next
// event, or the end of the call does not come in time. One timer re-armed per
// event keeps the per-chunk cost to a Reset.
type watchdog struct {
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
func watch(parent context.Context, t Timeouts) (context.Context, *watchdog) {
	t = t.WithDefaults()
	ctx, cancel := context.WithCancelCause(parent)
	w := &watchdog{t: t, cancel: cancel}
	if t.FirstByte > 0 {
		w.idle = time.AfterFunc(t.FirstByte, w.fireIdle)
	}
	if t.Total > 0 {
		w.total = time.AfterFunc(t.Total, func() { cancel(ErrTotalTimeout) })
	}
	return ctx, w
}

func (w *watchdog) fireIdle() {
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
func (w *watchdog) Seen() {
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
func (w *watchdog) Stop() {
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

func positive(d time.Duration) time.Duration {
	if d < 0 {
		return 0
	}
	return d
}
