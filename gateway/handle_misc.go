package gateway

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/farebox/farebox/x402/settle"
	"github.com/labstack/echo/v4"
)

// handleModels serves GET /v1/models: the OpenAI list shape, with each
// model's price per call.
func (s *Server) handleModels(c echo.Context) error {
	b := append(make([]byte, 0, 256), `{"object":"list","data":[`...)
	for i, name := range s.order {
		if i > 0 {
			b = append(b, ',')
		}
		b = s.routes[name].appendModel(b)
	}
	b = append(b, "]}"...)
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, b)
}

// handleModel serves GET /v1/models/:model.
func (s *Server) handleModel(c echo.Context) error {
	rt, ok := s.routes[c.Param("model")]
	if !ok {
		return errModelNotFound(c.Param("model"))
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, rt.appendModel(nil))
}

// handleHealthz serves GET /healthz: the process is up.
func (s *Server) handleHealthz(c echo.Context) error {
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, []byte(`{"status":"ok"}`))
}

// handleReadyz serves GET /readyz: farebox can take paid traffic (the
// settler can settle: e.g. the relayer holds gas money).
func (s *Server) handleReadyz(c echo.Context) error {
	ctx, cancel := context.WithTimeout(c.Request().Context(), 5*time.Second)
	defer cancel()
	if err := s.pay.ready(ctx); err != nil {
		return errNotReady(err)
	}
	return c.Blob(http.StatusOK, echo.MIMEApplicationJSON, []byte(`{"status":"ready"}`))
}

// handleMetrics serves GET /metrics: payment outcomes in the Prometheus
// text format, so an operator can alarm on failed settlements.
func (s *Server) handleMetrics(c echo.Context) error {
	pc := &s.pay.counts
	var b []byte
	for _, m := range []struct {
		name, help string
		v          int64
	}{
		{"farebox_settlements_total", "Settlements that moved the money.", pc.settled.Load()},
		{"farebox_settlement_failures_total", "Settlements that failed.", pc.failed.Load()},
		{"farebox_settlements_pending_total", "Settlements submitted whose outcome was unknown when answering.", pc.pending.Load()},
		{"farebox_authorizations_released_total", "Payments released because nothing was served.", pc.released.Load()},
		{"farebox_authorizations_kept_total", "Answers served whose settlement failed: the authorization stays spent.", pc.kept.Load()},
		{"farebox_payments_refused_total", "Payments refused or malformed.", pc.refused.Load()},
	} {
		b = fmt.Appendf(b, "# HELP %s %s\n# TYPE %s counter\n%s %d\n", m.name, m.help, m.name, m.name, m.v)
	}
	b = append(b, "# HELP farebox_charges_total Paid calls by the outcome of their charge.\n# TYPE farebox_charges_total counter\n"...)
	for o := settled; o <= replayed; o++ {
		b = fmt.Appendf(b, "farebox_charges_total{outcome=%q} %d\n", o, pc.outcomes[o].Load())
	}
	b = append(b, "# HELP farebox_settlement_events_total Steps of purchases in the settlement engine (refused, broadcast, confirmed, failed after broadcast, resubmitted, ...).\n# TYPE farebox_settlement_events_total counter\n"...)
	for k := settle.EventReserved; k <= settle.EventUnresolved; k++ {
		b = fmt.Appendf(b, "farebox_settlement_events_total{event=%q} %d\n", k, pc.events[k].Load())
	}
	b = s.appendMargins(b)
	return c.Blob(http.StatusOK, "text/plain; version=0.0.4", b)
}

// appendMargins writes, per model, what its answers were charged and, for
// a resold model, what it paid upstream and whether its wallet runs low.
func (s *Server) appendMargins(b []byte) []byte {
	b = append(b, "# HELP farebox_charged_atomic_total USDC (atomic units) settled for each model's answers.\n# TYPE farebox_charged_atomic_total counter\n"...)
	for _, name := range s.order {
		b = fmt.Appendf(b, "farebox_charged_atomic_total{model=%q} %d\n", name, s.routes[name].charged.Load())
	}
	var resold []string
	for _, name := range s.order {
		if _, ok := s.routes[name].model.(reseller); ok {
			resold = append(resold, name)
		}
	}
	if len(resold) == 0 {
		return b
	}
	family := func(name, typ, help string, v func(r reseller) string) {
		b = fmt.Appendf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
		for _, m := range resold {
			b = fmt.Appendf(b, "%s{model=%q} %s\n", name, m, v(s.routes[m].model.(reseller)))
		}
	}
	family("farebox_upstream_signed_atomic_total", "counter", "USDC (atomic units) the wallet signed for a resold model's upstream.",
		func(r reseller) string { signed, _ := r.Spent(); return signed.String() })
	family("farebox_upstream_paid_atomic_total", "counter", "USDC (atomic units) the upstream's receipts show settled.",
		func(r reseller) string { _, paid := r.Spent(); return paid.String() })
	family("farebox_reseller_wallet_low", "gauge", "1 when the wallet could not pay the upstream at its last check: the operator's alert.",
		func(r reseller) string { return map[bool]string{true: "1", false: "0"}[r.WalletLow()] })
	return b
}
