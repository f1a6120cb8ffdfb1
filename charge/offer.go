package charge

import (
	"encoding/base64"
	"encoding/json"

	"github.com/farebox/farebox/x402"
)

// declaredExtensions are the x402 extensions every offer declares.
var declaredExtensions = map[string]json.RawMessage{"payment-identifier": x402.PaymentIdentifierExtension}

// Offer is the requirements for one product at one URL, with the parts of
// the 402 answer that do not depend on the failure.
type Offer struct {
	resource   string
	reqs       []*x402.Requirement // the schemes that are not metered (exact)
	bases      []*x402.Requirement // per network, of no scheme: what the others offer
	others     []json.RawMessage   // the metered schemes' accepts (per-token models)
	escrow     []json.RawMessage   // those of others whose scheme escrows the funds (channels)
	extensions map[string]json.RawMessage
	v1         []byte
	// refundOnly: the offer of a refund, whose 402 lists the refunding
	// scheme's accepts alone (reqs only find them by network).
	refundOnly bool
}

// RequiredHeader is the offer's PAYMENT-REQUIRED header with code as its
// error (CodePaymentRequired for a quote).
func (o *Offer) RequiredHeader(code string) string { return o.requiredHeader(code) }

func (o *Offer) requiredHeader(code string) string {
	if o.refundOnly {
		return refundRequiredHeader(o, code)
	}
	return x402.PaymentRequiredHeaderOffer(o.reqs, o.others, code, o.extensions)
}

// Offer is the requirements of p at resource: a pure function of
// configuration, product and URL, so any replica computes the same. The
// schemes are offered in the registry's order, the metered ones
// (per-token models only) first, at the ceiling: a client takes the first
// it speaks, and they charge the use where the others charge the ceiling.
func (s *Seller) Offer(p *Product, resource string) *Offer {
	if o := p.offer.Load(); o != nil && o.resource == resource {
		return o
	}
	o := &Offer{resource: resource, extensions: withExtensions(declaredExtensions, p.Extensions)}
	all := s.Schemes.All()
	for _, n := range s.Networks {
		o.bases = append(o.bases, &x402.Requirement{Network: n, Amount: p.Price, PayTo: s.PayTo,
			MaxTimeoutSeconds: s.MaxTimeout, Resource: resource,
			Description: p.Description, MimeType: "application/json"})
	}
	for _, b := range o.bases {
		for _, sc := range all {
			if !sc.Metered() {
				r := *b
				r.Scheme = sc.Name()
				o.reqs = append(o.reqs, &r)
			}
		}
	}
	if p.PerToken != nil {
		s.offerMetered(o, all)
	}
	o.v1 = x402.V1Accepts(o.reqs)
	p.offer.Store(o)
	return o
}

// offerMetered adds the metered schemes' accepts to o, for a per-token
// product.
func (s *Seller) offerMetered(o *Offer, all []x402.ServerScheme) {
	for _, b := range o.bases {
		for _, sc := range all {
			if !sc.Metered() {
				continue
			}
			a := sc.Accept(b)
			if a == nil {
				continue // known, not served
			}
			o.others = append(o.others, a)
			if e, ok := sc.(x402.EscrowScheme); ok && e.Escrows() {
				o.escrow = append(o.escrow, a)
			}
			if e, ok := sc.(x402.Extender); ok {
				o.extensions = withExtensions(o.extensions, e.Extensions())
			}
		}
	}
}

// withExtensions is base with add's extensions (base is not changed).
func withExtensions(base, add map[string]json.RawMessage) map[string]json.RawMessage {
	m := make(map[string]json.RawMessage, len(base)+len(add))
	for k, v := range base {
		m[k] = v
	}
	for k, v := range add {
		m[k] = v
	}
	return m
}

// requirement is the offer's requirement on network (CAIP-2 id or v1
// name) for scheme, nil when the network is not offered.
func (o *Offer) requirement(network, scheme string) *x402.Requirement {
	on := func(r *x402.Requirement) bool {
		return r.Network.CAIP2 == network || (r.Network.V1Name != "" && r.Network.V1Name == network)
	}
	for _, r := range o.reqs {
		if r.Scheme == scheme && on(r) {
			return r
		}
	}
	for _, r := range o.bases {
		if on(r) {
			c := *r
			c.Scheme = scheme
			return &c
		}
	}
	return nil
}

// refundRequiredHeader is a refund offer's PAYMENT-REQUIRED: its accepts
// are the refunding scheme's only (a refund pays for nothing).
func refundRequiredHeader(o *Offer, code string) string {
	type resource struct {
		URL         string `json:"url"`
		Description string `json:"description"`
		MimeType    string `json:"mimeType"`
	}
	pr := struct {
		X402Version int                        `json:"x402Version"`
		Error       string                     `json:"error,omitempty"`
		Resource    resource                   `json:"resource"`
		Accepts     []json.RawMessage          `json:"accepts"`
		Extensions  map[string]json.RawMessage `json:"extensions,omitempty"`
	}{X402Version: 2, Error: code, Accepts: o.others, Extensions: o.extensions,
		Resource: resource{URL: o.resource, Description: o.reqs[0].Description, MimeType: "application/json"}}
	b, _ := json.Marshal(pr) // raw accepts come from json.Marshal
	return base64.StdEncoding.EncodeToString(b)
}
