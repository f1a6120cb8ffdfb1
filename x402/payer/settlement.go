package payer

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/upto"
	"github.com/tidwall/gjson"
)

// Settlement is what one paid answer cost, as its receipt says.
type Settlement struct {
	Scheme      string
	Network     string // CAIP-2
	Payer       string
	Transaction string // "" for a voucher-only answer or a zero upto charge
	// Ceiling is the most the call could cost (the requirement's amount).
	Ceiling *big.Int
	// Charged is the call's charge: the ceiling for exact, the receipt's
	// amount for upto, extra.chargedAmount for batch-settlement; nil when
	// the answer did not say (or said something this client rejects).
	Charged *big.Int
	// Deposited is what this call moved into a batch-settlement channel.
	Deposited *big.Int
	// Refunded is what a cooperative refund returned to the payer.
	Refunded *big.Int
	// ChannelID is the batch-settlement channel drawn on.
	ChannelID common.Hash
	// prove asks the chain what an upto settlement moved (Proven).
	prove func(ctx context.Context) (*big.Int, error)
}

// OnSettlement registers a callback told what every paid answer cost.
func OnSettlement(f func(*Settlement)) Option { return func(t *Transport) { t.onSettlement = f } }

// envelope renders a v2 PaymentPayload for an offer of pr: the accept
// object echoed as received, the resource, the scheme's payload and
// extensions (with the payment-identifier when the server declares it).
func (t *Transport) envelope(pr *paymentRequired, c candidate, payload any, ext map[string]json.RawMessage) (*purchase, error) {
	env := map[string]any{"x402Version": 2, "accepted": c.o.raw, "payload": payload}
	if len(pr.resource) > 0 {
		env["resource"] = pr.resource
	}
	if len(ext) > 0 {
		env["extensions"] = ext
	}
	raw, err := json.Marshal(env)
	if err != nil {
		return nil, err
	}
	pu := &purchase{header: x402.HeaderPaymentSignature, req: c.req,
		payment: x402.Payment{Version: 2, Scheme: c.req.Scheme, Network: c.req.Network.CAIP2, Raw: raw,
			Authorization: x402.Authorization{From: t.signer.addr, To: c.req.PayTo, Value: new(big.Int).Set(c.req.Amount),
				ValidAfter: new(big.Int), ValidBefore: new(big.Int)}}}
	pu.value = base64.StdEncoding.EncodeToString(raw)
	if d, ok := pr.extensions["payment-identifier"]; ok {
		if err := pu.identify(string(d)); err != nil {
			return nil, err
		}
	}
	return pu, nil
}

// signScheme signs c with its scheme's client.
func (t *Transport) signScheme(ctx context.Context, c candidate, pr *paymentRequired) (*purchase, error) {
	switch c.req.Scheme {
	case channel.Scheme:
		return t.signBatch(ctx, c, pr)
	case upto.Scheme:
		return t.signUpto(ctx, c, pr)
	case x402.SchemeExact:
		schema := ""
		if d, ok := pr.extensions["payment-identifier"]; ok {
			schema = string(d)
		}
		return t.signOffer(ctx, c.req, 2, schema)
	}
	return nil, fmt.Errorf("payer: scheme %q is not supported", c.req.Scheme)
}

// settled tells the callbacks what a 2xx answer to p cost (raw is its
// receipt's JSON, nil without one), updating the channel record of a
// batch-settlement payment; the caller holds the channel's lock.
func (t *Transport) settled(ctx context.Context, p *purchase, raw []byte, hooks *Hooks) {
	var s *Settlement
	switch {
	case p.batch != nil:
		s = t.batchAnswered(ctx, p, gjson.ParseBytes(raw))
	case p.upto != nil:
		s = t.uptoAnswered(p, raw)
	default:
		s = &Settlement{Scheme: x402.SchemeExact, Network: p.req.Network.CAIP2, Payer: t.signer.addr.Hex(),
			Ceiling: p.req.Amount, Charged: p.req.Amount, Transaction: gjson.GetBytes(raw, "transaction").String()}
	}
	t.charged(ctx, s)
	if hooks != nil && hooks.Settled != nil {
		hooks.Settled(s)
	}
	if t.onSettlement != nil {
		t.onSettlement(s)
	}
}

// receiptJSON is the decoded JSON of resp's receipt header, nil without one.
func receiptJSON(resp *http.Response) []byte {
	h := resp.Header.Get(x402.HeaderPaymentResponse)
	if h == "" {
		h = resp.Header.Get(x402.HeaderXPaymentResponse)
	}
	if h == "" || len(h) > 16<<10 {
		return nil
	}
	raw, err := base64.StdEncoding.DecodeString(h)
	if err != nil || !json.Valid(raw) {
		return nil
	}
	return raw
}
