package upstreamhttp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// DefaultRetryAfter is what a client is told to wait after an upstream 429
// that named no delay of its own.
const DefaultRetryAfter = time.Second

// CodePaymentRequired is the code of an upstream's 402 answer: the
// upstream charges and was not (or could not be) paid.
const CodePaymentRequired = "upstream_payment_required"

// maxMessage bounds how much of an upstream's 400 message is passed on.
const maxMessage = 2000

// FromStatus maps an upstream HTTP error answer (status, headers, body) to
// the error the client sees:
//
//	400, 413, 422  -> 400 invalid_request_error with the upstream's message and code
//	401, 403       -> 502 server_error, never echoing the upstream's words (they may quote the key)
//	402            -> 502 upstream_payment_required (an x402 upstream that was not paid)
//	429            -> 503 rate_limit_exceeded with RetryAfter from Retry-After-Ms / Retry-After (default 1 s)
//	408, 504       -> 504 server_error
//	anything else  -> 502 server_error
//
// A 408 or 5xx that names a delay (Retry-After-Ms, Retry-After) carries it
// in RetryAfter.
//
// Codes are the spec's (server_error, rate_limit_exceeded) or the
// upstream's own for a 4xx; the upstream's message and code are kept in
// the message, cleaned of secrets and addresses (Clean).
func FromStatus(status int, h http.Header, body []byte) *responses.Error {
	cause := fmt.Errorf("upstream answered %d: %s", status, Truncate(strings.TrimSpace(string(body)), 500))
	msg := Clean(errorMessage(body))
	code := gjson.GetBytes(body, "error.code")
	switch {
	case status == 400 || status == 413 || status == 422:
		if msg == "" {
			msg = "The upstream model rejected the request."
		}
		e := &responses.Error{Status: 400, Type: "invalid_request_error", Message: msg, Cause: cause}
		if code.Type == gjson.String {
			e.Code = code.Str
		}
		return e
	case status == 401 || status == 403:
		return &responses.Error{Status: 502, Type: "server_error", Code: "server_error",
			Message: fmt.Sprintf("The upstream model refused farebox's credentials (HTTP %d).", status), Cause: cause}
	case status == 402:
		return &responses.Error{Status: 502, Type: "server_error", Code: CodePaymentRequired,
			Message: "The upstream model asked for a payment.", Cause: cause}
	case status == 429:
		ra := retryAfter(h, time.Now())
		return &responses.Error{Status: 503, Type: "server_error", Code: "rate_limit_exceeded",
			Message:    upstreamWords(fmt.Sprintf("The upstream model is rate limited; retry after %s", ra), msg, code.Str),
			RetryAfter: ra, Cause: cause}
	case status == 408 || status == 504:
		return &responses.Error{Status: 504, Type: "server_error", Code: "server_error",
			Message:    upstreamWords(fmt.Sprintf("The upstream model timed out (HTTP %d)", status), msg, code.Str),
			RetryAfter: namedRetryAfter(h), Cause: cause}
	default:
		return &responses.Error{Status: 502, Type: "server_error", Code: "server_error",
			Message:    upstreamWords(fmt.Sprintf("The upstream model failed (HTTP %d)", status), msg, code.Str),
			RetryAfter: namedRetryAfter(h), Cause: cause}
	}
}

// namedRetryAfter is the delay a server error names (Retry-After-Ms,
// Retry-After), 0 when it names none: a paid call retried at the same
// seller waits for it.
func namedRetryAfter(h http.Header) time.Duration {
	if h.Get("Retry-After-Ms") == "" && h.Get("Retry-After") == "" {
		return 0
	}
	return retryAfter(h, time.Now())
}

// Failed is an upstream that reported its own failure (an error event,
// response.failed, an error chunk) in its words: message and code are
// kept, cleaned, and the code the client sees is the spec's
// (rate_limit_exceeded when the upstream said so, else server_error).
func Failed(code, message string, cause error) *responses.Error {
	spec := "server_error"
	if code == "rate_limit_exceeded" {
		spec = code
	}
	return &responses.Error{Status: 502, Type: "server_error", Code: spec,
		Message: upstreamWords("The upstream model failed", Clean(message), Clean(code)), Cause: cause}
}

// upstreamWords is farebox's sentence followed by the upstream's message
// and code, when it gave them.
func upstreamWords(ours, msg, code string) string {
	if msg != "" {
		ours += ": " + msg
	}
	if code != "" {
		ours += " (upstream code: " + code + ")"
	}
	return ours + "."
}

// errorMessage extracts an error message from an upstream error body in the
// shapes servers use: {"error":{"message"}}, {"error":"..."} (Ollama),
// {"message"}, {"detail"} (FastAPI-based servers).
func errorMessage(body []byte) string {
	for _, path := range []string{"error.message", "error", "message", "detail"} {
		if r := gjson.GetBytes(body, path); r.Type == gjson.String && r.Str != "" {
			return r.Str
		}
	}
	return ""
}

// MaxRetryAfter caps the delay passed on from an upstream's 429: a larger
// (or overflowing) figure is more likely a broken header than a plan.
const MaxRetryAfter = time.Hour

// retryAfter reads Retry-After-Ms, then Retry-After (seconds or an HTTP
// date, counted from now); DefaultRetryAfter when neither is usable. The
// result lies between a millisecond and MaxRetryAfter.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return boundedRetryAfter(ms * float64(time.Millisecond))
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
			return boundedRetryAfter(s * float64(time.Second))
		}
		if t, err := http.ParseTime(v); err == nil {
			if d := t.Sub(now); d > 0 {
				return boundedRetryAfter(float64(d))
			}
		}
	}
	return DefaultRetryAfter
}

// boundedRetryAfter converts positive nanoseconds to a Duration clamped to
// [1ms, MaxRetryAfter], before the conversion can overflow (1e300, +Inf).
func boundedRetryAfter(ns float64) time.Duration {
	if ns >= float64(MaxRetryAfter) {
		return MaxRetryAfter
	}
	return max(time.Duration(ns), time.Millisecond)
}

// Timeout is the 504 a client sees when an upstream timer ran out.
func Timeout(cause error) *responses.Error {
	return &responses.Error{Status: 504, Type: "server_error", Code: "server_error",
		Message: "The upstream model timed out.", Cause: cause}
}

// Broken is the 502 for an upstream that could not be reached or whose
// stream broke or made no sense; the reason is kept, cleaned of secrets
// and addresses.
func Broken(cause error) *responses.Error {
	return &responses.Error{Status: 502, Type: "server_error", Code: "server_error",
		Message: upstreamWords("The upstream model failed", Clean(cause.Error()), ""), Cause: cause}
}

// Transport maps an error from sending the request or reading the stream,
// given the call's context: a timer's cause becomes 504, the client going
// away is returned wrapping context.Canceled (nobody is left to tell), and
// anything else is a 502.
func Transport(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		switch {
		case errors.Is(cause, ErrFirstByteTimeout), errors.Is(cause, ErrGapTimeout),
			errors.Is(cause, ErrTotalTimeout), errors.Is(cause, context.DeadlineExceeded):
			return Timeout(cause)
		case errors.Is(cause, context.Canceled):
			return fmt.Errorf("upstream call abandoned: %w", cause)
		}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return Timeout(err)
	}
	return Broken(err)
}

// Truncate cuts s to at most n bytes, at a rune boundary so that a valid
// UTF-8 message stays valid, marking the cut with "...".
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
