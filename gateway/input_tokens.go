package gateway

import (
	"bytes"
	"context"
	"github.com/farebox/farebox/charge"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/labstack/echo/v4"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// This file serves the Responses routes besides POST /v1/responses: the
// token count (stateless, so served, with farebox's quote beside it) and
// the routes that need stored responses (answered with why they are not).

// quoteField is the extra field of the token count carrying the quote.
const quoteField = "x402"

// countTimeout bounds the upstream's token count: a quote is a courtesy,
// an estimate is better than a wait.
const countTimeout = 10 * time.Second

// handleInputTokens serves POST /v1/responses/input_tokens: the spec's
// count of a request's input tokens (the upstream's own count for a
// Responses upstream, else the documented estimate: a token per 4 bytes
// of the body), free of charge, with what the request would cost on its
// model: in the x402 field, and as the PAYMENT-REQUIRED header the 402 of
// that call would carry.
func (s *Server) handleInputTokens(c echo.Context) error {
	release, err := s.admit()
	if err != nil {
		return err
	}
	defer release()
	body, err := readBody(c.Request(), s.cfg.BodyLimit)
	if err != nil {
		return err
	}
	parsed := body
	if !gjson.GetBytes(body, "input").Exists() {
		// The spec's TokenCountsBody may leave input out (count the
		// instructions and tools alone); POST /v1/responses may not.
		parsed, _ = sjson.SetBytes(bytes.Clone(body), "input", "")
	}
	req, perr := responses.ParseWith(parsed, s.hosted)
	if perr != nil {
		return perr
	}
	rt, ok := s.routes[req.Model]
	if !ok {
		return errModelNotFound(req.Model, s.order)
	}
	// The model's limits first, as /v1/responses applies them: an input
	// over max_input_tokens is refused here, never sent to be counted.
	if err := rt.limits.apply(req); err != nil {
		return err
	}
	count, countedBy := s.countInput(c, rt, req, len(body))
	resource := s.responsesURL(c)
	if !rt.free() {
		o := s.pay.seller.Offer(rt.product, resource)
		c.Response().Header().Set(x402.HeaderPaymentRequired, o.RequiredHeader(charge.CodePaymentRequired))
	}
	b := append(make([]byte, 0, 256), `{"object":"response.input_tokens","input_tokens":`...)
	b = append(b, itoa(count)...)
	b = append(b, `,"`+quoteField+`":`...)
	b = rt.appendQuote(b, count, countedBy, resource)
	b = append(b, '}')
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, b)
}

// countInput counts req's input tokens: the upstream's own count when
// its model has one (within countTimeout), else the estimate from the
// body's length; countedBy says which.
func (s *Server) countInput(c echo.Context, rt *route, req *responses.Request, bodyLen int) (count int64, countedBy string) {
	count, countedBy = countTokens(bodyLen), "estimate"
	if tc, ok := rt.model.(responses.InputTokenCounter); ok && s.counts.allow(freeCaller(c)) {
		ctx, cancel := context.WithTimeout(c.Request().Context(), countTimeout)
		n, cerr := tc.CountInputTokens(ctx, req)
		cancel()
		if cerr == nil {
			return n, "upstream"
		}
		s.log.Warn("upstream token count failed; estimated", "model", rt.name, "err", cerr)
	}
	return count, countedBy
}

// appendQuote writes what one call with count input tokens costs on rt:
// per call the price (what the call is charged), per token the input
// part and the ceiling (which bounds the charge).
func (rt *route) appendQuote(b []byte, count int64, countedBy, resource string) []byte {
	b = append(b, `{"model":`...)
	b = appendString(b, rt.name)
	b = append(b, `,"resource":`...)
	b = appendString(b, resource)
	b = append(b, `,"counted_by":`...)
	b = appendString(b, countedBy)
	b = append(b, `,"currency":"USDC"`...)
	tp := rt.perToken
	if tp == nil {
		b = append(b, `,"unit":"call","amount":`...)
		b = appendString(b, x402.FormatUSDC(rt.price))
		b = append(b, `,"atomic":`...)
		b = appendString(b, rt.price.String())
		return append(b, '}')
	}
	in := tp.inputPart(count)
	b = append(b, `,"unit":"token","input":`...)
	b = appendString(b, x402.FormatUSDC(in))
	b = append(b, `,"input_atomic":`...)
	b = appendString(b, in.String())
	b = append(b, `,"max_per_call":`...)
	b = appendString(b, x402.FormatUSDC(tp.ceiling))
	b = append(b, `,"max_atomic_per_call":`...)
	b = appendString(b, tp.ceiling.String())
	return append(b, '}')
}

// inputPart is what count input tokens cost at most (each priced at the
// higher of the input and cache-write prices), rounded up, capped at the
// ceiling.
func (tp *tokenPrice) inputPart(count int64) *big.Int {
	price := tp.input
	if tp.cacheWrite.Cmp(price) > 0 {
		price = tp.cacheWrite
	}
	sum := new(big.Int).Mul(big.NewInt(max(count, 0)), price)
	sum.Add(sum, new(big.Int).Sub(million, big.NewInt(1)))
	sum.Quo(sum, million)
	if sum.Cmp(tp.ceiling) > 0 {
		return new(big.Int).Set(tp.ceiling)
	}
	return sum
}

// responsesURL is the absolute URL of POST /v1/responses, the resource
// the quote's offer is for.
func (s *Server) responsesURL(c echo.Context) string {
	return s.publicBase(c) + "/v1/responses"
}

// handleStored answers the routes that need stored responses (GET and
// DELETE /v1/responses/{id}, its cancel and input_items, and compact):
// 404, saying that farebox keeps none, as previous_response_id does.
func (s *Server) handleStored(c echo.Context) error {
	path := c.Request().URL.Path
	what := "Stored responses"
	if id := c.Param("id"); id != "" {
		what = "Response with id '" + id + "' not found"
	}
	if strings.HasSuffix(path, "/compact") {
		what = "Compacting a stored conversation"
	}
	return &responses.Error{Status: http.StatusNotFound, Type: typeInvalidRequest, Code: codeStateless,
		Message: what + ": " + c.Request().Method + " " + path + " needs responses stored on the server, and " + responses.StatelessHint}
}
