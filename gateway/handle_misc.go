package gateway

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// handleModels serves GET /v1/models: the OpenAI list shape, with each
// model's price per call.
func (s *Server) handleModels(c echo.Context) error {
	if c.Request().Header.Get("anthropic-version") != "" {
		return s.anthropicModels(c)
	}
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
		return errModelNotFound(c.Param("model"), s.order)
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
