package gateway

import (
	"net/http"
	"sync"
	"time"

	"github.com/farebox/farebox/charge"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/labstack/echo/v4"
)

// A wire is one client API farebox speaks: its name (for the logs, the
// metrics and the books), its decoder into the canonical request and its
// output (the canonical events and object encoded back into the wire).
// Every wire's handler is sellWire with its own wire: the paid call
// (package charge) is the same for all.
type wire struct {
	name string
	// decode turns the body into the canonical request; a refusal is a
	// *responses.Error the wire's error writer encodes.
	decode func(body []byte, hosted responses.HostedPolicy) (*responses.Request, error)
	// output is the call's charge.Output, made once the request is known.
	output func(c echo.Context, req *responses.Request) charge.Output
	// refunds: the wire's route also takes refund requests (Responses).
	refunds bool
}

const (
	wireResponses = "responses"
	wireChat      = "chat"
	wireMessages  = "messages"
)

// wireKey holds the name of the wire a request came on, so that its
// errors are written in that wire's shape.
const wireKey = "farebox.wire"

// sellWire is the one handler of every paid route: admit, read the body
// (size-limited), decode it in the wire's terms (a malformed or
// unsupported request is refused before anything is paid), find the
// route, apply its limits, and sell the call into the wire's output.
func (s *Server) sellWire(c echo.Context, w *wire) error {
	c.Set(wireKey, w.name)
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
	h := c.Request().Header
	if w.refunds && s.pay.seller.RefundRequested(h.Get(x402.HeaderPaymentSignature)) {
		// A refund pays for nothing: its body is not a call (any is taken).
		if o := s.refundOffer(s.resourceURL(c)); o != nil {
			return s.refund(c, o)
		}
	}
	req, err := w.decode(body, s.hosted)
	if err != nil {
		return err
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
	call := &charge.Call{Product: rt.product, Request: req, Body: body, Resource: s.resourceURL(c),
		Payment: charge.Payment{V2: h.Get(x402.HeaderPaymentSignature), V1: h.Get(x402.HeaderXPayment)},
		Caller:  freeCaller(c), EndUser: rt.limits.endUser}
	sale, err := s.pay.seller.Sell(paymentContext(c.Request().Context(), call.Payment), call, w.output(c, req))
	c.Set(chargeKey, sale)
	if sale.Supplier != "" {
		c.Set(supplierKey, sale.Supplier)
	}
	return err
}

// wireOf is the wire a request came on (Responses unless a wire's
// handler said otherwise).
func wireOf(c echo.Context) string {
	if w, ok := c.Get(wireKey).(string); ok {
		return w
	}
	return wireResponses
}

// encoder is a wire's stream encoder: a responses.Sink that knows whether
// it wrote anything.
type encoder interface {
	responses.Sink
	Started() bool
}

// wireStream makes a wire's encoder a charge.Stream: the keep-alive (the
// wire's own: an SSE comment, Anthropic's ping) goes out only while no
// event did for a whole period, and the wire's end (chat's [DONE]) once.
type wireStream struct {
	enc  encoder
	ping func() error // the wire's keep-alive frame
	end  func() error // the wire's last frame; nil: the last event ends it

	mu      sync.Mutex
	last    time.Time
	every   time.Duration
	timer   *time.Timer
	onWrite func()
	stopped bool
}

func (w *wireStream) Event(typ string, data []byte) error {
	w.mu.Lock()
	w.last = time.Now()
	w.mu.Unlock()
	return w.enc.Event(typ, data)
}

func (w *wireStream) Started() bool { return w.enc.Started() }

func (w *wireStream) KeepAlive(every time.Duration, onWrite func()) (stop func()) {
	if every <= 0 {
		return func() {}
	}
	w.mu.Lock()
	w.every, w.last, w.onWrite = every, time.Now(), onWrite
	w.timer = time.AfterFunc(every, w.keepAlive)
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.stopped = true
		w.timer.Stop()
	}
}

func (w *wireStream) keepAlive() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	if wait := w.every - time.Since(w.last); wait > 0 {
		w.timer.Reset(wait) // an event went out meanwhile
		return
	}
	if err := w.ping(); err != nil {
		w.stopped = true // the client is gone
		return
	}
	w.last = time.Now()
	if w.onWrite != nil {
		w.onWrite()
	}
	w.timer.Reset(w.every)
}

func (w *wireStream) Done() error {
	w.mu.Lock()
	w.stopped = true
	if w.timer != nil {
		w.timer.Stop()
	}
	w.mu.Unlock()
	if w.end == nil {
		return nil
	}
	return w.end()
}

// objectOutput is the part of every wire's output that is the same: the
// headers, and the object encoded by the wire's encode, sent with 200.
type objectOutput struct {
	c      echo.Context
	encode func(response []byte) ([]byte, error)
}

func (o objectOutput) Header() http.Header { return o.c.Response().Header() }

func (o objectOutput) Object(response []byte) error {
	b, err := o.encode(response)
	if err != nil {
		return err
	}
	return o.c.Blob(http.StatusOK, echo.MIMEApplicationJSON, b)
}

// paidRoute reports a route that sells a call on some wire (the books
// count each).
func paidRoute(path string) bool {
	switch path {
	case "/v1/responses", "/v1/chat/completions", "/v1/messages":
		return true
	}
	return false
}

// conversationRoute reports a route whose body is a conversation, read
// under body_limit: the paid routes and their token counts.
func conversationRoute(path string) bool {
	return paidRoute(path) || path == "/v1/responses/input_tokens" || path == "/v1/messages/count_tokens"
}
