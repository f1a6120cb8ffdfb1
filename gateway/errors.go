package gateway

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/farebox/farebox/charge"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/wire/messages"
	"github.com/labstack/echo/v4"
)

// writeError is the one place an error becomes an HTTP response: a
// refusal becomes a 402 offer, anything else the OpenAI error object of
// its client-safe form. Internal causes are logged by the request logger,
// never sent.
func (s *Server) writeError(c echo.Context, err error) error {
	var r *charge.Refusal
	if errors.As(err, &r) {
		return s.writeRefusal(c, r)
	}
	e := toError(err)
	s.errorHeaders(c, e)
	setCause(c, e)
	if wireOf(c) == wireMessages {
		status, body := messages.ErrorBody(e)
		return c.Blob(status, echo.MIMEApplicationJSON, body)
	}
	return c.Blob(e.Status, echo.MIMEApplicationJSON, errorBody(e))
}

// errorHeaders are the headers of an error answer: when to retry, and
// not to retry a refusal (402, 400) at all.
func (s *Server) errorHeaders(c echo.Context, e *responses.Error) {
	h := c.Response().Header()
	if e.RetryAfter > 0 {
		secs := int(e.RetryAfter.Seconds())
		if secs < 1 {
			secs = 1
		}
		h.Set("Retry-After", strconv.Itoa(secs))
		h.Set("Retry-After-Ms", strconv.FormatInt(e.RetryAfter.Milliseconds(), 10))
	}
	if e.Status == http.StatusPaymentRequired || e.Status == http.StatusBadRequest {
		h.Set("X-Should-Retry", "false")
	}
}

// writeRefusal answers a payment refusal as a 402 offer: the x402
// headers (PAYMENT-REQUIRED, a failed receipt), the v1 body's accepts and
// the OpenAI error object, all at once, so every kind of client can pay
// again.
func (s *Server) writeRefusal(c echo.Context, r *charge.Refusal) error {
	r.SetHeaders(c.Response().Header())
	if r.Err.Code != charge.CodePaymentRequired {
		s.pay.counts.refused.Add(1)
		s.metrics.payment("refused", r.Err.Code)
	} else {
		s.metrics.payment("offered", "")
	}
	v1 := r.V1Accepts()
	b := make([]byte, 0, 512+len(v1))
	if wireOf(c) == wireMessages {
		// Anthropic's error shape (its SDKs raise an APIError with the
		// status), beside x402's v1 body.
		_, eb := messages.ErrorBody(r.Err)
		b = append(b, eb[:len(eb)-1]...)
	} else {
		b = append(b, `{"error":`...)
		b = appendErrorObject(b, r.Err)
	}
	b = append(b, `,"x402Version":1,"accepts":`...)
	b = append(b, v1...)
	b = append(b, '}')
	setCause(c, r.Err)
	return c.Blob(r.Err.Status, echo.MIMEApplicationJSON, b)
}

// errorBody renders the OpenAI error object. Every error farebox sends has
// an object under "error" (a string there breaks openai-go's error type).
func errorBody(e *responses.Error) []byte {
	b := make([]byte, 0, 128+len(e.Message))
	b = append(b, `{"error":`...)
	b = appendErrorObject(b, e)
	return append(b, '}')
}

func appendErrorObject(b []byte, e *responses.Error) []byte {
	b = append(b, `{"message":`...)
	b = appendString(b, e.Message)
	b = append(b, `,"type":`...)
	b = appendString(b, e.Type)
	b = append(b, `,"param":`...)
	b = appendNullable(b, e.Param)
	b = append(b, `,"code":`...)
	b = appendNullable(b, e.Code)
	return append(b, '}')
}

func appendNullable(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return appendString(b, s)
}

func appendString(b []byte, s string) []byte { return responses.AppendJSONString(b, s) }

// toError turns any error into the client-safe error type.
func toError(err error) *responses.Error {
	var e *responses.Error
	if errors.As(err, &e) {
		return e
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return fromHTTPError(he)
	}
	return &responses.Error{Status: 500, Type: "server_error", Message: messageInternalError, Cause: err}
}

// httpErrorHandler is echo's error handler: every error a handler returns,
// and echo's own (404 route, 405 method), goes through writeError.
func (s *Server) httpErrorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		c.Set(unmatchedKey, true)
		switch he.Code {
		case http.StatusNotFound:
			err = errUnknownURL(c.Request().Method, c.Request().URL.Path)
		case http.StatusMethodNotAllowed:
			err = errMethodNotAllowed(c.Request().Method, c.Request().URL.Path)
		}
	}
	_ = s.writeError(c, err)
}

const (
	causeKey     = "farebox.cause"
	unmatchedKey = "farebox.unmatched" // no route took the request
)

func setCause(c echo.Context, e *responses.Error) {
	c.Set(codeKey, e.Code)
	if e.Cause != nil {
		c.Set(causeKey, e.Cause)
	} else if e.Status >= 500 {
		c.Set(causeKey, errors.New(e.Message))
	}
}
