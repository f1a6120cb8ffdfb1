package gateway

import (
	"context"
	"sync"
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

func startCheck(ctx context.Context, v *x402.Verifier, pay *x402.Payment, req *x402.Requirement) *pendingCheck {
	c := &pendingCheck{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.err = v.Check(ctx, pay, req)
	}()
	return c
}

// passed waits for the check of ch, if one is running, and reports the
// refusal the client gets when the chain refused the payment: the
// purchase is released (nothing was written, nothing moved).
func (p *payments) passed(ctx context.Context, ch *charge) error {
	if ch == nil || ch.check == nil {
		return nil
	}
	<-ch.check.done
	err := ch.check.err
	if err == nil {
		ch.check = nil
		return nil
	}
	p.finish(ctx, ch, released)
	xe := asX402(err, x402.ReasonUnexpectedVerifyError)
	return refuse(ch.offer, xe.Reason, "Payment refused: "+xe.Message)
}

// gatedSink holds a stream's first event until the payment's check
// passed: a refused payment leaves the response unwritten (a 402 can
// still be answered) and stops the model.
type gatedSink struct {
	responses.Sink
	once   sync.Once
	gate   func() error
	cancel context.CancelFunc
	err    error // the refusal, once the gate closed
}

func (g *gatedSink) Event(typ string, data []byte) error {
	if err := g.refusal(); err != nil {
		return err
	}
	return g.Sink.Event(typ, data)
}

// refusal waits for the gate once and is its refusal: asked by the first
// event, and once the model returned (a model may end before any event).
func (g *gatedSink) refusal() error {
	g.once.Do(func() {
		if g.err = g.gate(); g.err != nil {
			g.cancel()
		}
	})
	return g.err
}

// keepAliveAfter starts the stream's keep-alives once check passed (a
// keep-alive writes the stream's headers); the returned stop ends them.
func keepAliveAfter(check *pendingCheck, sse *responses.SSEWriter, every time.Duration, onBeat func()) func() {
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
