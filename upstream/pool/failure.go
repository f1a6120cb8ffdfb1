package pool

import (
	"context"
	"errors"
	"net/http"

	"github.com/farebox/farebox/responses"
)

// Kind is what became of one attempt, as metrics and logs name it.
type Kind string

// The kinds of outcome.
const (
	KindOK          Kind = "ok"
	KindClient      Kind = "client_error" // the request itself was refused: any supplier would refuse it
	KindRateLimited Kind = "rate_limited"
	KindTimeout     Kind = "timeout"
	KindPayment     Kind = "payment" // an x402 seller this server could not or would not pay
	KindUpstream    Kind = "upstream_error"
	KindBroken      Kind = "broken" // failed after output began: no failover
	KindAbandoned   Kind = "abandoned"
	// KindTooLarge: a rate limit the request's own size exceeds ("Request
	// too large", more tokens per minute than the limit): another supplier
	// may take it, but it is no failure of this one.
	KindTooLarge Kind = "too_large"
	// KindPaidFailure: a supplier that was paid (an x402 seller) and did
	// not answer: it opens its circuit at once and the call ends there.
	KindPaidFailure Kind = "paid_failure"
)

// Retried reports whether a failure of this kind moves the call to the
// next supplier (when nothing was sent yet).
func (k Kind) Retried() bool {
	switch k {
	case KindRateLimited, KindTimeout, KindPayment, KindUpstream, KindTooLarge:
		return true
	}
	return false
}

// SuppliersFault reports whether an outcome of this kind is a failure of
// the supplier's doing: it counts against the supplier's circuit (and its
// health), unlike a success, the client's own error or a client that left.
func (k Kind) SuppliersFault() bool {
	return k != KindOK && k != KindClient && k != KindAbandoned && k != KindTooLarge
}

// Classify names the outcome of a supplier's Respond. Everything that is
// the supplier's doing (unreachable, 5xx, 429, a timeout, a payment this
// server could not make to it) is a supplier failure; a 4xx about the
// request is the client's; a call whose client left is neither.
func Classify(ctx context.Context, err error) Kind {
	if err == nil {
		return KindOK
	}
	if ctx.Err() != nil || errors.Is(err, context.Canceled) {
		return KindAbandoned
	}
	var e *responses.Error
	if !errors.As(err, &e) {
		return KindUpstream
	}
	switch {
	case tooLarge(e):
		return KindTooLarge
	case e.Code == "upstream_rate_limited" || e.Code == "rate_limit_exceeded" || e.Status == http.StatusTooManyRequests:
		return KindRateLimited
	case e.Status == http.StatusGatewayTimeout || e.Code == "upstream_timeout":
		return KindTimeout
	case isPaymentCode(e.Code) || e.Status == http.StatusPaymentRequired:
		return KindPayment
	case e.Status >= 500:
		return KindUpstream
	}
	return KindClient
}

// isPaymentCode: the codes of an x402 seller this server did not pay
// (upstream/resell's and upstreamhttp's), named here to keep the pool
// free of either package.
func isPaymentCode(code string) bool {
	switch code {
	case "upstream_payment_required", "upstream_price_too_high", "upstream_spend_limit_reached",
		"reseller_wallet_low", "upstream_offer_unacceptable", "upstream_deposit_too_high",
		"upstream_withdraw_delay_too_long", "upstream_payment_refused":
		return true
	}
	return false
}
