package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
	"github.com/labstack/echo/v4"
)

// handleResponses serves POST /v1/responses: parse and validate, price,
// take the payment, call the model, stream or accumulate, settle, receipt.
// Every error it returns is written by writeError.
func (s *Server) handleResponses(c echo.Context) error {
	// Admitted before the body is read: a refused call holds no body.
	release, err := s.admit()
	if err != nil {
		return err
	}
	defer release()
	body, err := readBody(c.Request(), s.cfg.BodyLimit)
	if err != nil {
		return err
	}
	if s.pay.refundRequested(c.Request().Header) {
		// A refund pays for nothing: its body is not a call (any is taken).
		if o := s.refundOffer(s.resourceURL(c)); o != nil {
			return s.refund(c, o)
		}
	}
	req, perr := responses.ParseWith(body, s.hosted)
	if perr != nil {
		return perr
	}
	c.Set(modelKey, req.Model)
	if len(req.DroppedTools) > 0 {
		s.droppedTools(c, req)
	}
	rt, ok := s.routes[req.Model]
	if !ok {
		return errModelNotFound(req.Model, s.order)
	}
	if err := rt.limits.apply(req); err != nil {
		return err
	}
	if rt.perToken != nil {
		if err := rt.perToken.boundOutput(req, len(body)); err != nil {
			return err
		}
	}
	if rt.free() {
		rt.limits.endUser(req, freeCaller(c))
		return s.serve(c, rt, req, nil, len(body))
	}
	ch, err := s.pay.authorize(c.Request().Context(), c.Request().Header, rt, s.resourceURL(c), body)
	if err != nil {
		return err
	}
	c.Set(chargeKey, ch)
	rt.limits.endUser(req, "payer:"+strings.ToLower(ch.payment.Authorization.From.Hex()))
	if err := s.escrowOnly(c.Request().Context(), ch, req.Stream); err != nil {
		return err
	}
	if a, ok := ch.pay.(x402.AnsweredHold); ok {
		defer a.Keep(c.Request().Context(), nil)
		if ch.pay.Replay() {
			// Paid already: the answer it bought, not another model run.
			stored, err := a.Answer(c.Request().Context())
			switch {
			case errors.Is(err, settle.ErrNoAnswer):
				s.pay.finish(c.Request().Context(), ch, replayed)
				return refuseNonceUsed(ch.offer)
			case err != nil:
				return err // the client left while the first request made the answer
			case stored != nil:
				return s.replayAnswer(c, ch, stored, responses.ResponseEcho(req, rt.name))
			}
		}
	}
	if s.pay.before {
		// Paid before the model runs: whatever happens next, the answer
		// must not be retried into a second payment.
		c.Response().Header().Set("X-Should-Retry", "false")
		s.pay.settle(c.Request().Context(), ch, false)
		if ch.settleFailed() {
			return refuseUnsettled(ch)
		}
		receiptHeader(c.Response().Header(), ch)
	}
	return s.serve(c, rt, req, ch, len(body))
}

// droppedToolsHeader names, on an answer, the provider-executed tools the
// request declared and farebox left out (tools.hosted: drop).
const droppedToolsHeader = "Farebox-Dropped-Tools"

// droppedTools makes the tools.hosted drop visible: to the client in a
// header (set before anything is written, so every answer carries it) and
// to the operator in the log.
func (s *Server) droppedTools(c echo.Context, req *responses.Request) {
	c.Response().Header().Set(droppedToolsHeader, strings.Join(req.DroppedTools, ", "))
	s.log.Info("provider-executed tools dropped", "model", req.Model, "tools", req.DroppedTools,
		"request_id", c.Response().Header().Get(echo.HeaderXRequestID))
}

// serve runs the model through one emitter (the sink decides between SSE
// and one JSON object, so both answers are built by the same code), then
// charges for what was delivered and writes the end of the answer.
func (s *Server) serve(c echo.Context, rt *route, req *responses.Request, ch *charge, bodyLen int) error {
	ctx := c.Request().Context()
	mctx, stopModel, committed := modelContext(ctx)
	defer stopModel()
	mctx = servedBy(c, rt, mctx)
	if ch != nil && ch.check != nil {
		defer stopOnRefusal(ch.check, stopModel)()
	}
	if ch != nil {
		running(ch)
	}
	var paying atomic.Pointer[transfer] // the transfer going with the model, once started
	var startPaying func() *transfer
	if s.settlesAlongside(ch) {
		var once sync.Once
		runCtx := mctx
		startPaying = func() *transfer {
			once.Do(func() { paying.Store(s.startTransfer(runCtx, ch, stopModel)) })
			return paying.Load()
		}
		if _, resold := rt.model.(reseller); resold {
			// A reseller spends nothing before it buys: its client's
			// transfer goes (and must be accepted) right before that.
			mctx = paidCommit(mctx, startPaying)
		} else {
			startPaying()
		}
	}
	var sink responses.Sink = responses.Discard{}
	var sse *responses.SSEWriter
	var gate *gatedSink
	var rec *recordingSink
	stopKeepAlive := func() {}
	if req.Stream {
		sse = responses.NewSSEWriter(c.Response())
		sink = sse
		if ch != nil && (ch.check != nil || startPaying != nil) {
			// No event is written before the chain's check passed and, for
			// exact, the transfer was broadcast: a refusal is still a 402.
			gate = &gatedSink{Sink: sse, gate: func() error { return s.pay.passed(ctx, ch) }, cancel: stopModel}
			if startPaying != nil {
				gate.settle = func() error { return startPaying().refusal() }
			}
			sink = gate
		}
		if ch != nil && ch.check != nil {
			// Nor keep-alives, before the check passed.
			stopKeepAlive = keepAliveAfter(ch.check, sse, time.Duration(s.cfg.Keepalive), s.metrics.keepalive.Inc)
		} else {
			stopKeepAlive = sse.KeepAlive(time.Duration(s.cfg.Keepalive), s.metrics.keepalive.Inc)
		}
		defer stopKeepAlive()
		if ch != nil {
			rec = newRecordingSink(sink, committed)
			sink = rec
		}
		s.metrics.streams.Inc()
		defer s.metrics.streams.Dec()
	}
	em := responses.NewEmitter(req, sink, responses.EmitterOptions{Model: rt.name})
	if rec != nil {
		rec.leaveOut(em.Echo())
	}
	ft := timeFirst(c, em)
	// Every model is metered: a per-token price charges what it counted,
	// and a failed response reports the usage produced before the failure.
	m := &meter{Output: ft}
	start := ft.start
	err := rt.model.Respond(mctx, req, m)
	s.metrics.upstream.WithLabelValues(rt.name).Observe(time.Since(start).Seconds())
	if gate != nil {
		if rerr := gate.refusal(false); rerr != nil {
			if sse.Started() { // a keep-alive sent the headers: the refusal is an event
				return gate.failInBand(em, rerr)
			}
			return rerr
		}
	} else if rerr := s.pay.passed(ctx, ch); rerr != nil {
		return rerr // a JSON answer: withheld, nothing written
	}
	if tr := paying.Load(); tr != nil {
		// The transfer went with the model: its refusal is the answer, and
		// an answer it paid for carries its receipt whatever happens next.
		if rerr := tr.refusal(); rerr != nil {
			if sse != nil && sse.Started() {
				return gate.failInBand(em, rerr)
			}
			return rerr
		}
		ch.paidElsewhere()
		if xe := ch.failedOnChain.Load(); xe != nil && (sse == nil || !sse.Started()) {
			return refuseFailedOnChain(ch.offer, xe.Reason) // nothing was written: the answer is withheld
		}
		if err != nil || em.Denied() != nil {
			c.Response().Header().Set("X-Should-Retry", "false") // paid: a retry must reuse this payment
			receiptHeader(c.Response().Header(), ch)
		}
	}
	if err == nil || em.Started() {
		s.attribute(c, ch) // a supplier answered: what the call settles is its revenue
	}
	c.Set(usageKey, m.used(bodyLen))
	if rt.perToken != nil && ch != nil && ch.outcome == reserved && ch.metered() {
		ch.amount = rt.perToken.charge(m.used(bodyLen))
	}
	denied := em.Denied() // the model only called tools the client may not get
	d := delivery{produced: em.Started() && denied == nil, failed: err != nil, stream: req.Stream, clientGone: ctx.Err() != nil,
		committed: committed()}
	if ch != nil {
		s.charge(c, ch, d)
	}
	stopKeepAlive()
	// A keep-alive may have sent the stream's headers before any event:
	// from then on every ending is an event, not an HTTP error.
	started := em.Started() || (sse != nil && sse.Started())
	if cerr := ch.chainRefusal(); cerr != nil && started && d.stream {
		em.Fail(cerr, receiptField(ch)) // the transfer failed on chain mid-stream: no further content
		return sse.Done()
	}
	switch {
	case d.clientGone && d.produced:
		if err == nil && denied == nil && ch != nil && !ch.settleFailed() {
			// Owed whole (a resold answer): kept for the client's retry.
			em.Complete(receiptField(ch))
			keepAnswer(ctx, ch, rec, em.Response(), em.Echo())
		}
		return nil // nobody to tell; a stream's charge is settled above
	case err != nil && (!started || !d.stream):
		return errUpstream(err)
	case denied != nil && (!started || !d.stream):
		return denied
	case err != nil:
		m.failed(bodyLen)
		em.Fail(errUpstream(err), receiptField(ch)) // the upstream broke mid-stream
		return sse.Done()
	case denied != nil:
		em.Fail(denied, nil) // the stream's headers went out with a keep-alive
		return sse.Done()
	case ch != nil && ch.unpaid && !d.stream:
		return refuseUnpaidRun(ch) // the answer is withheld, the authorization spent
	case ch != nil && ch.settleFailed() && !d.stream:
		return refuseUnsettled(ch) // the answer is withheld, the authorization released
	case ch != nil && ch.settleFailed():
		em.Fail(errSettleFailedAfterAnswer(ch.receipt.ErrorReason), receiptField(ch))
		return sse.Done()
	}
	em.Complete(receiptField(ch))
	if sse != nil {
		if ch != nil {
			keepAnswer(ctx, ch, rec, nil, nil)
		}
		return sse.Done()
	}
	object := em.Response()
	if ch != nil {
		keepAnswer(ctx, ch, nil, object, em.Echo())
		receiptHeader(c.Response().Header(), ch)
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, object)
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

// charge decides a charge's outcome from what happened to the answer: the
// one place a call is charged. A charge settled before the model ran
// already has its outcome.
func (s *Server) charge(c echo.Context, ch *charge, d delivery) {
	ctx := c.Request().Context()
	switch {
	case ch.outcome != reserved:
	case due(d) || ch.pay.Replay():
		s.pay.settle(ctx, ch, d.stream)
	default:
		s.pay.finish(ctx, ch, released)
	}
}

// receiptField is the in-band receipt of a charge: the "x402" field of the
// final response object.
func receiptField(ch *charge) map[string]json.RawMessage {
	if ch == nil || ch.receipt == nil {
		return nil
	}
	b, _ := json.Marshal(ch.receipt)
	return map[string]json.RawMessage{"x402": b}
}

// readBody reads at most limit bytes; a larger body is a 413.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, errTooLarge(limit)
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errTooLarge(limit)
		}
		return nil, errUnreadableBody(err)
	}
	return body, nil
}

// resourceURL is the absolute URL of this call for the x402 offer.
func (s *Server) resourceURL(c echo.Context) string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL + c.Request().URL.Path
	}
	return c.Scheme() + "://" + c.Request().Host + c.Request().URL.Path
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// freeCaller is who a free call's end user is for the provider: the
// address of the connection's peer (not a forwarded-for header, which the
// client writes), so that a client cannot pick its identifier.
func freeCaller(c echo.Context) string {
	host, _, err := net.SplitHostPort(c.Request().RemoteAddr)
	if err != nil || host == "" {
		return ""
	}
	return "ip:" + host
}
