package payer

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/upto"
	"github.com/tidwall/gjson"
)

// DefaultSchemes are the schemes this client pays with, in its default order of preference:
// batch-settlement draws on a channel (no gas per call, pays the actual
// usage), upto pays the usage with one transfer per call, exact pays the
// ceiling.
var DefaultSchemes = []string{channel.Scheme, upto.Scheme, x402.SchemeExact}

// WithSchemes restricts the schemes the transport pays with to these, in
// this order of preference (e.g. WithSchemes("exact") pays only exact).
func WithSchemes(schemes ...string) Option {
	return func(t *Transport) { t.schemes = slices.Clone(schemes) }
}

// paymentRequired is a decoded v2 402: its offers keep their raw accept
// objects (echoed as `accepted`) and scheme extras.
type paymentRequired struct {
	err        string
	resource   json.RawMessage
	extensions map[string]json.RawMessage
	offers     []offer
}

// offer is one accepted requirement of a v2 402.
type offer struct {
	x402.Offer
	raw   json.RawMessage // the accept object as sent
	extra gjson.Result    // its `extra`
}

// decodeRequired reads a v2 PAYMENT-REQUIRED header with every scheme.
func decodeRequired(header string) (*paymentRequired, error) {
	if header == "" || len(header) > maxOfferBody {
		return nil, errors.New("payer: PAYMENT-REQUIRED header is empty or too large")
	}
	raw, err := base64.StdEncoding.DecodeString(header)
	if err != nil {
		return nil, errors.New("payer: PAYMENT-REQUIRED header is not standard base64")
	}
	var pr struct {
		X402Version int                        `json:"x402Version"`
		Error       string                     `json:"error"`
		Resource    json.RawMessage            `json:"resource"`
		Accepts     []json.RawMessage          `json:"accepts"`
		Extensions  map[string]json.RawMessage `json:"extensions"`
	}
	if err := json.Unmarshal(raw, &pr); err != nil {
		return nil, fmt.Errorf("payer: PAYMENT-REQUIRED header: %w", err)
	}
	if pr.X402Version != 2 {
		return nil, fmt.Errorf("payer: PAYMENT-REQUIRED header has x402Version %d", pr.X402Version)
	}
	out := &paymentRequired{err: pr.Error, resource: pr.Resource, extensions: pr.Extensions}
	res := gjson.ParseBytes(pr.Resource)
	for _, a := range pr.Accepts {
		g := gjson.ParseBytes(a)
		if !g.IsObject() {
			continue
		}
		out.offers = append(out.offers, offer{raw: a, extra: g.Get("extra"), Offer: x402.Offer{Version: 2,
			Scheme: g.Get("scheme").String(), Network: g.Get("network").String(), Amount: g.Get("amount").String(),
			Asset: g.Get("asset").String(), PayTo: g.Get("payTo").String(), MaxTimeoutSeconds: g.Get("maxTimeoutSeconds").Int(),
			Resource: res.Get("url").String(), Description: res.Get("description").String(), MimeType: res.Get("mimeType").String(),
			ExtraName: g.Get("extra.name").String(), ExtraVersion: g.Get("extra.version").String()}})
	}
	return out, nil
}

// requirement matches an offer of any scheme against the client's
// networks: x402.Offer.Requirement checks network, asset, domain, payTo,
// amount and timeout, and only knows exact, so it sees the offer as exact.
func (o *offer) requirement(reg *x402.Registry) (*x402.Requirement, error) {
	as := o.Offer
	as.Scheme = x402.SchemeExact
	req, err := as.Requirement(reg)
	if err != nil {
		return nil, err
	}
	req.Scheme = o.Scheme
	return req, nil
}

// rank orders what this transport may pay: by the preference of its
// scheme, then by the ceiling; -1 when the scheme is not allowed.
func (t *Transport) rank(scheme string) int {
	schemes := t.schemes
	if schemes == nil {
		schemes = DefaultSchemes
	}
	return slices.Index(schemes, scheme)
}

// candidate is an acceptable offer and the requirement it became.
type candidate struct {
	o   *offer
	req *x402.Requirement
}

// candidates returns the offers this transport agrees to pay, best first,
// and why the others were refused.
func (t *Transport) candidates(pr *paymentRequired) ([]candidate, []error) {
	var out []candidate
	var why []error
	for i := range pr.offers {
		o := &pr.offers[i]
		if t.rank(o.Scheme) < 0 {
			why = append(why, fmt.Errorf("payer: scheme %q is not enabled", o.Scheme))
			continue
		}
		req, err := t.acceptable(o)
		if err != nil {
			why = append(why, err)
			continue
		}
		out = append(out, candidate{o: o, req: req})
	}
	slices.SortStableFunc(out, func(a, b candidate) int {
		if d := t.rank(a.o.Scheme) - t.rank(b.o.Scheme); d != 0 {
			return d
		}
		return a.req.Amount.Cmp(b.req.Amount)
	})
	return out, why
}

// atomic parses a decimal uint string; nil when it is not one.
func atomic(s string) *big.Int {
	if s == "" || s[0] == '+' || s[0] == '-' {
		return nil
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.BitLen() > 256 {
		return nil
	}
	return v
}
