package charge

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/farebox/farebox/responses"
)

// run is one model run for a fare: the model writes through one emitter
// (the output decides between a stream and one object, so both answers
// are built by the same code); then the fare is charged for what was
// delivered and the end of the answer is written.
type run struct {
	s    *Seller
	c    *Call
	f    *Fare
	out  Output
	sale *Sale
	ctx  context.Context // the client's

	mctx      context.Context // the model's
	stopModel context.CancelFunc
	committed func() bool

	paying      atomic.Pointer[transfer] // the transfer going with the model, once started
	startPaying func() *transfer         // nil: the transfer does not go alongside

	stream        Stream // nil: one object
	gate          *gatedSink
	rec           *recordingSink
	stopKeepAlive func()
	em            *responses.Emitter
	m             *meter
}

func (s *Seller) run(ctx context.Context, c *Call, f *Fare, out Output, sale *Sale) error {
	r := &run{s: s, c: c, f: f, out: out, sale: sale, ctx: ctx, stopKeepAlive: func() {}}
	r.mctx, r.stopModel, r.committed = modelContext(ctx)
	defer r.stopModel()
	if c.Product.Served != nil {
		r.mctx = c.Product.Served(r.mctx, func(name string) { sale.Supplier = name })
	}
	if f.check != nil {
		defer stopOnRefusal(f.check, r.stopModel)()
	}
	running(f)
	r.alongside()
	sink := r.sink()
	defer r.stopKeepAlive()
	if r.stream != nil {
		s.Meters.Streams(1)
		defer s.Meters.Streams(-1)
	}
	r.em = responses.NewEmitter(c.Request, sink, responses.EmitterOptions{Model: c.Product.Name})
	if r.rec != nil {
		r.rec.leaveOut(r.em.Echo())
	}
	ft := &firstToken{Output: r.em, start: time.Now()}
	sale.Reached = true
	// Every model is metered: a per-token price charges what it counted,
	// and a failed response reports the usage produced before the failure.
	r.m = &meter{Output: ft}
	err := c.Product.Model.Respond(r.mctx, c.Request, r.m)
	s.Meters.Upstream(c.Product.Name, time.Since(ft.start))
	sale.TTFT = ft.first
	if rerr := r.withheld(err); rerr != nil {
		return rerr
	}
	return r.end(err)
}

// alongside starts, for a fare whose transfer goes with the model, that
// transfer: now, or for a resold model right before it buys its answer.
func (r *run) alongside() {
	if !r.s.settlesAlongside(r.f) {
		return
	}
	var once sync.Once
	runCtx := r.mctx
	r.startPaying = func() *transfer {
		once.Do(func() { r.paying.Store(r.s.startTransfer(runCtx, r.f, r.stopModel)) })
		return r.paying.Load()
	}
	if r.c.Product.Resold {
		// A reseller spends nothing before it buys: its client's
		// transfer goes (and must be accepted) right before that.
		r.mctx = paidCommit(r.mctx, r.startPaying)
	} else {
		r.startPaying()
	}
}

// sink is where the emitter writes: nothing for one object (it is built
// whole at the end), else the output's stream, gated until the payment's
// check passed and recorded for a paid retry; its keep-alives start here.
func (r *run) sink() responses.Sink {
	if !r.c.Request.Stream {
		return responses.Discard{}
	}
	s, f := r.s, r.f
	r.stream = r.out.Stream()
	var sink responses.Sink = r.stream
	if f.check != nil || r.startPaying != nil {
		// No event is written before the chain's check passed and, for
		// exact, the transfer was broadcast: a refusal is still a 402.
		r.gate = &gatedSink{Sink: r.stream, gate: func() error { return s.passed(r.ctx, f) }, cancel: r.stopModel}
		if r.startPaying != nil {
			r.gate.settle = func() error { return r.startPaying().refusal() }
		}
		sink = r.gate
	}
	if f.check != nil {
		// Nor keep-alives, before the check passed.
		r.stopKeepAlive = keepAliveAfter(f.check, r.stream, s.KeepAlive, s.Meters.KeepAlive)
	} else {
		r.stopKeepAlive = r.stream.KeepAlive(s.KeepAlive, s.Meters.KeepAlive)
	}
	if f.paid() {
		r.rec = newRecordingSink(sink, r.committed)
		sink = r.rec
	}
	return sink
}

// started reports whether the stream's headers went out (an event or a
// keep-alive): from then on every ending is an event, not an HTTP error.
func (r *run) started() bool { return r.stream != nil && r.stream.Started() }

// withheld is the refusal that answers instead of the model's answer, once
// the model returned: the chain's check refused the payment, or the
// transfer that went with the model was refused or failed on chain before
// anything was written. A stream whose headers are out ends with it
// in-band.
func (r *run) withheld(err error) error {
	f, em := r.f, r.em
	if r.gate != nil {
		if rerr := r.gate.refusal(false); rerr != nil {
			if r.started() { // a keep-alive sent the headers: the refusal is an event
				return r.gate.failInBand(em, rerr)
			}
			return rerr
		}
	} else if rerr := r.s.passed(r.ctx, f); rerr != nil {
		return rerr // a JSON answer: withheld, nothing written
	}
	tr := r.paying.Load()
	if tr == nil {
		return nil
	}
	// The transfer went with the model: its refusal is the answer, and
	// an answer it paid for carries its receipt whatever happens next.
	if rerr := tr.refusal(); rerr != nil {
		if r.started() {
			return r.gate.failInBand(em, rerr)
		}
		return rerr
	}
	f.paidElsewhere()
	if xe := f.failedOnChain.Load(); xe != nil && !r.started() {
		return refuseFailedOnChain(f.offer, xe.Reason) // nothing was written: the answer is withheld
	}
	if err != nil || em.Denied() != nil {
		r.out.Header().Set("X-Should-Retry", "false") // paid: a retry must reuse this payment
		f.setReceipt(r.out.Header())
	}
	return nil
}

// end charges the fare for what was delivered and writes the end of the
// answer: the terminal event of a stream, or the object, or the error
// that answers instead.
func (r *run) end(err error) error {
	s, c, f, em := r.s, r.c, r.f, r.em
	ctx, bodyLen := r.ctx, len(c.Body)
	if err == nil || em.Started() {
		s.attribute(ctx, f, r.sale.Supplier) // a supplier answered: what the call settles is its revenue
	}
	r.sale.Usage = r.m.used(bodyLen)
	if tp := c.Product.PerToken; tp != nil && f.outcome == Reserved && f.metered() {
		f.amount = tp.Cost(r.sale.Usage)
	}
	denied := em.Denied() // the model only called tools the client may not get
	d := delivery{produced: em.Started() && denied == nil, failed: err != nil, stream: c.Request.Stream, clientGone: ctx.Err() != nil,
		committed: r.committed()}
	s.decide(ctx, f, d)
	r.stopKeepAlive()
	started := em.Started() || r.started()
	if cerr := f.chainRefusal(); cerr != nil && started && d.stream {
		em.Fail(cerr, f.receiptField()) // the transfer failed on chain mid-stream: no further content
		return r.stream.Done()
	}
	switch {
	case d.clientGone && d.produced:
		if err == nil && denied == nil && f.paid() && !f.settleFailed() {
			// Owed whole (a resold answer): kept for the client's retry.
			em.Complete(f.receiptField())
			keepAnswer(ctx, f, r.rec, em.Response(), em.Echo())
		}
		return nil // nobody to tell; a stream's charge is settled above
	case err != nil && (!started || !d.stream):
		return errUpstream(err)
	case denied != nil && (!started || !d.stream):
		return denied
	case err != nil:
		r.m.failed(bodyLen)
		em.Fail(errUpstream(err), f.receiptField()) // the upstream broke mid-stream
		return r.stream.Done()
	case denied != nil:
		em.Fail(denied, nil) // the stream's headers went out with a keep-alive
		return r.stream.Done()
	case f.unpaid && !d.stream:
		return refuseUnpaidRun(f) // the answer is withheld, the authorization spent
	case f.settleFailed() && !d.stream:
		return refuseUnsettled(f) // the answer is withheld, the authorization released
	case f.settleFailed():
		em.Fail(errSettleFailedAfterAnswer(f.receipt.ErrorReason), f.receiptField())
		return r.stream.Done()
	}
	return r.complete()
}

// complete ends a whole answer: the stream's terminal event, or the
// object with its receipt; either is kept for a paid retry.
func (r *run) complete() error {
	f, em := r.f, r.em
	em.Complete(f.receiptField())
	if r.stream != nil {
		keepAnswer(r.ctx, f, r.rec, nil, nil)
		return r.stream.Done()
	}
	object := em.Response()
	keepAnswer(r.ctx, f, nil, object, em.Echo())
	f.setReceipt(r.out.Header())
	return r.out.Object(object)
}

// modelContext is the model call's context: it ends when the client
// leaves, unless the model committed (responses.Commit: it spent money for
// this request that cannot be taken back, as a reseller buying upstream),
// after which it runs to its end so that the answer owed is whole and kept.
func modelContext(ctx context.Context) (mctx context.Context, stop context.CancelFunc, committed func() bool) {
	mctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var mu sync.Mutex
	var done, gone bool
	unwatch := context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			gone = true
			cancel()
		}
	})
	mctx = responses.WithCommit(mctx, func() error {
		mu.Lock()
		defer mu.Unlock()
		if gone {
			return context.Canceled
		}
		done = true
		return nil
	})
	stop = func() { unwatch(); cancel() }
	committed = func() bool { mu.Lock(); defer mu.Unlock(); return done }
	return mctx, stop, committed
}
