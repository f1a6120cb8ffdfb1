package payer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Call is one call of a caller that retries it by itself (a reseller
// asking the same seller again after a paid 5xx or a reset connection):
// the requests sent under it (see WithCall) share one payment. The first
// signs as any request does; every later one is a retry, which presents
// the payment the call's earlier request left with an unknown outcome and
// never signs another, whatever the seller answers: a 402 to it is
// returned as the seller's refusal. A call's payment is its own: a request
// that is not under the same Call, however identical, never presents it.
type Call struct {
	mu sync.Mutex
	p  *purchase // the payment the call signed, once it did
}

// NewCall returns a call that has paid nothing yet.
func NewCall() *Call { return &Call{} }

// Paid reports whether the call signed a payment: from then on its
// requests present that payment or fail.
func (c *Call) Paid() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.p != nil
}

func (c *Call) purchase() *purchase {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.p
}

func (c *Call) set(p *purchase) {
	c.mu.Lock()
	c.p = p
	c.mu.Unlock()
}

type callKey struct{}

// WithCall returns a context whose requests through a Transport belong to
// call c.
func WithCall(ctx context.Context, c *Call) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

func callFrom(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// ErrNotPresentable is returned (wrapped) by a retry under a Call whose
// payment can no longer be presented: the earlier request's purchase was
// answered, given up, or is being presented by another request of the
// call. Nothing is signed for it.
var ErrNotPresentable = errors.New("payer: this call's payment cannot be presented again; not signing another")

// recallCall takes (marks busy) the payment of call c for a retry of the
// request keyed k, as recall does for a remembered one.
func (t *Transport) recallCall(ctx context.Context, c *Call, k purchaseKey) (*purchase, error) {
	p := c.purchase()
	t.mu.Lock()
	ok := p.key == k && !p.busy && slices.Contains(t.pending[k], p)
	if ok {
		p.busy = true
	}
	t.mu.Unlock()
	if !ok {
		if p.key != k {
			return nil, fmt.Errorf("%w (a retry must send the same request)", ErrNotPresentable)
		}
		return nil, ErrNotPresentable
	}
	return t.usable(ctx, p)
}

// recallFor is what a request presents first: under a call that paid, its
// payment (never nothing: a retry signs nothing); under a call that did
// not, nothing (its first request signs its own); else a remembered
// purchase of an identical request, if any.
func (t *Transport) recallFor(ctx context.Context, c *Call, retry bool, k purchaseKey) (*purchase, error) {
	switch {
	case retry:
		p, err := t.recallCall(ctx, c, k)
		if err == nil && p == nil {
			err = fmt.Errorf("%w (it expired unused)", ErrNotPresentable)
		}
		return p, err
	case c != nil:
		return nil, nil
	}
	return t.recall(ctx, k)
}
