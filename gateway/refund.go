package gateway

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"

	"github.com/farebox/farebox/x402"
	"github.com/labstack/echo/v4"
)

// A refund (batch-settlement's cooperative refund: a `refund` payload) is
// a payment operation, not a paid call: it is served on /v1/responses, GET
// (what @x402/evm's client sends: a probe for the 402, then the refund,
// neither with a body) or POST (farebox's Go payer), whatever the body (it
// is not read as a request and no model runs). The refunding scheme's
// terms are the same for every per-token model, so the refund needs no
// model.

// refundRequested reports a v2 payment header that asks the refunding
// scheme for a refund: cheap enough to ask of every call.
func (p *payments) refundRequested(h http.Header) bool {
	if p.refunder == nil {
		return false
	}
	hdr := h.Get(x402.HeaderPaymentSignature)
	if hdr == "" || len(hdr) > 64<<10 {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(hdr)
	if err != nil {
		return false
	}
	return p.refunder.RefundRequested(raw)
}

// refundOffer is the 402 of a refund: the refunding scheme alone on every
// network, at the largest per-token ceiling (a refund is zero-charge: the
// amount only has to be a valid requirement's). Nil when no scheme serves
// refunds.
func (s *Server) refundOffer(resource string) *offer {
	p := s.pay
	rf := p.refunder
	if rf == nil {
		return nil
	}
	var top *route
	for _, name := range s.order {
		if rt := s.routes[name]; rt.perToken != nil && (top == nil || rt.price.Cmp(top.price) > 0) {
			top = rt
		}
	}
	if top == nil {
		return nil
	}
	if o := s.refunds.Load(); o != nil && o.resource == resource {
		return o
	}
	desc, ext := rf.RefundOffer()
	o := &offer{resource: resource, extensions: withExtensions(declaredExtensions, ext), refundOnly: true, v1: []byte("[]")}
	for _, n := range p.networks {
		r := &x402.Requirement{Scheme: rf.Name(), Network: n, Amount: top.price, PayTo: p.payTo,
			MaxTimeoutSeconds: p.maxTimeout, Resource: resource, MimeType: "application/json",
			Description: desc}
		o.reqs = append(o.reqs, r)
		o.others = append(o.others, rf.Accept(r))
	}
	s.refunds.Store(o)
	return o
}

// refundRequiredHeader is a refund offer's PAYMENT-REQUIRED: its accepts
// are the refunding scheme's only (a refund pays for nothing).
func refundRequiredHeader(o *offer, code string) string {
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

// handleRefund serves GET /v1/responses: the 402 of a refund without a
// payment, the refund with one.
func (s *Server) handleRefund(c echo.Context) error {
	o := s.refundOffer(s.resourceURL(c))
	if o == nil {
		return errMethodNotAllowed(c.Request().Method, c.Request().URL.Path)
	}
	if c.Request().Header.Get(x402.HeaderPaymentSignature) == "" {
		return refuse(o, codePaymentRequired, "Payment required: GET /v1/responses serves the cooperative refund of a batch-settlement channel: send a PAYMENT-SIGNATURE header with a refund payload (a zero-charge voucher) for the offer in PAYMENT-REQUIRED. Calls are POSTed.")
	}
	release, err := s.admit()
	if err != nil {
		return err
	}
	defer release()
	return s.refund(c, o)
}

// refund has the refunding scheme verify a refund payload and send it
// (batch-settlement: claim what was charged, refund, sweep, in one
// transaction): 200 with the refund receipt in PAYMENT-RESPONSE, or a 402
// with the scheme's reason (its corrective 402 for a voucher that is not
// at the charged amount). Nothing is charged either way.
func (s *Server) refund(c echo.Context, o *offer) error {
	p := s.pay
	pay, err := x402.DecodePayment(c.Request().Header.Get(x402.HeaderPaymentSignature), 2)
	if err != nil {
		return p.undecodable(o, err, 2, "Refund refused: ")
	}
	// The refund's transaction is waited for on a context of its own: a
	// client that leaves does not stop a refund under way.
	p.inflight.add(1)
	defer p.inflight.add(-1)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), p.timeout)
	defer cancel()
	r, err := p.refunder.Refund(ctx, pay, o.requirement(pay.Network, p.refunder.Name()))
	if err != nil {
		return p.refusal(o, err, 2, "Refund refused: ")
	}
	p.metrics.payment("refunded", "")
	p.log.Info("channel refunded", "channel", r.ID, "payer", r.Payer, "amount", r.Amount, "transaction", r.Transaction)
	h := c.Response().Header()
	h.Set(x402.HeaderPaymentResponse, x402.EncodeReceipt(r.Receipt))
	h.Set("Cache-Control", "no-store")
	amount, ok := new(big.Int).SetString(r.Amount, 10)
	if !ok {
		amount = new(big.Int)
	}
	s.bookRefund(r.Payer, amount)
	body, _ := json.Marshal(refundBody{Object: "x402.refund", Message: "Refund acknowledged", ChannelID: r.ID,
		Amount: r.Amount, AmountUSDC: x402.FormatUSDC(amount), Transaction: r.Transaction, Network: r.Network, Payer: r.Payer})
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, body)
}

// refundBody is the body of an answered refund (the receipt is in
// PAYMENT-RESPONSE): @x402/evm's reference server answers
// {message, channelId}; the rest says what came back.
type refundBody struct {
	Object      string `json:"object"`
	Message     string `json:"message"`
	ChannelID   string `json:"channelId"`
	Amount      string `json:"amount"`      // atomic units returned to the payer
	AmountUSDC  string `json:"amount_usdc"` // the same in USDC
	Transaction string `json:"transaction"`
	Network     string `json:"network"`
	Payer       string `json:"payer"`
}
