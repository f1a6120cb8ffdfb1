package responses

import (
	"fmt"
	"time"
)

// Error is the one error type farebox answers with: an HTTP status and the
// OpenAI error object. Message is safe to show a client; internal causes go
// to the log via Cause.
type Error struct {
	Status  int
	Type    string // invalid_request_error | server_error | ...
	Code    string // "" -> null
	Param   string // "" -> null
	Message string
	// RetryAfter, when set, is sent as Retry-After (e.g. an upstream 429).
	RetryAfter time.Duration
	// Cause is logged, never sent.
	Cause error
}

// Error is the log line: status, type, message and the internal cause,
// which the client never sees.
func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%d %s: %s (%v)", e.Status, e.Type, e.Message, e.Cause)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Type, e.Message)
}

// Unwrap exposes the cause to errors.Is and errors.As.
func (e *Error) Unwrap() error { return e.Cause }

// Invalid builds a 400 invalid_request_error pointing at param.
func Invalid(param, code, format string, args ...any) *Error {
	return &Error{Status: 400, Type: "invalid_request_error", Param: param, Code: code, Message: fmt.Sprintf(format, args...)}
}
