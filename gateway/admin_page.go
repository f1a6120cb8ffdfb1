package gateway

import (
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"html"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// adminPages are the dashboard and its login form: plain HTML with inline
// CSS and script (no build step, no CDN), which read only the admin API.
//
//go:embed adminpage/*.html
var adminPages embed.FS

// handleAdminPage serves GET /admin: the dashboard to a holder of the
// token (whose bearer header also becomes the page's cookie), else the
// login form to a browser and a 401 error object to anything else.
func (s *Server) handleAdminPage(c echo.Context) error {
	if s.adminAuthorized(c) {
		s.setAdminCookie(c)
		return s.adminHTML(c, http.StatusOK, "adminpage/dashboard.html", "")
	}
	if !strings.Contains(c.Request().Header.Get(echo.HeaderAccept), "text/html") {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="farebox admin"`)
		return errAdminUnauthorized()
	}
	return s.adminHTML(c, http.StatusUnauthorized, "adminpage/login.html", "")
}

// handleAdminLogin serves POST /admin, the login form: the right token
// sets the cookie and shows the dashboard.
func (s *Server) handleAdminLogin(c echo.Context) error {
	tok := c.FormValue("token")
	if tok == "" || !s.tokenMatches(tok) {
		return s.adminHTML(c, http.StatusUnauthorized, "adminpage/login.html", "That is not the admin token.")
	}
	s.setAdminCookie(c)
	return c.Redirect(http.StatusSeeOther, "/admin")
}

// adminHTML writes an embedded page with a fresh script nonce (the page's
// Content-Security-Policy allows its own inline script and nothing else)
// and, for the login form, a message.
func (s *Server) adminHTML(c echo.Context, status int, name, msg string) error {
	page, err := adminPages.ReadFile(name)
	if err != nil {
		return err
	}
	var n [18]byte
	_, _ = rand.Read(n[:])
	nonce := base64.RawURLEncoding.EncodeToString(n[:])
	page = bytes.ReplaceAll(page, []byte("{{nonce}}"), []byte(nonce))
	page = bytes.ReplaceAll(page, []byte("{{message}}"), []byte(html.EscapeString(msg)))
	h := c.Response().Header()
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+nonce+"'; style-src 'unsafe-inline'; "+
		"connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("Referrer-Policy", "same-origin") // "no-referrer" would make the login form's Origin "null"
	return c.HTMLBlob(status, page)
}
