package payer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/tidwall/gjson"
)

// errNotBatch is Refund's answer for a server that offers no channel.
var errNotBatch = errors.New("payer: the server offers no batch-settlement channel to refund")

// Refund asks for a cooperative refund of the payer's batch-settlement
// channel with the server behind req (any request it answers with a 402
// offering batch-settlement, e.g. the POST of a paid route): amount, or
// everything left when nil. The payload is a zero-charge voucher at the
// charged amount (spec); a corrective 402 is resynchronised once. The
// channel record is updated from the receipt (after a full refund it
// holds only what was charged); Settlement.Refunded is what came back.
func (t *Transport) Refund(req *http.Request, amount *big.Int) (*Settlement, error) {
	ctx := req.Context()
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	resp, err := t.base.RoundTrip(withBody(req, body))
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		reason := ""
		if attempt > 0 {
			reason = refusalReason(resp)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusPaymentRequired {
			return nil, fmt.Errorf("payer: refund probe answered %d, want a 402", resp.StatusCode)
		}
		pr, err := decodeRequired(resp.Header.Get(x402.HeaderPaymentRequired))
		if err != nil {
			return nil, err
		}
		var c *candidate
		for i := range pr.offers {
			o := &pr.offers[i]
			if o.Scheme != channel.Scheme {
				continue
			}
			r, err := o.requirement(t.networks)
			if err == nil && (t.payTo == nil || t.payTo[r.PayTo]) {
				c = &candidate{o: o, req: r}
				break
			}
		}
		if c == nil {
			return nil, errNotBatch
		}
		if attempt > 0 {
			// resp is the answer to a refund: a corrective 402 resyncs once.
			b, err := t.channelOf(c.o, c.req)
			if err == nil {
				err = t.bind(b)
			}
			if err != nil {
				return nil, err
			}
			if attempt > 1 || !t.batchRefused(ctx, &purchase{batch: b}, pr, reason) {
				return nil, fmt.Errorf("payer: refund refused: %s", reason)
			}
		}
		p, err := t.signRefund(ctx, c, pr, amount)
		if err != nil {
			return nil, err
		}
		paid := withBody(req, body)
		paid.Header.Set(p.header, p.value)
		resp, err = t.base.RoundTrip(paid)
		if err != nil {
			p.unlock()
			return nil, err
		}
		if resp.StatusCode == http.StatusPaymentRequired {
			p.unlock()
			continue
		}
		defer resp.Body.Close()
		defer p.unlock()
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		return t.refunded(p, resp, amount)
	}
}

// signRefund signs the zero-charge voucher of a refund under the
// channel's lock (held by the returned purchase).
func (t *Transport) signRefund(ctx context.Context, c *candidate, pr *paymentRequired, amount *big.Int) (*purchase, error) {
	b, err := t.channelOf(c.o, c.req)
	if err != nil {
		return nil, err
	}
	unlock, err := t.store.Lock(ctx, b.key)
	if err != nil {
		return nil, err
	}
	if err := t.bind(b); err != nil {
		unlock()
		return nil, err
	}
	rec, err := t.record(ctx, b)
	if err != nil {
		unlock()
		return nil, err
	}
	if rec.Balance.Sign() > 0 && rec.Balance.Cmp(rec.Charged) <= 0 {
		unlock()
		return nil, fmt.Errorf("payer: channel %s has nothing left to refund", b.id.Hex())
	}
	b.refund, b.base, b.max = true, new(big.Int).Set(rec.Charged), new(big.Int).Set(rec.Charged)
	payload, err := t.batchPayload(b, c.req)
	if err != nil {
		unlock()
		return nil, err
	}
	if amount != nil {
		payload["amount"] = amount.String()
	}
	p, err := t.envelope(pr, *c, payload, nil)
	if err != nil {
		unlock()
		return nil, err
	}
	p.batch, p.unlock = b, unlock
	return p, nil
}

// refunded applies a refund's receipt to the channel record.
func (t *Transport) refunded(p *purchase, resp *http.Response, amount *big.Int) (*Settlement, error) {
	b := p.batch
	r := gjson.ParseBytes(receiptJSON(resp))
	if resp.StatusCode/100 != 2 || !r.Get("success").Bool() {
		return nil, fmt.Errorf("payer: refund answered %d (%s)", resp.StatusCode, r.Get("errorReason").String())
	}
	s := &Settlement{Scheme: channel.Scheme, Network: b.key.Network, Payer: b.cfg.Payer.Hex(), ChannelID: b.id,
		Transaction: r.Get("transaction").String(), Refunded: atomic(r.Get("amount").String())}
	rec, err := t.store.Get(b.key, b.id)
	if err != nil || rec == nil {
		return s, err
	}
	// The channel outlives a refund: its id is fixed by its config, and the
	// receiver keeps what it claimed (totalClaimed = charged). The record
	// is kept with the balance the chain now holds, so the next payment
	// deposits on top and signs from the charged amount, as the server expects.
	left := new(big.Int).Sub(rec.Balance, rec.Charged)
	if amount == nil || s.Refunded == nil || s.Refunded.Cmp(left) >= 0 {
		rec.Balance.Set(rec.Charged)
	} else {
		rec.Balance.Sub(rec.Balance, s.Refunded)
	}
	return s, t.store.Put(b.key, rec)
}
