package gateway

import (
	"crypto/subtle"
	"fmt"
	"github.com/farebox/farebox/charge"
	"github.com/farebox/farebox/x402/settle"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// statusClientGone is nginx's "client closed request": logged and counted
// for a client that left before its answer ended.
const statusClientGone = 499

// metrics is one server's Prometheus registry: its own, not the global
// one, so many servers in one process (tests) do not collide.
type metrics struct {
	reg *prometheus.Registry

	requests  *prometheus.CounterVec   // route, model, status
	duration  *prometheus.HistogramVec // route
	ttfb      *prometheus.HistogramVec // route
	upstream  *prometheus.HistogramVec // model
	payments  *prometheus.CounterVec   // outcome, reason
	settling  prometheus.Histogram
	streams   prometheus.Gauge
	shed      *prometheus.CounterVec // limit
	keepalive prometheus.Counter
	pools     *poolMetrics // made by the first pool
}

// latencyBuckets span a probe (100 µs) to a long stream (10 min).
var latencyBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}

func newMetrics() *metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	f := registrar{reg}
	return &metrics{
		reg: reg,
		requests: f.counterVec("farebox_http_requests_total",
			"HTTP requests by route, model and status (499: the client left first).", "route", "model", "status"),
		duration: f.histogramVec("farebox_http_request_duration_seconds",
			"Time from the request's headers to the end of its answer.", "route"),
		ttfb: f.histogramVec("farebox_http_time_to_first_byte_seconds",
			"Time from the request's headers to the answer's status line.", "route"),
		upstream: f.histogramVec("farebox_upstream_duration_seconds",
			"Time the upstream model took to answer (a whole stream included).", "model"),
		payments: f.counterVec("farebox_payments_total",
			"Payments by outcome (offered, refused, malformed, settled, pending, failed, refunded) and x402 reason.", "outcome", "reason"),
		settling: f.histogram("farebox_settlement_duration_seconds", "Time one settlement took."),
		streams:  f.gauge("farebox_open_streams", "SSE streams being served."),
		shed: f.counterVec("farebox_limit_refusals_total",
			"Connections and requests cut off or refused by a limit (connections, in_flight, slow_body).", "limit"),
		keepalive: f.counter("farebox_sse_keepalives_total", "SSE keep-alive comment lines written."),
	}
}

// registrar registers what it makes on one registry.
type registrar struct{ reg *prometheus.Registry }

func (f registrar) counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(c)
	return c
}

func (f registrar) histogramVec(name, help string, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: latencyBuckets}, labels)
	f.reg.MustRegister(h)
	return h
}

func (f registrar) histogram(name, help string) prometheus.Histogram {
	h := prometheus.NewHistogram(prometheus.HistogramOpts{Name: name, Help: help, Buckets: latencyBuckets})
	f.reg.MustRegister(h)
	return h
}

func (f registrar) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	f.reg.MustRegister(g)
	return g
}

func (f registrar) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	f.reg.MustRegister(c)
	return c
}

func (f registrar) counterFunc(name, help string, labels prometheus.Labels, v func() float64) {
	f.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help, ConstLabels: labels}, v))
}

func (f registrar) gaugeFunc(name, help string, v func() float64) {
	f.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, v))
}

// registerServer adds the series read from the server's own counters: the
// payment counts under their historical names (dashboards use them), the
// settlement queue, requests in flight and open connections.
func (m *metrics) registerServer(s *Server) {
	f := registrar{m.reg}
	pc := &s.pay.counts
	for _, c := range []struct {
		name, help string
		v          func() int64
	}{
		{"farebox_settlements_total", "Settlements that moved the money.", pc.settled.Load},
		{"farebox_settlement_failures_total", "Settlements that failed.", pc.failed.Load},
		{"farebox_settlements_pending_total", "Settlements submitted whose outcome was unknown when answering.", pc.pending.Load},
		{"farebox_authorizations_released_total", "Payments released because nothing was served.", pc.released.Load},
		{"farebox_authorizations_kept_total", "Answers served, or model runs, whose settlement failed: the authorization stays spent and the payer is in debt.", pc.kept.Load},
		{"farebox_payments_refused_total", "Payments refused or malformed.", pc.refused.Load},
	} {
		f.counterFunc(c.name, c.help, nil, func() float64 { return float64(c.v()) })
	}
	for o := charge.Settled; o <= charge.Replayed; o++ {
		f.counterFunc("farebox_charges_total", "Paid calls by the outcome of their charge.",
			prometheus.Labels{"outcome": o.String()}, func() float64 { return float64(pc.outcomes[o].Load()) })
	}
	for k := settle.EventReserved; k <= settle.EventAdopted; k++ {
		f.counterFunc("farebox_settlement_events_total", "Steps of purchases in the settlement engine (refused, broadcast, confirmed, failed after broadcast, resubmitted, ...).",
			prometheus.Labels{"event": k.String()}, func() float64 { return float64(pc.events[k].Load()) })
	}
	f.gaugeFunc("farebox_settlements_in_flight", "Settlements running (the settlement queue).",
		func() float64 { return float64(s.pay.inflight.count()) })
	f.gaugeFunc("farebox_requests_in_flight", "Calls being served (counted against limits.max_in_flight).",
		func() float64 { return float64(s.busy.Load()) })
	f.gaugeFunc("farebox_request_body_bytes", "Bytes of request bodies read and held (counted against limits.max_body_bytes).",
		func() float64 { return float64(s.bodyBytes.Load()) })
	f.gaugeFunc("farebox_open_connections", "Open client connections (counted against limits.max_connections).",
		func() float64 { return float64(s.conns.Load()) })
}

// observe counts one finished request.
func (m *metrics) observe(route, model string, status int, took, ttfb time.Duration) {
	m.requests.WithLabelValues(route, model, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route).Observe(took.Seconds())
	if ttfb > 0 {
		m.ttfb.WithLabelValues(route).Observe(ttfb.Seconds())
	}
}

// payment counts one payment event.
func (m *metrics) payment(outcome, reason string) {
	m.payments.WithLabelValues(outcome, reason).Inc()
}

// handleMetrics serves GET /metrics on the main listener: the registry in
// the Prometheus text format, behind the metrics token when one is set,
// else open when the operator opened it, else behind the admin token.
func (s *Server) handleMetrics(c echo.Context) error {
	switch {
	case s.metricsToken != "":
		if !bearerIs(c, s.metricsToken) {
			return errMetricsUnauthorized(c)
		}
	case s.cfg.Metrics.Public:
	case s.admin.token != "":
		if !bearerIs(c, s.admin.token) {
			return errMetricsUnauthorized(c)
		}
	default:
		return errMetricsClosed()
	}
	s.promHandler.ServeHTTP(c.Response(), c.Request())
	return nil
}

// handleOwnMetrics serves GET /metrics on metrics.addr: the address is the
// operator's choice, so only the metrics token guards it.
func (s *Server) handleOwnMetrics(c echo.Context) error {
	if s.metricsToken != "" && !bearerIs(c, s.metricsToken) {
		return errMetricsUnauthorized(c)
	}
	s.promHandler.ServeHTTP(c.Response(), c.Request())
	return nil
}

func bearerIs(c echo.Context, tok string) bool {
	got := c.Request().Header.Get("Authorization")
	return subtle.ConstantTimeCompare([]byte(got), []byte("Bearer "+tok)) == 1
}

// setupMetrics reads the metrics config: the token and, when metrics have
// their own address, that listener and the echo serving it.
func (s *Server) setupMetrics(getenv func(string) string) error {
	s.promHandler = promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
	mc := s.cfg.Metrics
	if mc.BearerTokenEnv != "" {
		if s.metricsToken = getenv(mc.BearerTokenEnv); s.metricsToken == "" {
			return fmt.Errorf("metrics.bearer_token_env: $%s is empty", mc.BearerTokenEnv)
		}
	}
	if mc.Addr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", mc.Addr)
	if err != nil {
		return fmt.Errorf("metrics.addr: %w", err)
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.httpErrorHandler
	e.GET("/metrics", s.handleOwnMetrics)
	s.metricsLn = ln
	s.metricsHTTP = &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute,
		ErrorLog: s.http.ErrorLog}
	return nil
}

// MetricsAddr is the address /metrics listens on when it has its own
// (metrics.addr), else "".
func (s *Server) MetricsAddr() string {
	if s.metricsLn == nil {
		return ""
	}
	return s.metricsLn.Addr().String()
}

// registerMargins adds, per model, what its answers were charged and, for
// a resold model, what its wallet signed and paid upstream and whether
// the wallet runs low (the operator's alert).
func (m *metrics) registerMargins(s *Server) {
	f := registrar{m.reg}
	for _, name := range s.order {
		rt := s.routes[name]
		model := prometheus.Labels{"model": name}
		f.counterFunc("farebox_charged_atomic_total", "USDC (atomic units) settled for each model's answers.", model,
			func() float64 { return float64(rt.product.Charged()) })
		r, ok := rt.model.(reseller)
		if !ok {
			continue
		}
		f.counterFunc("farebox_upstream_signed_atomic_total", "USDC (atomic units) the wallet signed for a resold model's upstream.", model,
			func() float64 { signed, _ := r.Spent(); v, _ := signed.Float64(); return v })
		f.counterFunc("farebox_upstream_paid_atomic_total", "USDC (atomic units) the wallet paid a resold model's upstream: what it signed (for an upto seller, what the chain proved it moved), unless the upstream's receipt refused it.", model,
			func() float64 { _, paid := r.Spent(); v, _ := paid.Float64(); return v })
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "farebox_reseller_wallet_low",
			Help: "1 when the wallet could not pay the upstream at its last check: the operator's alert.", ConstLabels: model},
			func() float64 {
				if r.WalletLow() {
					return 1
				}
				return 0
			}))
	}
}
