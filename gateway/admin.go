package gateway

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/responses"
	"github.com/labstack/echo/v4"
)

// adminCookie carries the admin token for the dashboard's own requests,
// set by the page's login form (HttpOnly, SameSite=Strict, path /admin).
const adminCookie = "farebox_admin"

// adminParts is the admin API's wiring: its token and, with admin.addr,
// its own listener.
type adminParts struct {
	token string
	ln    net.Listener
	http  *http.Server
}

// setupAdmin reads the admin config: the token (the admin API is off
// without one) and, with admin.addr, the listener and echo serving it.
func (s *Server) setupAdmin(getenv func(string) string) error {
	ac := s.cfg.Admin
	if ac.TokenEnv == "" {
		if ac.Addr != "" {
			return fmt.Errorf("admin.addr is set but admin.token_env is not: the admin API needs a token")
		}
		return nil
	}
	tok := getenv(ac.TokenEnv)
	switch {
	case tok == "":
		return fmt.Errorf("admin.token_env: $%s is empty", ac.TokenEnv)
	case len(tok) < minAdminToken || strings.ContainsAny(tok, " \t\r\n"):
		return fmt.Errorf("admin.token_env: $%s must be one word of at least %d characters", ac.TokenEnv, minAdminToken)
	}
	s.admin.token = tok
	if s.pay.books == nil {
		// No payments, so no journal: the calls are still counted, in memory.
		s.pay.startBooks(books.NewMemoryStore(), nil)
	}
	if ac.Addr == "" {
		return nil
	}
	ln, err := net.Listen("tcp", ac.Addr)
	if err != nil {
		return fmt.Errorf("admin.addr: %w", err)
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.httpErrorHandler
	s.adminRoutes(e)
	s.admin.ln = ln
	s.admin.http = &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	return nil
}

// AdminAddr is the address /admin listens on when it has its own
// (admin.addr), else "".
func (s *Server) AdminAddr() string {
	if s.admin.ln == nil {
		return ""
	}
	return s.admin.ln.Addr().String()
}

// adminRoutes registers the page and the API on e (nothing without a token).
func (s *Server) adminRoutes(e *echo.Echo) {
	if s.admin.token == "" {
		return
	}
	g := e.Group("/admin", s.adminGuard)
	g.GET("", s.handleAdminPage)
	g.POST("", s.handleAdminLogin)
	api := e.Group("/admin/api", s.adminGuard, s.adminAuth)
	api.GET("/summary", s.handleAdminSummary)
	api.GET("/payers", s.handleAdminPayers)
	api.GET("/settlements", s.handleAdminSettlements)
	api.GET("/channels", s.handleAdminChannels)
	api.GET("/suppliers", s.handleAdminSuppliers)
	api.POST("/debts/:payer/forgive", s.handleAdminForgive)
	api.POST("/channels/claim", s.handleAdminClaim)
	api.GET("/export.csv", s.handleAdminExport)
	api.Any("/*", func(c echo.Context) error { return errAdminNotFound(c.Request().URL.Path) })
}

// adminGuard refuses browsers on other sites: a page elsewhere may not
// make the operator's browser read the books or forgive a debt. Requests
// without Origin or Sec-Fetch-Site (curl, scripts) pass; a browser's
// same-origin fetches do.
func (s *Server) adminGuard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		for _, k := range []string{echo.HeaderAccessControlAllowOrigin, echo.HeaderAccessControlAllowCredentials,
			echo.HeaderAccessControlAllowMethods, echo.HeaderAccessControlAllowHeaders, echo.HeaderAccessControlExposeHeaders} {
			h.Del(k) // the gateway's CORS policy is for the API, never for the books
		}
		h.Set("Cache-Control", "no-store")
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		r := c.Request()
		switch r.Header.Get("Sec-Fetch-Site") {
		case "", "same-origin", "none":
		default:
			return errAdminCrossSite()
		}
		if o := r.Header.Get(echo.HeaderOrigin); o != "" && !sameOrigin(o, r) {
			return errAdminCrossSite()
		}
		return next(c)
	}
}

// sameOrigin reports whether origin names the host the request came to.
func sameOrigin(origin string, r *http.Request) bool {
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, r.Host)
}

// adminAuth requires the token, as a bearer header or the login cookie.
func (s *Server) adminAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !s.adminAuthorized(c) {
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="farebox admin"`)
			return errAdminUnauthorized()
		}
		return next(c)
	}
}

func (s *Server) adminAuthorized(c echo.Context) bool {
	if tok, ok := strings.CutPrefix(c.Request().Header.Get("Authorization"), "Bearer "); ok {
		return s.tokenMatches(tok)
	}
	ck, err := c.Cookie(adminCookie)
	return err == nil && s.sessionValid(ck.Value, time.Now())
}

func (s *Server) tokenMatches(tok string) bool {
	return subtle.ConstantTimeCompare([]byte(tok), []byte(s.admin.token)) == 1
}

// setAdminCookie hands the page's own fetches a session (never the token
// itself: a cookie leaked from a browser profile or a proxy's log expires
// and cannot be used as a bearer token).
func (s *Server) setAdminCookie(c echo.Context) {
	c.SetCookie(&http.Cookie{Name: adminCookie, Value: s.newSession(time.Now()), Path: "/admin", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: c.Request().TLS != nil, MaxAge: int(adminSession / time.Second)})
}

func errAdminUnauthorized() *responses.Error {
	return &responses.Error{Status: http.StatusUnauthorized, Type: typeInvalidRequest, Code: codeUnauthorized,
		Message: "The admin API needs Authorization: Bearer <admin token> (farebox dev prints it; see admin.token_env)."}
}

func errAdminCrossSite() *responses.Error {
	return &responses.Error{Status: http.StatusForbidden, Type: typeInvalidRequest, Code: "cross_origin_refused",
		Message: "The admin API answers only its own page and non-browser clients, not pages of other origins."}
}

func errAdminNotFound(path string) *responses.Error {
	return &responses.Error{Status: http.StatusNotFound, Type: typeInvalidRequest, Code: "not_found",
		Message: "No admin route " + path + "."}
}

func errAdminParam(param, msg string) *responses.Error {
	return &responses.Error{Status: http.StatusBadRequest, Type: typeInvalidRequest, Code: "invalid_value",
		Param: param, Message: msg}
}
