// Package gateway is farebox's HTTP server: routes, middleware, the payment
// lifecycle around each call, and the mapping of every failure to an
// OpenAI-shaped error. It wires responses, the upstreams and x402 together.
package gateway

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// Server is one farebox instance.
type Server struct {
	cfg    Config
	log    *slog.Logger
	echo   *echo.Echo
	http   *http.Server
	routes map[string]*route
	order  []string // model names in config order, for /v1/models
	pay    *payments
}

// New builds a server from cfg. opts supplies what cannot come from a file
// (in-process models and chains, test doubles).
func New(cfg Config, opts Options) (*Server, error) {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, log: opts.logger(cfg.LogLevel)}
	pay, err := newPayments(cfg, opts, s.log)
	if err != nil {
		return nil, err
	}
	s.pay = pay
	if err := s.buildRoutes(opts); err != nil {
		return nil, err
	}
	s.echo = s.newEcho()
	s.http = &http.Server{
		Handler:           s.echo,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout.D(10 * time.Second),
		IdleTimeout:       cfg.IdleTimeout.D(120 * time.Second),
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	return s, nil
}

func (s *Server) newEcho() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.httpErrorHandler
	e.Use(middleware.RequestIDWithConfig(middleware.RequestIDConfig{TargetHeader: "X-Request-Id"}))
	e.Use(s.accessLog)
	e.Use(middleware.CORSWithConfig(middleware.CORSConfig{
		AllowOrigins: []string{"*"},
		AllowMethods: []string{http.MethodGet, http.MethodPost, http.MethodOptions},
		AllowHeaders: []string{"*", "Authorization", "Content-Type", "PAYMENT-SIGNATURE", "X-PAYMENT"},
		ExposeHeaders: []string{"PAYMENT-REQUIRED", "PAYMENT-RESPONSE", "X-PAYMENT-RESPONSE",
			"X-Request-Id", "Retry-After", "Retry-After-Ms", "X-Should-Retry"},
	}))
	e.POST("/v1/responses", s.handleResponses)
	e.GET("/v1/models", s.handleModels)
	e.GET("/v1/models/:model", s.handleModel)
	e.GET("/healthz", s.handleHealthz)
	e.GET("/readyz", s.handleReadyz)
	e.GET("/metrics", s.handleMetrics)
	return e
}

// Handler is the HTTP handler, for tests and embedding.
func (s *Server) Handler() http.Handler { return s.echo }

// Serve accepts connections on ln until Shutdown.
func (s *Server) Serve(ln net.Listener) error {
	err := s.http.Serve(ln)
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
	s.pay.close()
	return err
}

// accessLog logs one structured line per request.
func (s *Server) accessLog(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		start := time.Now()
		err := next(c)
		if err != nil {
			c.Error(err)
		}
		res := c.Response()
		level := slog.LevelInfo
		if res.Status >= 500 {
			level = slog.LevelError
		}
		if !s.log.Enabled(c.Request().Context(), level) {
			return nil
		}
		attrs := []slog.Attr{
			slog.String("id", res.Header().Get("X-Request-Id")),
			slog.String("method", c.Request().Method),
			slog.String("path", c.Request().URL.Path),
			slog.Int("status", res.Status),
			slog.Duration("took", time.Since(start)),
		}
		if m, ok := c.Get(modelKey).(string); ok {
			attrs = append(attrs, slog.String("model", m))
		}
		if cause, ok := c.Get(causeKey).(error); ok {
			attrs = append(attrs, slog.String("error", cause.Error()))
		}
		s.log.LogAttrs(c.Request().Context(), level, "request", attrs...)
		return nil
	}
}

const modelKey = "farebox.model"
