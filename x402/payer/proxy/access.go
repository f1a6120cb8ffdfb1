package proxy

import (
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/farebox/farebox/x402/payer"
)

// admit decides whether a request may use the proxy: only programs on
// this machine that name it by a loopback Host (DNS rebinding makes a web
// page's requests reach 127.0.0.1 under the page's own host name) and,
// when they send an Origin (a browser does, for a page's requests), one
// the user allowed. nil admits.
func (p *Proxy) admit(r *http.Request) *apiError {
	port := localPort(r)
	if !p.hostAllowed(strings.ToLower(r.Host), port) {
		return &apiError{status: http.StatusMisdirectedRequest, typ: "invalid_request_error", code: "host_not_allowed",
			message: fmt.Sprintf("farebox proxy answers only requests to localhost, 127.0.0.1 or [::1] on port %s, not to Host %q (add --allow-host NAME to allow another name)", port, payer.SellerText(r.Host))}
	}
	if origin := r.Header.Get("Origin"); origin != "" && !slices.Contains(p.allowOrigins, origin) {
		return &apiError{status: http.StatusForbidden, typ: "invalid_request_error", code: "origin_not_allowed",
			message: fmt.Sprintf("farebox proxy does not answer web pages: Origin %q is not allowed (add --allow-origin ORIGIN to let that page use the wallet)", payer.SellerText(origin))}
	}
	return nil
}

// hostAllowed reports whether host (the request's Host, lower case) names
// the proxy: a loopback name or an allowed one, with the proxy's port.
func (p *Proxy) hostAllowed(host, port string) bool {
	for _, n := range []string{"localhost", "127.0.0.1", "[::1]"} {
		if host == n+":"+port || (port == "80" && host == n) {
			return true
		}
	}
	for _, n := range p.allowHosts { // NAME or NAME:PORT
		if n = strings.ToLower(n); host == n || host == n+":"+port {
			return true
		}
	}
	return false
}

// localPort is the port the request arrived on.
func localPort(r *http.Request) string {
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if _, port, err := net.SplitHostPort(a.String()); err == nil {
			return port
		}
	}
	return ""
}

// allowCORS answers an allowed origin's preflight itself and names the
// origin on the answer; done reports that the preflight was answered.
// Only an origin admit let through gets here.
func allowCORS(w http.ResponseWriter, r *http.Request) (done bool) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	if rh := r.Header.Get("Access-Control-Request-Headers"); rh != "" {
		h.Set("Access-Control-Allow-Headers", rh)
	}
	w.WriteHeader(http.StatusNoContent)
	return true
}

// noCORS drops the remote's CORS headers: what a web page may read from
// the proxy is the proxy's decision (AllowOrigins), not the remote's, which
// may allow every origin.
func noCORS(res *http.Response) error {
	for k := range res.Header {
		if strings.HasPrefix(http.CanonicalHeaderKey(k), "Access-Control-") {
			res.Header.Del(k)
		}
	}
	return nil
}
