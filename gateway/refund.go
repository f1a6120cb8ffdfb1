package gateway

import (
	"encoding/json"
	"math/big"
	"net/http"

	"github.com/farebox/farebox/charge"
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

// refundOffer is the 402 of a refund: the refunding scheme alone on every
// network, at the largest per-token ceiling. Nil when no scheme serves
// refunds or no model is priced per token.
func (s *Server) refundOffer(resource string) *charge.Offer {
	var top *route
	for _, name := range s.order {
		if rt := s.routes[name]; rt.perToken != nil && (top == nil || rt.price.Cmp(top.price) > 0) {
			top = rt
		}
	}
	if top == nil {
		return nil
	}
	return s.pay.seller.RefundOffer(&s.refunds, top.product, resource)
}

// handleRefund serves GET /v1/responses: the 402 of a refund without a
// payment, the refund with one.
func (s *Server) handleRefund(c echo.Context) error {
	o := s.refundOffer(s.resourceURL(c))
	if o == nil {
		return errMethodNotAllowed(c.Request().Method, c.Request().URL.Path)
	}
	if c.Request().Header.Get(x402.HeaderPaymentSignature) == "" {
		return charge.RefusePaymentRequired(o, "Payment required: GET /v1/responses serves the cooperative refund of a batch-settlement channel: send a PAYMENT-SIGNATURE header with a refund payload (a zero-charge voucher) for the offer in PAYMENT-REQUIRED. Calls are POSTed.")
	}
	release, err := s.admit()
	if err != nil {
		return err
	}
	defer release()
	return s.refund(c, o)
}

// refund has the refunding scheme verify a refund payload and send it
// (see charge.Seller.Refund): 200 with the refund receipt in
// PAYMENT-RESPONSE, or a 402 with the scheme's reason. Nothing is charged
// either way.
func (s *Server) refund(c echo.Context, o *charge.Offer) error {
	r, err := s.pay.seller.Refund(c.Request().Context(), c.Request().Header.Get(x402.HeaderPaymentSignature), o)
	if err != nil {
		return err
	}
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
