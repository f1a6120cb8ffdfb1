package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/farebox/farebox/responses"
	"github.com/labstack/echo/v4"
	"github.com/tidwall/gjson"
)

// handleResponses serves POST /v1/responses: parse and validate, price,
// take the payment, call the model, stream or accumulate, settle, receipt.
func (s *Server) handleResponses(c echo.Context) error {
	body, rerr := readBody(c.Request(), s.cfg.BodyLimit)
	if rerr != nil {
		return writeError(c, rerr)
	}
	req, perr := responses.Parse(body)
	if perr != nil {
		return writeError(c, perr)
	}
	c.Set(modelKey, req.Model)
	rt, ok := s.routes[req.Model]
	if !ok {
		return writeError(c, modelNotFound(req.Model))
	}
	if rt.free() {
		return s.serve(c, rt, req, nil)
	}
	ch, err := s.pay.authorize(c, rt, s.resourceURL(c))
	if ch == nil {
		return err // the 402/400 is written
	}
	if s.pay.before {
		r := s.pay.settle(c.Request().Context(), ch, false)
		receiptHeader(c.Response().Header(), ch)
		// Paid: the answer must not be retried into a second payment.
		c.Response().Header().Set("X-Should-Retry", "false")
		if !r.Success && !pending(r) {
			return s.pay.refuse(c, ch.offer, http.StatusPaymentRequired,
				r.ErrorReason, "Payment could not be settled: "+r.ErrorReason)
		}
	}
	return s.serve(c, rt, req, ch)
}

// serve runs the model through one emitter; the sink decides between SSE
// and one JSON object, so both answers are built by the same code.
func (s *Server) serve(c echo.Context, rt *route, req *responses.Request, ch *charge) error {
	ctx := c.Request().Context()
	var sink responses.Sink = responses.Discard{}
	var sse *responses.SSEWriter
	if req.Stream {
		sse = responses.NewSSEWriter(c.Response())
		sink = sse
	}
	em := responses.NewEmitter(req, sink, responses.EmitterOptions{Model: rt.name})
	err := rt.model.Respond(ctx, req, em)
	due := ch != nil && !s.pay.before

	// Nothing produced: nothing is charged; the client may retry with the
	// same authorization.
	if !em.Started() || (err != nil && !req.Stream && ctx.Err() == nil) {
		if due {
			s.pay.release(ctx, ch)
		}
		if err != nil {
			return writeError(c, upstreamError(err))
		}
		if denied := em.Denied(); denied != nil {
			return writeError(c, denied) // the model only called tools the client may not get
		}
		em.Complete(nil)
		return s.finish(c, em, sse)
	}
	clientGone := ctx.Err() != nil
	if err != nil && !clientGone {
		// The upstream broke mid-stream: the answer is not whole, so it is
		// not charged.
		if due {
			s.pay.release(ctx, ch)
		}
		em.Fail(upstreamError(err), nil)
		return s.finish(c, em, sse)
	}
	var extra map[string]json.RawMessage
	if due {
		r := s.pay.settle(ctx, ch, req.Stream || clientGone)
		if clientGone {
			return nil
		}
		if !req.Stream {
			receiptHeader(c.Response().Header(), ch)
			if !r.Success && !pending(r) {
				return s.pay.refuse(c, ch.offer, http.StatusPaymentRequired,
					r.ErrorReason, "Payment could not be settled: "+r.ErrorReason)
			}
		}
		extra = map[string]json.RawMessage{"x402": receiptJSON(r)}
		if !r.Success && !pending(r) {
			em.Fail(&responses.Error{Status: 402, Type: "payment_error", Code: r.ErrorReason,
				Message: "The answer was produced but the payment could not be settled: " + r.ErrorReason}, extra)
			return s.finish(c, em, sse)
		}
	} else if ch != nil {
		extra = map[string]json.RawMessage{"x402": receiptJSON(ch.receipt)}
	}
	if clientGone {
		return nil
	}
	em.Complete(extra)
	return s.finish(c, em, sse)
}

// finish writes the end of the answer: [DONE] after a stream, or the final
// object (a failed response without output becomes an HTTP error).
func (s *Server) finish(c echo.Context, em *responses.Emitter, sse *responses.SSEWriter) error {
	if sse != nil {
		return sse.Done()
	}
	body := em.Response()
	if em.Status() == "failed" {
		msg := gjson.GetBytes(body, "error.message").String()
		code := gjson.GetBytes(body, "error.code").String()
		return writeError(c, &responses.Error{Status: http.StatusBadGateway, Type: "server_error", Code: code, Message: msg})
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, body)
}

func receiptJSON(r any) json.RawMessage {
	b, _ := json.Marshal(r)
	return b
}

// upstreamError is the client's view of a model failure.
func upstreamError(err error) *responses.Error {
	var e *responses.Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &responses.Error{Status: http.StatusGatewayTimeout, Type: "server_error", Code: "upstream_timeout", Message: "The upstream model did not answer in time.", Cause: err}
	}
	return &responses.Error{Status: http.StatusBadGateway, Type: "server_error", Code: "upstream_error", Message: "The upstream model failed.", Cause: err}
}

// readBody reads at most limit bytes; a larger body is a 413.
func readBody(r *http.Request, limit int64) ([]byte, *responses.Error) {
	if r.ContentLength > limit {
		return nil, tooLarge(limit)
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, tooLarge(limit)
		}
		return nil, &responses.Error{Status: 400, Type: "invalid_request_error", Message: "Could not read the request body.", Cause: err}
	}
	return body, nil
}

func tooLarge(limit int64) *responses.Error {
	return &responses.Error{Status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error", Code: "request_too_large",
		Message: "The request body is larger than this server's limit of " + itoa(limit) + " bytes."}
}

// resourceURL is the absolute URL of this call for the x402 offer.
func (s *Server) resourceURL(c echo.Context) string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL + c.Request().URL.Path
	}
	return c.Scheme() + "://" + c.Request().Host + c.Request().URL.Path
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
