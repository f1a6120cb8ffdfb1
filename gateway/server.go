// Package gateway is farebox's HTTP server: routes, middleware, the payment
// lifecycle around each call, and the mapping of every failure to an
// OpenAI-shaped error. It wires responses, the upstreams and x402 together.
package gateway

import (
	"context"
	"errors"
	"github.com/farebox/farebox/charge"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/pool"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// Server is one farebox instance.
type Server struct {
	cfg     Config
	hosted  responses.HostedPolicy // tools.hosted
	log     *slog.Logger
	echo    *echo.Echo
	http    *http.Server
	routes  map[string]*route
	order   []string            // model names in config order, for /v1/models
	refunds charge.RefundOffers // the refund offer, by resource URL
	pay     *payments
	// circuits are the pools' supplier circuits (poolCircuits).
	circuits pool.Circuits
	// counts bounds each client's upstream token counts (input_tokens.go).
	counts countLimiter

	metrics       *metrics
	promHandler   http.Handler
	metricsToken  string
	metricsLn     net.Listener // metrics.addr, when /metrics has its own
	metricsHTTP   *http.Server
	admin         adminParts   // the admin API and dashboard (admin:)
	probeHTTP     *http.Server // answers probes over the connection cap
	overCapAnswer []byte       // the 503 a connection over the cap gets
	maxConns      int
	conns         atomic.Int64 // open connections
	busy          atomic.Int64 // calls in flight
	bodyBytes     atomic.Int64 // bytes of request bodies read and not yet released
}

// New builds a server from cfg. opts supplies what cannot come from a file
// (in-process models and chains, test doubles).
func New(cfg Config, opts Options) (*Server, error) {
	cfg = cfg.withDefaults()
	hosted, err := cfg.Tools.hostedPolicy()
	if err != nil {
		return nil, err
	}
	if _, _, err := cfg.storeSetting(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, hosted: hosted, log: opts.logger(cfg.LogLevel), metrics: newMetrics()}
	for _, w := range cfg.publicURLWarnings() {
		s.log.Warn(w)
	}
	pay, err := newPayments(cfg, opts, s.log)
	if err != nil {
		return nil, err
	}
	s.pay = pay
	pay.metrics = s.metrics
	pay.seller = pay.newSeller(cfg)
	s.metrics.registerServer(s)
	if err := s.buildRoutes(opts); err != nil {
		pay.close()
		return nil, err
	}
	s.metrics.registerMargins(s) // per model: after the routes
	s.metrics.registerBooks(s)
	for _, f := range s.pay.schemeMetrics {
		f(s.metrics)
	}
	if err := s.setupAdmin(opts.getenv()); err != nil {
		pay.close()
		return nil, err
	}
	s.startCostSampler()
	s.echo = s.newEcho()
	s.maxConns = connCap(cfg.Limits.MaxConnections)
	s.overCapAnswer = rawAnswer(errOverloaded("open connections"))
	errorLog := slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)
	s.http = &http.Server{
		Handler:           s.guard(s.echo),
		ReadHeaderTimeout: time.Duration(cfg.ReadHeaderTimeout),
		IdleTimeout:       time.Duration(cfg.IdleTimeout),
		MaxHeaderBytes:    cfg.Limits.MaxHeaderBytes,
		ErrorLog:          errorLog,
	}
	s.probeHTTP = &http.Server{Handler: s.http.Handler, ReadHeaderTimeout: time.Second, ErrorLog: errorLog,
		MaxHeaderBytes: cfg.Limits.MaxHeaderBytes}
	s.probeHTTP.SetKeepAlivesEnabled(false) // one probe per over-cap connection
	if err := s.setupMetrics(opts.getenv()); err != nil {
		pay.close()
		return nil, err
	}
	return s, nil
}

func (s *Server) newEcho() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.httpErrorHandler
	e.Use(middleware.RequestIDWithConfig(middleware.RequestIDConfig{TargetHeader: "X-Request-Id"}))
	e.Use(s.accessLog)
	if cors := s.cors(); cors != nil {
		e.Use(cors)
	}
	e.Use(s.limitOtherBodies)
	e.POST("/v1/responses", s.handleResponses, requireJSON)
	e.GET("/v1/responses", s.handleRefund)
	e.POST("/v1/responses/input_tokens", s.handleInputTokens, requireJSON)
	e.POST("/v1/chat/completions", s.handleChat, requireJSON)
	e.POST("/v1/messages", s.handleMessages, requireJSON)
	e.POST("/v1/messages/count_tokens", s.handleCountTokens, requireJSON)
	e.POST("/v1/responses/compact", s.handleStored)
	e.GET("/v1/responses/:id", s.handleStored)
	e.DELETE("/v1/responses/:id", s.handleStored)
	e.POST("/v1/responses/:id/cancel", s.handleStored)
	e.GET("/v1/responses/:id/input_items", s.handleStored)
	e.GET("/v1/models", s.handleModels)
	e.GET("/v1/models/:model", s.handleModel)
	e.GET("/healthz", s.handleHealthz)
	e.GET("/readyz", s.handleReadyz)
	if s.cfg.Metrics.Addr == "" {
		e.GET("/metrics", s.handleMetrics)
	}
	if s.cfg.Admin.Addr == "" {
		s.adminRoutes(e)
	}
	return e
}

// Handler is the HTTP handler, for tests and embedding.
func (s *Server) Handler() http.Handler { return s.echo }

// Serve accepts connections on ln until Shutdown, at most
// limits.max_connections at once (see connLimiter), and serves /metrics on
// its own address when metrics.addr is set.
func (s *Server) Serve(ln net.Listener) error {
	if s.metricsHTTP != nil {
		go s.metricsHTTP.Serve(s.metricsLn)
	}
	if s.admin.http != nil {
		go s.admin.http.Serve(s.admin.ln)
	}
	limited := s.limitListener(ln)
	go s.probeHTTP.Serve(limited.probes)
	err := s.http.Serve(limited)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting connections and lets open responses (streams
// and their settlements included: both run inside the handler) finish
// until ctx ends; then it closes what is left.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.http.Shutdown(ctx)
	if err != nil {
		s.http.Close()
	}
	s.probeHTTP.Close()
	if s.metricsHTTP != nil {
		s.metricsHTTP.Close()
		s.metricsLn.Close()
	}
	if s.admin.http != nil {
		s.admin.http.Close()
		s.admin.ln.Close()
	}
	s.pay.close()
	return err
}

// accessLog logs one structured line per request and counts it on
// /metrics. A client that left before its answer ended is logged and
// counted as 499, with what its call cost.
func (s *Server) accessLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		res := c.Response()
		var ttfb time.Duration
		res.Before(func() { ttfb = time.Since(start) })
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		took := time.Since(start)
		ctx := c.Request().Context()
		status := res.Status
		cause, _ := c.Get(causeKey).(error)
		if ctx.Err() != nil && !errors.Is(cause, errSlowBody) {
			status = statusClientGone
		}
		model, _ := c.Get(modelKey).(string)
		label := model
		if _, known := s.routes[model]; !known && model != "" {
			label = "unknown" // client-chosen names would make unbounded series
		}
		route := c.Path()
		if route == "" || c.Get(unmatchedKey) != nil {
			route = "unmatched"
		}
		s.metrics.observe(route, label, status, took, ttfb)
		if paidRoute(route) {
			s.bookCall(c, s.routes[model], status)
		}
		level := slog.LevelInfo
		if status >= 500 {
			level = slog.LevelError
		}
		if !s.log.Enabled(ctx, level) {
			return nil
		}
		attrs := []slog.Attr{
			slog.String("id", res.Header().Get("X-Request-Id")),
			slog.String("method", c.Request().Method),
			slog.String("path", c.Request().URL.Path),
			slog.Int("status", status),
			slog.Duration("took", took),
		}
		if model != "" {
			attrs = append(attrs, slog.String("model", model))
		}
		if sale, ok := c.Get(chargeKey).(*charge.Sale); ok {
			attrs = append(attrs, sale.Fare.LogAttrs()...)
		}
		if sup, ok := c.Get(supplierKey).(string); ok {
			attrs = append(attrs, slog.String("supplier", sup))
		}
		if cause != nil {
			attrs = append(attrs, slog.String("error", cause.Error()))
		}
		s.log.LogAttrs(ctx, level, "request", attrs...)
		return nil
	}
}

const (
	modelKey  = "farebox.model"
	chargeKey = "farebox.charge"
)
