package gateway

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/farebox/farebox/responses"
	"github.com/labstack/echo/v4"
)

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

// writeError is the one place errors become HTTP responses. Internal causes
// are logged by the request logger, never sent.
func writeError(c echo.Context, e *responses.Error) error {
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
	setCause(c, e)
	return c.Blob(e.Status, echo.MIMEApplicationJSON, errorBody(e))
}

// toError turns any error into the client-safe error type.
func toError(err error) *responses.Error {
	var e *responses.Error
	if errors.As(err, &e) {
		return e
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		msg := http.StatusText(he.Code)
		if s, ok := he.Message.(string); ok {
			msg = s
		}
		typ := "invalid_request_error"
		if he.Code >= 500 {
			typ = "server_error"
		}
		return &responses.Error{Status: he.Code, Type: typ, Message: msg, Cause: err}
	}
	return &responses.Error{Status: 500, Type: "server_error", Message: "Internal error.", Cause: err}
}

// httpErrorHandler answers errors that escape handlers and echo's own
// (404 route, 405 method) in the OpenAI shape.
func httpErrorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	e := toError(err)
	if e.Status == http.StatusNotFound && e.Code == "" {
		e = &responses.Error{Status: 404, Type: "invalid_request_error", Message: "Unknown request URL: " + c.Request().Method + " " + c.Request().URL.Path + ".", Code: "unknown_url"}
	}
	_ = writeError(c, e)
}

const causeKey = "farebox.cause"

func setCause(c echo.Context, e *responses.Error) {
	if e.Cause != nil {
		c.Set(causeKey, e.Cause)
	} else if e.Status >= 500 {
		c.Set(causeKey, errors.New(e.Message))
	}
}
