package gateway

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/farebox/farebox/x402"
	"github.com/labstack/echo/v4"
)

// This file is the catalogue of every error the gateway itself answers
// with (request parsing has its own, worded as OpenAI words them, in
// responses): codes and client-safe messages in one place. Payment codes
// are the x402 reasons, reused from package x402.

// Codes farebox adds to the x402 reasons and OpenAI's own.
const (
	codePaymentRequired   = "payment_required"
	codeUnknownURL        = "unknown_url"
	codeStateless         = "not_found" // a route that needs stored responses
	codeModelNotFound     = "model_not_found"
	codeRequestTooLarge   = "request_too_large"
	codeServerError       = "server_error" // the spec's code for an upstream failure
	codeNotReady          = "not_ready"
	codePaymentInProgress = "payment_in_progress"
	codeIdempotency       = "idempotency_conflict"
	codeBadPaymentID      = "invalid_payment_identifier"
	codePaymentsDown      = "payments_unavailable"
	codeOverloaded        = "server_overloaded"
	codeMethodNotAllowed  = "method_not_allowed"
	codeUnsupportedMedia  = "unsupported_media_type"
	codeHeadersTooLarge   = "request_headers_too_large"
	codeBodyTimeout       = "request_body_timeout"
	codeUnauthorized      = "invalid_api_key"
	codeBadHTTP           = "bad_http_request"
	typeInvalidRequest    = "invalid_request_error"
	typeServerError       = "server_error"
	typePaymentError      = "payment_error"
	messageInternalError  = "Internal error."
	messageSettleFailed   = "Payment could not be settled: "
	messageSettleFailedAt = "The answer was produced but the payment could not be settled: "
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

func errMetricsUnauthorized() *responses.Error {
	return &responses.Error{Status: http.StatusUnauthorized, Type: typeInvalidRequest, Code: codeUnauthorized,
		Message: "/metrics needs Authorization: Bearer <token>."}
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

// errPaymentsUnavailable: the settlement journal or the chain cannot be
// read, so the call is not served unpaid.
func errPaymentsUnavailable(cause error) *responses.Error {
	return &responses.Error{Status: http.StatusServiceUnavailable, Type: typeServerError, Code: codePaymentsDown,
		Message: "Payments are temporarily unavailable.", RetryAfter: time.Second, Cause: cause}
}

// errPaymentInProgress: another request is running with this
// authorization; once it is answered, the same request with the same
// authorization gets the same answer and receipt.
func errPaymentInProgress() *responses.Error {
	return &responses.Error{Status: http.StatusConflict, Type: typeInvalidRequest, Code: codePaymentInProgress,
		Message: "A request paid with this authorization is still in progress. Retry this request once it is answered: the same authorization and body are served again without a second charge."}
}

func errIdempotencyConflict() *responses.Error {
	return &responses.Error{Status: http.StatusConflict, Type: typeInvalidRequest, Code: codeIdempotency,
		Message: "This payment identifier was already used with another payment. Use a new identifier for a new purchase."}
}

func errBadPaymentID() *responses.Error {
	return &responses.Error{Status: http.StatusBadRequest, Type: typeInvalidRequest, Code: codeBadPaymentID, Param: "header:PAYMENT-SIGNATURE",
		Message: "The payment-identifier id must be 16 to 128 characters of letters, digits, '-' and '_'."}
}

// errUpstream is the client's view of a model failure: the spec's
// server_error, with the model's own reason cleaned of secrets and
// addresses.
func errUpstream(err error) *responses.Error {
	var e *responses.Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &responses.Error{Status: http.StatusGatewayTimeout, Type: typeServerError, Code: codeServerError,
			Message: "The upstream model did not answer in time.", Cause: err}
	}
	return upstreamhttp.Broken(err)
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

// errMalformedPayment is a payment header that could not be decoded: a
// 400, since no offer can make it valid.
func errMalformedPayment(xe *x402.Error, version int) *responses.Error {
	return &responses.Error{Status: http.StatusBadRequest, Type: typeInvalidRequest, Code: xe.Reason,
		Param: headerParam(version), Message: "Malformed payment header: " + xe.Message}
}

// refuse builds a 402 refusal with the x402 reason as its code.
func refuse(o *offer, reason, msg string) *refusal {
	return &refusal{offer: o, err: &responses.Error{Status: http.StatusPaymentRequired, Type: typePaymentError, Code: reason, Message: msg}}
}

// cannotPayHint ends every 402 offer: what a person whose client cannot
// pay (Codex, opencode, LangChain, any app with only a base URL setting)
// does about it.
const cannotPayHint = " If your client cannot pay (an OpenAI SDK, Codex, opencode, LangChain): run `farebox proxy --upstream URL` with this server's URL and point the client at the proxy; see the README, \"Codex (and any app with a base URL setting): farebox proxy\"."

func refusePaymentRequired(o *offer, rt *route) *refusal {
	if tp := rt.perToken; tp != nil {
		return refuse(o, codePaymentRequired, "Payment required: "+rt.name+" costs "+x402.FormatUSDC(tp.input)+" USDC per million input tokens and "+
			x402.FormatUSDC(tp.output)+" per million output tokens, at most "+x402.FormatUSDC(rt.price)+
			" USDC per call. Pay with x402 (upto or batch-settlement charge the use; exact charges the ceiling): send a PAYMENT-SIGNATURE header for one of the offers in PAYMENT-REQUIRED."+cannotPayHint)
	}
	return refuse(o, codePaymentRequired, "Payment required: "+rt.name+" costs "+x402.FormatUSDC(rt.price)+
		" USDC per call. Pay with x402: send a PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1) header for one of the offers in PAYMENT-REQUIRED / accepts."+cannotPayHint)
}

func refuseNonceUsed(o *offer) *refusal {
	return refuse(o, x402.ReasonNonceAlreadyUsed,
		"Payment refused: this authorization was already used (or is in use by another request). Sign a new one.")
}

// refuseUnsettled withholds an answer whose payment failed to settle: the
// client gets the failed receipt and may pay again.
func refuseUnsettled(ch *charge) *refusal {
	r := refuse(ch.offer, ch.receipt.ErrorReason, messageSettleFailed+ch.receipt.ErrorReason)
	r.charge = ch
	return r
}

// refuseUnpaidRun withholds the answer of a model run whose transfer was
// refused for the payer's reasons once the model had started: the model
// was stopped, the authorization is spent and the payer in debt.
func refuseUnpaidRun(ch *charge) *refusal {
	r := refuse(ch.offer, ch.receipt.ErrorReason, messageSettleFailed+ch.receipt.ErrorReason+
		". The model had started for this payment and was stopped: the authorization is spent, and this payer is refused until it settles what it owes with the operator.")
	r.charge = ch
	return r
}

// refuseFailedOnChain withholds the answer of a model run whose transfer
// was broadcast and then failed on chain before anything was written.
func refuseFailedOnChain(o *offer, reason string) *refusal {
	return refuse(o, reason, "Payment failed on chain: "+reason+
		". The model was stopped, and this payer is refused until it settles what it owes with the operator.")
}

// errSettleFailedAfterAnswer ends a stream whose answer was delivered but
// whose payment did not settle.
func errSettleFailedAfterAnswer(reason string) *responses.Error {
	return &responses.Error{Status: http.StatusPaymentRequired, Type: typePaymentError, Code: reason,
		Message: messageSettleFailedAt + reason}
}
