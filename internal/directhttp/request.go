package directhttp

// This file is what a request must be to be carried (http:// only, no
// header injection), how it is rewritten for the wire, and which URLs
// the transport takes at all (Eligible).

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"

	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/http/httpproxy"
)

// checkRequest refuses what this transport does not carry, and header
// fields that could inject lines into the request (as net/http does).
func checkRequest(req *http.Request) error {
	if req.URL == nil {
		return errors.New("directhttp: request without URL")
	}
	if req.URL.Scheme != "http" {
		return fmt.Errorf("directhttp: scheme %q is not carried: only http", req.URL.Scheme)
	}
	if req.URL.Host == "" {
		return errors.New("directhttp: request URL without host")
	}
	for _, r := range req.Method {
		if !httpguts.IsTokenRune(r) {
			return fmt.Errorf("directhttp: invalid method %q", req.Method)
		}
	}
	for k, vv := range req.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return fmt.Errorf("directhttp: invalid header field name %q", k)
		}
		for _, v := range vv {
			if !httpguts.ValidHeaderFieldValue(v) {
				return fmt.Errorf("directhttp: invalid value for header field %q", k)
			}
		}
	}
	return nil
}

// withURLAuth returns req, or a copy with basic auth from the URL's
// userinfo when it has no Authorization header, as net/http's transport does
// (a JSON-RPC URL may carry its credentials so).
func withURLAuth(req *http.Request) *http.Request {
	u := req.URL.User
	if u == nil || req.Header.Get("Authorization") != "" {
		return req
	}
	r := new(http.Request)
	*r = *req
	r.Header = req.Header.Clone()
	if r.Header == nil {
		r.Header = make(http.Header)
	}
	password, _ := u.Password()
	r.SetBasicAuth(u.Username(), password)
	return r
}

// rewind returns req ready to be sent again, or nil if its body cannot be
// replayed.
func rewind(req *http.Request) *http.Request {
	if req.Body == nil || req.Body == http.NoBody {
		return req
	}
	if req.GetBody == nil {
		return nil
	}
	body, err := req.GetBody()
	if err != nil {
		return nil
	}
	r := new(http.Request)
	*r = *req
	r.Body = body
	return r
}

// closeBody closes the body of a request that will not be written, as a
// RoundTripper must.
func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// hostPort is the address to dial for u, port 80 by default.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// Eligible reports whether rawURL is one a Transport should carry (scheme
// http, a host, and no proxy configured for it by the environment), so a
// caller can switch to Transport only where a default transport would have
// dialed the host directly.
//
// It reads HTTP_PROXY and NO_PROXY as http.ProxyFromEnvironment does, but at
// each call (http.ProxyFromEnvironment caches its first reading): call it
// when building a client, not per request.
func Eligible(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return false
	}
	proxy, err := httpproxy.FromEnvironment().ProxyFunc()(u)
	return err == nil && proxy == nil
}
