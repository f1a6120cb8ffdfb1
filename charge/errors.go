package charge

import (
	"context"
	"errors"
	"math/big"
	"net/http"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/farebox/farebox/x402"
)

// The paid call's errors are typed (*responses.Error: status, OpenAI type,
// code, param and a client-safe message; *Refusal: a 402 with its offer)
// so that each wire adapter writes them in its own shape. Payment codes
// are the x402 reasons.

// Codes and types of the paid call's errors.
const (
	// CodePaymentRequired is the code of a 402 that asks for a payment
	// (none was sent): the only 402 that is not a refusal.
	CodePaymentRequired   = "payment_required"
	codeServerError       = "server_error" // the spec's code for an upstream failure
	codePaymentInProgress = "payment_in_progress"
	codeIdempotency       = "idempotency_conflict"
	codeBadPaymentID      = "invalid_payment_identifier"
	codePaymentsDown      = "payments_unavailable"
	typeInvalidRequest    = "invalid_request_error"
	typeServerError       = "server_error"
	typePaymentError      = "payment_error"
	messageSettleFailed   = "Payment could not be settled: "
	messageSettleFailedAt = "The answer was produced but the payment could not be settled: "
)

// Refusal is a payment refusal: the adapter answers it as a 402 offer
// (SetHeaders: the v2 PAYMENT-REQUIRED header and, after a settlement
// attempt, the failed receipt; V1Accepts: the v1 body's accepts) beside
// its wire's error object for Err, so that every kind of client can pay
// again.
type Refusal struct {
	Err   *responses.Error
	Offer *Offer
	// fare, when the refusal comes after a settlement attempt, carries the
	// receipt the client gets in the payment response header.
	fare *Fare
}

func (r *Refusal) Error() string { return r.Err.Error() }
func (r *Refusal) Unwrap() error { return r.Err }

// SetHeaders sets the refusal's x402 headers: the offer, the receipt of a
// failed settlement, and X-Should-Retry: false (a new payment is needed).
func (r *Refusal) SetHeaders(h http.Header) {
	if r.fare != nil && r.fare.receipt != nil {
		r.fare.setReceipt(h)
	}
	h.Set(x402.HeaderPaymentRequired, r.Offer.requiredHeader(r.Err.Code))
	h.Set("X-Should-Retry", "false")
}

// V1Accepts is the offer's v1 accepts, the JSON array of the v1 body's
// "accepts" field.
func (r *Refusal) V1Accepts() []byte { return r.Offer.v1 }

// refuse builds a 402 refusal with the x402 reason as its code.
func refuse(o *Offer, reason, msg string) *Refusal {
	return &Refusal{Offer: o, Err: &responses.Error{Status: http.StatusPaymentRequired, Type: typePaymentError, Code: reason, Message: msg}}
}

// cannotPayHint ends every 402 offer: what a person whose client cannot
// pay (Codex, opencode, LangChain, any app with only a base URL setting)
// does about it.
const cannotPayHint = " If your client cannot pay (an OpenAI SDK, Codex, opencode, LangChain): run `farebox proxy --upstream URL` with this server's URL and point the client at the proxy; see the README, \"Codex (and any app with a base URL setting): farebox proxy\"."

// oneUSDC is the per-payment cap x402's official clients apply by default
// (@x402/fetch's spendControls.maxAmountPerPayment, "$1").
var oneUSDC = big.NewInt(1_000_000)

// capHint is added to the 402 of a call over a dollar: without it the
// official client refuses to sign and its user sees no reason.
func capHint(price *big.Int) string {
	if price == nil || price.Cmp(oneUSDC) <= 0 {
		return ""
	}
	return " This call costs more than 1 USDC, the default per-payment cap of x402's official clients: raise it, e.g. with @x402/fetch `new x402Client({spendControls: {maxAmountPerPayment: \"$" +
		x402.FormatUSDC(price) + "\"}})` or `client.setSpendControls({maxAmountPerPayment: ...})`; with `farebox call`/`chat`/`proxy`, --max-price."
}

func refusePaymentRequired(o *Offer, p *Product) *Refusal {
	if tp := p.PerToken; tp != nil {
		in, out := tp.Rates()
		return refuse(o, CodePaymentRequired, "Payment required: "+p.Name+" costs "+x402.FormatUSDC(in)+" USDC per million input tokens and "+
			x402.FormatUSDC(out)+" per million output tokens, at most "+x402.FormatUSDC(p.Price)+
			" USDC per call. Pay with x402 (upto or batch-settlement charge the use; exact charges the ceiling): send a PAYMENT-SIGNATURE header for one of the offers in PAYMENT-REQUIRED."+capHint(p.Price)+cannotPayHint)
	}
	return refuse(o, CodePaymentRequired, "Payment required: "+p.Name+" costs "+x402.FormatUSDC(p.Price)+
		" USDC per call. Pay with x402: send a PAYMENT-SIGNATURE (v2) or X-PAYMENT (v1) header for one of the offers in PAYMENT-REQUIRED / accepts."+capHint(p.Price)+cannotPayHint)
}

// RefusePaymentRequired is the 402 of a request that sent no payment, for
// an operation of its own (a refund's probe): msg says what to send.
func RefusePaymentRequired(o *Offer, msg string) *Refusal {
	return refuse(o, CodePaymentRequired, msg)
}

func refuseNonceUsed(o *Offer) *Refusal {
	return refuse(o, x402.ReasonNonceAlreadyUsed,
		"Payment refused: this authorization was already used (or is in use by another request). Sign a new one.")
}

// refuseUnsettled withholds an answer whose payment failed to settle: the
// client gets the failed receipt and may pay again. A settlement that
// failed on farebox's side (the facilitator or the journal unreachable,
// x402.ReasonUnexpectedSettleError: the authorization was released) is
// a 503 with Retry-After instead: nothing is wrong with the payment, and
// the same request with the same payment is served once payments are back.
func refuseUnsettled(f *Fare) error {
	if f.settleReleased() {
		e := errPaymentsUnavailable(nil)
		e.Message = "Payments are temporarily unavailable: this payment could not be settled and was not charged. Retry the same request with the same payment."
		return e
	}
	r := refuse(f.offer, f.receipt.ErrorReason, messageSettleFailed+f.receipt.ErrorReason)
	r.fare = f
	return r
}

// refuseUnpaidRun withholds the answer of a model run whose transfer was
// refused for the payer's reasons once the model had started: the model
// was stopped, the authorization is spent and the payer in debt.
func refuseUnpaidRun(f *Fare) *Refusal {
	r := refuse(f.offer, f.receipt.ErrorReason, messageSettleFailed+f.receipt.ErrorReason+
		". The model had started for this payment and was stopped: the authorization is spent, and this payer is refused until it settles what it owes with the operator.")
	r.fare = f
	return r
}

// refuseFailedOnChain withholds the answer of a model run whose transfer
// was broadcast and then failed on chain before anything was written.
func refuseFailedOnChain(o *Offer, reason string) *Refusal {
	return refuse(o, reason, "Payment failed on chain: "+reason+
		". The model was stopped, and this payer is refused until it settles what it owes with the operator.")
}

// errSettleFailedAfterAnswer ends a stream whose answer was delivered but
// whose payment did not settle.
func errSettleFailedAfterAnswer(reason string) *responses.Error {
	return &responses.Error{Status: http.StatusPaymentRequired, Type: typePaymentError, Code: reason,
		Message: messageSettleFailedAt + reason}
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

// errMalformedPayment is a payment header that could not be decoded: a
// 400, since no offer can make it valid.
func errMalformedPayment(xe *x402.Error, version int) *responses.Error {
	return &responses.Error{Status: http.StatusBadRequest, Type: typeInvalidRequest, Code: xe.Reason,
		Param: headerParam(version), Message: "Malformed payment header: " + xe.Message}
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

func headerParam(version int) string {
	if version == 1 {
		return "header:X-PAYMENT"
	}
	return "header:PAYMENT-SIGNATURE"
}
