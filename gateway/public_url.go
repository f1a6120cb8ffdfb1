package gateway

import (
	"net"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
)

// publicBase is the origin this farebox names in its offers (the resource
// a payer signs for, the one sent to the facilitator and declared to its
// catalogue): public_url when set; else the request's Host only if it is
// loopback or in public_hosts, and otherwise the listen address. A
// client's Host header is its own word: a farebox without public_url would
// otherwise put attacker.example in its 402 and in what it tells the
// facilitator.
func (s *Server) publicBase(c echo.Context) string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL
	}
	scheme := "http"
	if c.Scheme() == "https" {
		scheme = "https"
	}
	host := c.Request().Host
	if !loopbackHost(host) && !slices.Contains(s.cfg.PublicHosts, strings.ToLower(host)) {
		host = listenHost(s.cfg.Addr)
	}
	return scheme + "://" + host
}

// loopbackHost reports whether a Host header (host or host:port) names
// this machine.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// listenHost is the listen address as a Host: an unspecified address
// (":8402", "0.0.0.0:8402") becomes localhost.
func listenHost(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "localhost"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}

// publicURLWarnings: a farebox reachable from elsewhere without public_url
// names only its listen address (or a public_hosts entry) in its offers.
func (c Config) publicURLWarnings() []string {
	if c.PublicURL != "" || c.Addr == "" || loopbackHost(c.Addr) {
		return nil
	}
	return []string{"public_url is unset while farebox listens on " + c.Addr + " beyond this machine: offers name " +
		"http://" + listenHost(c.Addr) + " (or a Host listed in public_hosts), not the Host a client sends; set public_url " +
		"to the URL clients reach farebox at"}
}
