package payer

import (
	"context"
	"math/big"
	"net/http"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// WithPreemptivePayment turns paying without a 402 first on or off (on by
// default). With it, after a batch-settlement call on a channel was
// answered, the next request to the same endpoint (method, URL and the
// JSON body's "model", which is what farebox's requirements depend on)
// carries the next voucher straight away: the one the payer would sign
// after the 402, for the requirement it last paid there (cumulative = the
// channel record's charged amount + that ceiling), still bounded by the
// spend cap and the payTo allow-list and passed to Hooks.Authorize. A 402
// to it (a new price, payTo or channel state) is read as the first 402 of
// the normal path: a corrective one resynchronises as usual, and the
// request is paid from its offers.
//
// It is only used when the channel's balance covers the voucher: a call
// that needs a deposit asks for the 402 first. It cannot cost the payer
// anything the normal path would not: the voucher is the one the normal
// path signs for that requirement, and what a receiver can claim stays
// bounded by the highest voucher signed, at most one accepted ceiling over
// the charges (the next voucher builds on the charges again, not on a
// refused voucher). exact and upto are never paid preemptively: their
// authorizations are transfers that whoever holds them can settle until
// they expire, so one sent to a server that no longer asks for it (a
// route made free, a price changed) could move money for nothing.
func WithPreemptivePayment(on bool) Option { return func(t *Transport) { t.noPreempt = !on } }

// endpointOf names what a server's requirement depends on: the method, the
// URL and the body's model.
func endpointOf(req *http.Request, body []byte) string {
	return req.Method + " " + req.URL.String() + "\x00" + gjson.GetBytes(body, "model").String()
}

// terms is the offer a batch-settlement payment was signed for, with the
// parts of its 402 the envelope echoes.
type terms struct {
	pr *paymentRequired // resource and extensions; offers holds the one offer
}

// termsOf keeps the offer o of pr for a later preemptive payment, without
// the corrective channel state a 402 may have carried in its extra.
func termsOf(pr *paymentRequired, o *offer) *terms {
	c := *o
	raw := []byte(o.raw)
	for _, k := range []string{"extra.channelState", "extra.voucherState"} {
		if gjson.GetBytes(raw, k).Exists() {
			raw, _ = sjson.DeleteBytes(raw, k)
		}
	}
	c.raw = raw
	c.extra = gjson.GetBytes(raw, "extra")
	return &terms{pr: &paymentRequired{resource: pr.resource, extensions: pr.extensions, offers: []offer{c}}}
}

// learn remembers the terms a paid batch-settlement answer accepted at
// its endpoint.
func (t *Transport) learn(p *purchase) {
	if t.noPreempt || p.endpoint == "" || p.batch == nil || p.batch.terms == nil {
		return
	}
	t.mu.Lock()
	if t.known == nil {
		t.known = map[string]*terms{}
	}
	if len(t.known) >= 1024 {
		clear(t.known) // bounded: an endpoint forgotten costs one 402
	}
	t.known[p.endpoint] = p.batch.terms
	t.mu.Unlock()
}

// unlearn forgets the terms of p's endpoint when they are still p's.
func (t *Transport) unlearn(p *purchase) {
	if p.endpoint == "" || p.batch == nil {
		return
	}
	t.mu.Lock()
	if t.known[p.endpoint] == p.batch.terms {
		delete(t.known, p.endpoint)
	}
	t.mu.Unlock()
}

// preempt signs the next voucher for the terms last paid at endpoint,
// remembered under key and holding the channel's lock; nil when there
// are none, they are no longer acceptable, or the channel needs a
// deposit (then the request goes the normal way).
func (t *Transport) preempt(ctx context.Context, endpoint string, key purchaseKey, hooks *Hooks) *purchase {
	if t.noPreempt {
		return nil
	}
	t.mu.Lock()
	tm := t.known[endpoint]
	t.mu.Unlock()
	if tm == nil {
		return nil
	}
	o := &tm.pr.offers[0]
	if t.rank(o.Scheme) < 0 {
		return nil
	}
	req, err := t.acceptable(o) // the spend cap and allow-list as they are now
	if err != nil {
		return nil
	}
	c := candidate{o: o, req: req}
	b, err := t.channelOf(o, req)
	if err != nil {
		return nil
	}
	unlock, err := t.store.Lock(ctx, b.key)
	if err != nil {
		return nil
	}
	p, err := t.preemptLocked(ctx, c, tm, b, hooks)
	if err != nil || p == nil {
		unlock()
		return nil
	}
	p.unlock, p.key, p.hooks, p.endpoint, p.preempted, p.call = unlock, key, hooks, endpoint, true, callFrom(ctx)
	if hooks != nil && hooks.Signed != nil {
		hooks.Signed(p.req, &p.payment)
	}
	t.remember(p)
	return p
}

func (t *Transport) preemptLocked(ctx context.Context, c candidate, tm *terms, b *batchBuy, hooks *Hooks) (*purchase, error) {
	if err := t.bind(b); err != nil {
		return nil, err
	}
	rec, err := t.store.Get(b.key, b.id)
	if err != nil || rec == nil || rec.Deposit != nil {
		return nil, err
	}
	if new(big.Int).Add(rec.Charged, b.ceiling).Cmp(rec.Balance) > 0 {
		return nil, nil // a deposit is due: the 402 first
	}
	// Asked only when a voucher is about to be signed, as on the normal path.
	if hooks != nil && hooks.Authorize != nil && hooks.Authorize(c.req) != nil {
		return nil, nil // the normal path asks again and reports the refusal
	}
	b.terms = tm
	return t.signBatchLocked(ctx, c, tm.pr, b) // a voucher: the balance covers it
}
