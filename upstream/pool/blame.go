package pool

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/farebox/farebox/responses"
)

// A client must not be able to open a supplier's circuit: that would have
// the next payers refused (or charged) for an attack one of them made.
// So what counts against a supplier is its own fault only: a rate limit
// the request's own size exceeds is the request's, and one payment's
// repeated failures at a supplier count once until it answers again.

// tooLarge reports a rate limit answered for the request's own size:
// OpenAI's "Request too large for ... on tokens per min (TPM): Limit N,
// Requested M" (M over N), or any 429 saying "request too large".
func tooLarge(e *responses.Error) bool {
	if e.Code != "rate_limit_exceeded" && e.Code != "upstream_rate_limited" && e.Status != 429 {
		return false
	}
	msg := strings.ToLower(e.Message)
	if e.Cause != nil {
		msg += " " + strings.ToLower(e.Cause.Error())
	}
	if strings.Contains(msg, "request too large") || strings.Contains(msg, "request_too_large") {
		return true
	}
	m := limitRequested.FindStringSubmatch(msg)
	if m == nil {
		return false
	}
	limit, err1 := strconv.ParseInt(m[1], 10, 64)
	asked, err2 := strconv.ParseInt(m[2], 10, 64)
	return err1 == nil && err2 == nil && asked > limit
}

// limitRequested reads "limit N, ... requested M" of a tokens-per-minute
// rate limit message.
var limitRequested = regexp.MustCompile(`limit:? ?(\d+)[^0-9]*?(?:used:? ?\d+[^0-9]*?)?requested:? ?(\d+)`)

// maxBlamed bounds the payments remembered per supplier: past it the
// memory is dropped whole (a failure then counts again, as before).
const maxBlamed = 4096

type paymentKey struct{}

// WithPayment returns a context for a call paid with the payment named id
// (its header, or a hash of it): a payment the client sends again after
// its call failed (a released payment may be spent again) runs the call
// again, but its failures count once per supplier.
func WithPayment(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, paymentKey{}, id)
}

// firstFrom reports whether a supplier failure of key counts against its
// circuit: not when the call's payment already failed there since the
// supplier last answered, so that replaying one payment cannot open a
// circuit. A call without a payment (a free one) always counts.
func (p *Pool) firstFrom(ctx context.Context, key string) bool {
	id, _ := ctx.Value(paymentKey{}).(string)
	if id == "" {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.blamed == nil {
		p.blamed = map[string]map[string]struct{}{}
	}
	at := p.blamed[key]
	if at == nil || len(at) >= maxBlamed {
		at = map[string]struct{}{}
		p.blamed[key] = at
	}
	if _, seen := at[id]; seen {
		return false
	}
	at[id] = struct{}{}
	return true
}

// forgive forgets the payments that failed at key: it answered.
func (p *Pool) forgive(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.blamed, key)
}
