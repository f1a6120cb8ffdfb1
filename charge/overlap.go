package charge

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
)

// pendingCheck is the chain's check of a payment (simulation, contract
// wallet) running while the model starts (payments.chain.overlap).
type pendingCheck struct {
	done chan struct{}
	err  error
}

func startCheck(ctx context.Context, check func(context.Context) error) *pendingCheck {
	c := &pendingCheck{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.err = check(ctx)
	}()
	return c
}

// stopOnRefusal cancels the model the moment the chain refuses the
// payment being checked: the answer is then a 402, and nothing the model
// does is wanted. The returned func ends the watch.
func stopOnRefusal(check *pendingCheck, stopModel context.CancelFunc) func() {
	quit := make(chan struct{})
	go func() {
		select {
		case <-check.done:
			if check.err != nil {
				stopModel()
			}
		case <-quit:
		}
	}()
	return func() { close(quit) }
}

// passed waits for the check of ch, if one is running, and reports the
// refusal the client gets when the chain refused the payment: the
// purchase is released (nothing was written, nothing moved).
func (s *Seller) passed(ctx context.Context, ch *Fare) error {
	if ch.check == nil {
		return nil
	}
	<-ch.check.done
	err := ch.check.err
	if err == nil {
		ch.check = nil
		return nil
	}
	s.finish(ctx, ch, Released)
	xe := x402.AsError(err, x402.ReasonUnexpectedVerifyError)
	if unchecked(xe) {
		return errPaymentsUnavailable(err)
	}
	return refuse(ch.offer, xe.Reason, "Payment refused: "+xe.Message)
}

// gatedSink holds a stream's first event until the payment's check
// passed and, for a stream that settles first, its transfer was
// broadcast: a refused payment leaves the response unwritten (a 402 can
// still be answered) and stops the model.
type gatedSink struct {
	responses.Sink
	once   sync.Once
	gate   func() error // the check; nil when none runs
	settle func() error // awaited once, before the first event; nil when none
	cancel context.CancelFunc
	err    error // the refusal, once the gate closed
	open   atomic.Bool
}

func (g *gatedSink) Event(typ string, data []byte) error {
	if g.open.Load() {
		return g.Sink.Event(typ, data)
	}
	if err := g.refusal(true); err != nil {
		return err
	}
	return g.Sink.Event(typ, data)
}

// refusal waits for the gate once and is its refusal: asked by the first
// event, and once the model returned (a model may end before any event).
// The transfer (settle) is awaited here only for an event; the run awaits
// it once the model returned in any case.
func (g *gatedSink) refusal(event bool) error {
	g.once.Do(func() {
		if g.gate != nil {
			g.err = g.gate()
		}
		if g.err == nil && g.settle != nil && event {
			g.err = g.settle()
		}
		if g.err != nil {
			g.cancel()
		}
	})
	return g.err
}

// failInBand ends a stream whose headers are out (a keep-alive) with the
// gate's refusal as its terminal event: no content passed the gate.
func (g *gatedSink) failInBand(em *responses.Emitter, refused error) error {
	g.open.Store(true)
	e := errUpstream(refused)
	var r *Refusal
	if errors.As(refused, &r) {
		e = r.Err
	}
	em.Fail(e, nil)
	if st, ok := g.Sink.(Stream); ok {
		return st.Done()
	}
	return nil
}

// keepAliveAfter starts the stream's keep-alives once check passed (a
// keep-alive writes the stream's headers); the returned stop ends them.
func keepAliveAfter(check *pendingCheck, sse Stream, every time.Duration, onBeat func()) func() {
	var mu sync.Mutex
	stopped := false
	stop := func() {}
	quit := make(chan struct{})
	go func() {
		select {
		case <-check.done:
		case <-quit:
			return
		}
		if check.err != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			stop = sse.KeepAlive(every, onBeat)
		}
	}()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if !stopped {
			stopped = true
			close(quit)
			stop()
		}
	}
}
