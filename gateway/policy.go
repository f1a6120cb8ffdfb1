package gateway

import (
	"mime"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// cors is the browser policy of cors.allowed_origins: nil (no CORS headers
// at all, so browsers keep other sites' pages out) unless origins are
// configured. The x402 headers are exposed to the origins allowed, so a
// browser wallet can read the offer and the receipt.
func (s *Server) cors() echo.MiddlewareFunc {
	origins := s.cfg.CORS.AllowedOrigins
	if len(origins) == 0 {
		return nil
	}
	return middleware.CORSWithConfig(middleware.CORSConfig{
		// The policy is the API's: the books and /metrics answer no
		// preflight, so no page of another origin is told it may read them.
		Skipper: func(c echo.Context) bool {
			p := c.Request().URL.Path
			return p == "/admin" || strings.HasPrefix(p, "/admin/") || p == "/metrics"
		},
		AllowOrigins: origins,
		AllowMethods: []string{http.MethodGet, http.MethodPost, http.MethodOptions},
		AllowHeaders: []string{"*", "Authorization", "Content-Type", "PAYMENT-SIGNATURE", "X-PAYMENT"},
		ExposeHeaders: []string{"PAYMENT-REQUIRED", "PAYMENT-RESPONSE", "X-PAYMENT-RESPONSE",
			"X-Request-Id", "Retry-After", "Retry-After-Ms", "X-Should-Retry", droppedToolsHeader},
	})
}

// requireJSON refuses a body that is not JSON with a 415. text/plain and
// the form types are the ones a web page may POST to any origin without a
// preflight; a browser's POST without a Content-Type is refused too.
func requireJSON(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		ct := r.Header.Get("Content-Type")
		if ct == "" {
			if r.Header.Get("Origin") != "" {
				return errUnsupportedMedia("(none)")
			}
			return next(c)
		}
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			// A page's cross-origin "simple" request (text/plain, form data)
			// needs no preflight: refuse it. Clients outside browsers send no
			// Origin and some (x402-fetch) post JSON as text/plain: served.
			if r.Header.Get("Origin") != "" {
				return errUnsupportedMedia(ct)
			}
		}
		return next(c)
	}
}

// limitOtherBodies applies limits.other_body_limit to every route but the
// conversations (POST /v1/responses, /v1/chat/completions, /v1/messages
// and their token counts, which read their bodies under body_limit):
// none of the others takes a body.
func (s *Server) limitOtherBodies(next echo.HandlerFunc) echo.HandlerFunc {
	limit := s.cfg.Limits.OtherBodyLimit
	return func(c echo.Context) error {
		r := c.Request()
		if r.Method == http.MethodPost && conversationRoute(r.URL.Path) {
			// A conversation, under body_limit (the token count reads the same bodies).
			return next(c)
		}
		if r.ContentLength > limit {
			return errTooLarge(limit)
		}
		if r.ContentLength < 0 {
			r.Body = http.MaxBytesReader(c.Response(), r.Body, limit)
		}
		return next(c)
	}
}
