package gateway

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/farebox/farebox/charge"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/labstack/echo/v4"
)

// handleResponses serves POST /v1/responses: the Responses wire's adapter
// of the paid call. It reads and parses the body (a malformed or
// unsupported request is refused before anything is paid), finds the
// route, and sells the call (package charge: price, payment, model,
// settlement, receipt) into a responsesOutput, which writes the emitter's
// events as Responses SSE or the accumulated object. Every error it
// returns is written by writeError.
func (s *Server) handleResponses(c echo.Context) error {
	// Admitted before the body is read: a refused call holds no body.
	release, err := s.admit()
	if err != nil {
		return err
	}
	defer release()
	body, err := readBody(c.Request(), s.cfg.BodyLimit)
	if err != nil {
		return err
	}
	h := c.Request().Header
	if s.pay.seller.RefundRequested(h.Get(x402.HeaderPaymentSignature)) {
		// A refund pays for nothing: its body is not a call (any is taken).
		if o := s.refundOffer(s.resourceURL(c)); o != nil {
			return s.refund(c, o)
		}
	}
	req, perr := responses.ParseWith(body, s.hosted)
	if perr != nil {
		return perr
	}
	c.Set(modelKey, req.Model)
	if len(req.DroppedTools) > 0 {
		s.droppedTools(c, req)
	}
	rt, ok := s.routes[req.Model]
	if !ok {
		return errModelNotFound(req.Model, s.order)
	}
	if err := rt.limits.apply(req); err != nil {
		return err
	}
	call := &charge.Call{Product: rt.product, Request: req, Body: body, Resource: s.resourceURL(c),
		Payment: charge.Payment{V2: h.Get(x402.HeaderPaymentSignature), V1: h.Get(x402.HeaderXPayment)},
		Caller:  freeCaller(c), EndUser: rt.limits.endUser}
	sale, err := s.pay.seller.Sell(c.Request().Context(), call, responsesOutput{c})
	c.Set(chargeKey, sale)
	if sale.Supplier != "" {
		c.Set(supplierKey, sale.Supplier)
	}
	return err
}

// responsesOutput is the Responses wire's charge.Output: the emitter's
// events as Responses SSE, or the accumulated response object as it is.
// Another wire's adapter is the same size: its Stream encodes each event
// into its own stream, its Object the response object into its own.
type responsesOutput struct{ c echo.Context }

func (o responsesOutput) Header() http.Header { return o.c.Response().Header() }

func (o responsesOutput) Stream() charge.Stream { return responses.NewSSEWriter(o.c.Response()) }

func (o responsesOutput) Object(response []byte) error {
	return o.c.Blob(http.StatusOK, echo.MIMEApplicationJSON, response)
}

// droppedToolsHeader names, on an answer, the provider-executed tools the
// request declared and farebox left out (tools.hosted: drop).
const droppedToolsHeader = "Farebox-Dropped-Tools"

// droppedTools makes the tools.hosted drop visible: to the client in a
// header (set before anything is written, so every answer carries it) and
// to the operator in the log.
func (s *Server) droppedTools(c echo.Context, req *responses.Request) {
	c.Response().Header().Set(droppedToolsHeader, strings.Join(req.DroppedTools, ", "))
	s.log.Info("provider-executed tools dropped", "model", req.Model, "tools", req.DroppedTools,
		"request_id", c.Response().Header().Get(echo.HeaderXRequestID))
}

// readBody reads at most limit bytes; a larger body is a 413.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, errTooLarge(limit)
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, errTooLarge(limit)
		}
		return nil, errUnreadableBody(err)
	}
	return body, nil
}

// resourceURL is the absolute URL of this call for the x402 offer.
func (s *Server) resourceURL(c echo.Context) string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL + c.Request().URL.Path
	}
	return c.Scheme() + "://" + c.Request().Host + c.Request().URL.Path
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// freeCaller is who a free call's end user is for the provider: the
// address of the connection's peer (not a forwarded-for header, which the
// client writes), so that a client cannot pick its identifier.
func freeCaller(c echo.Context) string {
	host, _, err := net.SplitHostPort(c.Request().RemoteAddr)
	if err != nil || host == "" {
		return ""
	}
	return "ip:" + host
}
