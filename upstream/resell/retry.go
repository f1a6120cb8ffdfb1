package resell

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/farebox/farebox/x402/payer"
)

// How a paid call that failed is sent again to the same seller with the
// same payment: a seller that took the payment and failed (a 5xx, a reset
// connection) is the only supplier that can still answer it without the
// wallet paying twice; a farebox seller answers such a retry from its
// stored answer or runs its model once more.
const (
	// PaidRetries bounds the retries of one paid call.
	PaidRetries = 2
	// paidRetryBackoff is the wait before the first retry, doubled for
	// the next; a longer Retry-After from the seller is honoured.
	paidRetryBackoff = 200 * time.Millisecond
	// maxPaidRetryWait is the longest wait a retry is worth: a seller
	// asking for more is not retried (the call ends with its answer).
	maxPaidRetryWait = 5 * time.Second
)

// sentOutput remembers whether any of an attempt's answer reached out:
// from then on a retry would repeat it.
type sentOutput struct {
	responses.Output
	sent bool
}

func (o *sentOutput) Text(d string) error    { o.sent = true; return o.Output.Text(d) }
func (o *sentOutput) Refusal(d string) error { o.sent = true; return o.Output.Refusal(d) }
func (o *sentOutput) StartCall(id, name string) error {
	o.sent = true
	return o.Output.StartCall(id, name)
}
func (o *sentOutput) Arguments(d string) error { o.sent = true; return o.Output.Arguments(d) }
func (o *sentOutput) StartCustomCall(id, name string) error {
	o.sent = true
	return o.Output.StartCustomCall(id, name)
}
func (o *sentOutput) StartReasoning() error { o.sent = true; return o.Output.StartReasoning() }
func (o *sentOutput) ReasoningSummary(i int, d string) error {
	o.sent = true
	return o.Output.ReasoningSummary(i, d)
}
func (o *sentOutput) ReasoningEncrypted(c string) error {
	o.sent = true
	return o.Output.ReasoningEncrypted(c)
}
func (o *sentOutput) ClientCall(wire, id string, fields []byte) error {
	o.sent = true
	return o.Output.ClientCall(wire, id, fields)
}
func (o *sentOutput) SetUsage(u responses.Usage) { o.sent = true; o.Output.SetUsage(u) }
func (o *sentOutput) Incomplete(r string)        { o.sent = true; o.Output.Incomplete(r) }

// respondPaying runs once, then, while the call was paid, nothing of the
// answer went out and the seller's failure may be passing (a 5xx, a 408,
// a reset connection), up to PaidRetries more times under the same
// payer.Call: each retry presents the same payment header and signs
// nothing. A 402 to a retry is the seller refusing the payment: the call
// ends there.
func (m *Model) respondPaying(ctx context.Context, call *payer.Call, once func(responses.Output) error, out responses.Output) error {
	o := &sentOutput{Output: out}
	err := once(o)
	for n := 0; n < PaidRetries; n++ {
		wait, ok := retryable(ctx, call, o, err, n)
		if !ok {
			return err
		}
		m.cfg.Log.Info("upstream retry with the same payment", "upstream", m.cfg.BaseURL, "retry", n+1, "wait", wait.String(), "err", err)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		again := once(o)
		if errors.Is(again, payer.ErrNotPresentable) || errors.Is(again, payer.ErrOutcomeUnknown) {
			// The payment cannot be presented again (answered, or expired)
			// and none is signed: the seller's failure stands.
			m.cfg.Log.Info("upstream retry not sent", "upstream", m.cfg.BaseURL, "err", again)
			return err
		}
		err = again
	}
	return err
}

// retryable reports whether a paid attempt that failed with err is sent
// again (the n+1th retry), and after how long.
func retryable(ctx context.Context, call *payer.Call, o *sentOutput, err error, n int) (time.Duration, bool) {
	if err == nil || o.sent || !call.Paid() || ctx.Err() != nil ||
		errors.Is(err, payer.ErrNotPresentable) || errors.Is(err, payer.ErrOutcomeUnknown) {
		return 0, false
	}
	var e *responses.Error
	if !errors.As(err, &e) || e.Code == upstreamhttp.CodePaymentRequired ||
		(e.Status < http.StatusInternalServerError && e.Status != http.StatusRequestTimeout) {
		return 0, false
	}
	wait := paidRetryBackoff << n
	if e.RetryAfter > wait {
		wait = e.RetryAfter
	}
	return wait, wait <= maxPaidRetryWait
}
