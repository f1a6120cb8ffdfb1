package gateway

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/labstack/echo/v4"
)

// This file is the catalogue of every error the gateway itself answers
// with (request parsing has its own, worded as OpenAI words them, in
// responses): codes and client-safe messages in one place. Payment codes
// are the x402 reasons, reused from package x402.

// Codes farebox adds to the x402 reasons and OpenAI's own.
const (
	codeUnknownURL       = "unknown_url"
	codeStateless        = "not_found" // a route that needs stored responses
	codeModelNotFound    = "model_not_found"
	codeRequestTooLarge  = "request_too_large"
	codeNotReady         = "not_ready"
	codeOverloaded       = "server_overloaded"
	codeMethodNotAllowed = "method_not_allowed"
	codeUnsupportedMedia = "unsupported_media_type"
	codeHeadersTooLarge  = "request_headers_too_large"
	codeBodyTimeout      = "request_body_timeout"
	codeUnauthorized     = "invalid_api_key"
	codeBadHTTP          = "bad_http_request"
	typeInvalidRequest   = "invalid_request_error"
	typeServerError      = "server_error"
	messageInternalError = "Internal error."
)

func errUnknownURL(method, path string) *responses.Error {
	return &responses.Error{Status: http.StatusNotFound, Type: typeInvalidRequest, Code: codeUnknownURL,
		Message: "Unknown request URL: " + method + " " + path + "."}
}

// errModelNotFound keeps OpenAI's wording (clients match on it) and adds
// what this server does serve, so a typo is fixed without a second request.
func errModelNotFound(name string, served []string) *responses.Error {
	msg := "The model '" + name + "' does not exist or you do not have access to it."
	if len(served) > 0 {
		list := served
		if len(list) > 10 {
			list = list[:10]
		}
		msg += " This server serves: " + strings.Join(list, ", ")
		if len(served) > len(list) {
			msg += ", ..."
		}
		msg += " (GET /v1/models lists them with their prices)."
	}
	return &responses.Error{Status: http.StatusNotFound, Type: typeInvalidRequest, Param: "model", Code: codeModelNotFound, Message: msg}
}

func errTooLarge(limit int64) *responses.Error {
	return &responses.Error{Status: http.StatusRequestEntityTooLarge, Type: typeInvalidRequest, Code: codeRequestTooLarge,
		Message: "The request body is larger than this server's limit of " + itoa(limit) + " bytes."}
}

func errUnreadableBody(cause error) *responses.Error {
	if errors.Is(cause, errBodiesFull) {
		e := errOverloaded("request body bytes in flight")
		e.Cause = cause
		return e
	}
	if errors.Is(cause, errSlowBody) {
		return &responses.Error{Status: http.StatusRequestTimeout, Type: typeInvalidRequest, Code: codeBodyTimeout,
			Message: "The request body arrived too slowly; send it at once.", Cause: cause}
	}
	return &responses.Error{Status: http.StatusBadRequest, Type: typeInvalidRequest, Message: "Could not read the request body.", Cause: cause}
}

// errOverloaded is a limit reached: the client may retry in a moment.
func errOverloaded(what string) *responses.Error {
	return &responses.Error{Status: http.StatusServiceUnavailable, Type: typeServerError, Code: codeOverloaded,
		Message: "The server is at its limit of " + what + "; retry shortly.", RetryAfter: time.Second}
}

func errMethodNotAllowed(method, path string) *responses.Error {
	return &responses.Error{Status: http.StatusMethodNotAllowed, Type: typeInvalidRequest, Code: codeMethodNotAllowed,
		Message: "Method " + method + " is not allowed on " + path + "."}
}

// errUnsupportedMedia refuses a body that is not JSON: text/plain and the
// form types are what a web page may POST without a CORS preflight.
func errUnsupportedMedia(ct string) *responses.Error {
	return &responses.Error{Status: http.StatusUnsupportedMediaType, Type: typeInvalidRequest, Code: codeUnsupportedMedia,
		Param: "header:Content-Type", Message: "Content-Type " + ct + " is not supported: send application/json."}
}

// errInputOverCeiling: a per-token model's input alone costs (nearly) its
// ceiling per call, so no answer fits in what one payment covers.
func errInputOverCeiling(ceiling string) *responses.Error {
	return &responses.Error{Status: http.StatusBadRequest, Type: typeInvalidRequest, Code: "context_length_exceeded", Param: "input",
		Message: "The input is too long for this model's ceiling of " + ceiling + " USDC per call: it leaves room for fewer than 16 output tokens. Shorten the input."}
}

func errMetricsUnauthorized(c echo.Context) *responses.Error {
	c.Response().Header().Set("WWW-Authenticate", `Bearer realm="farebox metrics"`)
	return &responses.Error{Status: http.StatusUnauthorized, Type: typeInvalidRequest, Code: codeUnauthorized,
		Message: "/metrics needs Authorization: Bearer <token> (the metrics token, else the admin token)."}
}

// errMetricsClosed: nobody opened /metrics on the main listener.
func errMetricsClosed() *responses.Error {
	return &responses.Error{Status: http.StatusForbidden, Type: typeInvalidRequest, Code: "metrics_closed",
		Message: "/metrics is closed on this address: set metrics.bearer_token_env, admin.token_env, metrics.addr " +
			"(a listener of its own) or metrics.public: true."}
}

// errFromNetHTTP is a refusal net/http writes by itself (431 for headers
// over the limit, 400 for a malformed request), in the OpenAI shape.
func errFromNetHTTP(status int, text string) *responses.Error {
	if status == http.StatusRequestHeaderFieldsTooLarge {
		return &responses.Error{Status: status, Type: typeInvalidRequest, Code: codeHeadersTooLarge,
			Message: "The request line and headers are larger than this server's limit (limits.max_header_bytes)."}
	}
	return &responses.Error{Status: status, Type: typeInvalidRequest, Code: codeBadHTTP, Message: "Malformed HTTP request: " + text}
}

func errNotReady(cause error) *responses.Error {
	return &responses.Error{Status: http.StatusServiceUnavailable, Type: typeServerError, Code: codeNotReady,
		Message: "Not ready: " + cause.Error(), Cause: cause}
}

// fromHTTPError is echo's own errors (405, 413, ...) in the OpenAI shape.
func fromHTTPError(he *echo.HTTPError) *responses.Error {
	msg := http.StatusText(he.Code)
	if s, ok := he.Message.(string); ok {
		msg = s
	}
	typ := typeInvalidRequest
	if he.Code >= 500 {
		typ = typeServerError
	}
	return &responses.Error{Status: he.Code, Type: typ, Message: msg, Cause: he}
}
