package charge

import (
	"context"
	"encoding/base64"
	"sync/atomic"

	"github.com/farebox/farebox/x402"
)

// A refund (batch-settlement's cooperative refund: a `refund` payload) is
// a payment operation, not a paid call: no model runs and nothing is
// charged. The refunding scheme's terms are the same for every per-token
// model, so a refund needs no model: its offer is at the largest per-token
// ceiling (a refund is zero-charge: the amount only has to be a valid
// requirement's).

// RefundRequested reports a v2 payment header (v2) that asks the
// refunding scheme for a refund: cheap enough to ask of every call.
func (s *Seller) RefundRequested(v2 string) bool {
	if s.Refunder == nil || v2 == "" || len(v2) > 64<<10 {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(v2)
	if err != nil {
		return false
	}
	return s.Refunder.RefundRequested(raw)
}

// RefundOffers caches the refund offer of a server, by resource URL.
type RefundOffers struct{ last atomic.Pointer[Offer] }

// RefundOffer is the 402 of a refund: the refunding scheme alone on every
// network, at top's price (the per-token product of the largest ceiling).
// Nil when no scheme serves refunds or no product is per token (top nil).
func (s *Seller) RefundOffer(cache *RefundOffers, top *Product, resource string) *Offer {
	rf := s.Refunder
	if rf == nil || top == nil {
		return nil
	}
	if o := cache.last.Load(); o != nil && o.resource == resource {
		return o
	}
	desc, ext := rf.RefundOffer()
	o := &Offer{resource: resource, extensions: withExtensions(declaredExtensions, ext), refundOnly: true, v1: []byte("[]")}
	for _, n := range s.Networks {
		r := &x402.Requirement{Scheme: rf.Name(), Network: n, Amount: top.Price, PayTo: s.PayTo,
			MaxTimeoutSeconds: s.MaxTimeout, Resource: resource, MimeType: "application/json",
			Description: desc}
		o.reqs = append(o.reqs, r)
		o.others = append(o.others, rf.Accept(r))
	}
	cache.last.Store(o)
	return o
}

// Refund has the refunding scheme verify a refund payload (v2, the
// PAYMENT-SIGNATURE header) against o and send it (batch-settlement: claim
// what was charged, refund, sweep, in one transaction). A refusal is the
// scheme's reason (its corrective 402 for a voucher that is not at the
// charged amount). Nothing is charged either way.
func (s *Seller) Refund(ctx context.Context, v2 string, o *Offer) (*x402.Refund, error) {
	pay, err := x402.DecodePayment(v2, 2)
	if err != nil {
		return nil, s.undecodable(o, err, 2, "Refund refused: ")
	}
	// The refund's transaction is waited for on a context of its own: a
	// client that leaves does not stop a refund under way.
	s.InFlight(1)
	defer s.InFlight(-1)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.SettleTimeout)
	defer cancel()
	r, err := s.Refunder.Refund(ctx, pay, o.requirement(pay.Network, s.Refunder.Name()))
	if err != nil {
		return nil, s.refusal(o, err, 2, "Refund refused: ")
	}
	s.Meters.Payment("refunded", "")
	s.Log.Info("channel refunded", "channel", r.ID, "payer", r.Payer, "amount", r.Amount, "transaction", r.Transaction)
	return r, nil
}
