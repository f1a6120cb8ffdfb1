package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// apiError is an answer of the proxy's own: the HTTP status and what the
// OpenAI error object carries (Anthropic's keeps the message and a type
// of its own for the status).
type apiError struct {
	status             int
	typ, code, message string
}

// errNotPaid carries a refusal to pay from ModifyResponse to ErrorHandler.
type errNotPaid struct{ e *apiError }

func (e *errNotPaid) Error() string { return e.e.message }

// refusalError is the error for a payment the proxy did not make: a 402
// with X-Should-Retry: false. The openai SDKs (Node, Python, Go) never
// retry a 402 and show its message. A 429 would be worse: the SDKs retry
// it with backoff, and Codex turns a 429 into "exceeded retry limit" (or,
// by its error type, a ChatGPT plan message), dropping ours. Codex
// retries a 402 like any unexpected status, its stream_max_retries times
// (5 by default), each refused again without paying, then prints
// "unexpected status 402 Payment Required:" and this message, which says
// what to change; a budget does not refill with time, so nothing waits.
func refusalError(why error) *apiError {
	var over *payer.OverBudgetError
	if errors.As(why, &over) {
		return &apiError{status: http.StatusPaymentRequired, typ: "insufficient_quota", code: "budget_exceeded",
			message: fmt.Sprintf("farebox proxy: signing %s USDC would bring what this proxy signed to %s USDC, over the budget of %s USDC; nothing was paid (restart farebox proxy with a larger --budget, or --budget none)",
				x402.FormatUSDC(over.Amount), x402.FormatUSDC(new(big.Int).Add(over.Signed, over.Amount)), x402.FormatUSDC(over.Limit))}
	}
	return &apiError{status: http.StatusPaymentRequired, typ: "invalid_request_error", code: "payment_refused",
		message: "farebox proxy did not pay: " + payer.SellerText(why.Error())}
}

// failed answers what never got an answer upstream, or that the proxy
// refused to pay, in the client's wire shape.
func (p *Proxy) failed(w http.ResponseWriter, r *http.Request, err error) {
	var np *errNotPaid
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &np):
		writeError(w, r, np.e)
	case errors.As(err, &tooBig):
		writeError(w, r, &apiError{status: http.StatusRequestEntityTooLarge, typ: "invalid_request_error", code: "request_too_large",
			message: fmt.Sprintf("farebox proxy: the request body is over %d bytes", tooBig.Limit)})
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		// The client left: nobody reads an answer.
	default:
		fmt.Fprintf(p.log, "farebox proxy: %s %s: %s\n", r.Method, payer.SellerText(r.URL.Path), payer.SellerText(err.Error()))
		writeError(w, r, &apiError{status: http.StatusBadGateway, typ: "server_error", code: "upstream_unreachable",
			message: fmt.Sprintf("farebox proxy: no answer from %s: %s", p.upstream.Redacted(), rootCause(err))})
	}
}

// rootCause is the innermost message of a chain of wrapped errors
// ("connection refused" rather than the whole dial chain).
func rootCause(err error) string {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err.Error()
		}
		err = u
	}
}

// writeError writes e in the wire shape of r's route. X-Should-Retry
// tells the openai and anthropic SDKs not to retry a 4xx the same request
// cannot fix.
func writeError(w http.ResponseWriter, r *http.Request, e *apiError) {
	var body any
	if wireOf(r.URL.Path) == anthropicWire {
		body = map[string]any{"type": "error", "error": map[string]any{"type": anthropicType(e.status), "message": e.message}}
	} else {
		nullable := func(s string) any {
			if s == "" {
				return nil
			}
			return s
		}
		body = map[string]any{"error": map[string]any{"message": e.message, "type": e.typ, "param": nil, "code": nullable(e.code)}}
	}
	b, _ := json.Marshal(body)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if e.status >= 400 && e.status < 500 {
		h.Set("X-Should-Retry", "false")
	}
	w.WriteHeader(e.status)
	_, _ = w.Write(b)
}

// anthropicType is the Anthropic error type its API gives status.
func anthropicType(status int) string {
	switch status {
	case http.StatusPaymentRequired:
		return "billing_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}
