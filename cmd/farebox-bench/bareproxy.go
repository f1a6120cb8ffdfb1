package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
)

// serveBareProxy is the floor arm: echo in front of httputil.ReverseProxy,
// forwarding bytes to upstream with no parsing and no payment. It runs in a
// child process of the harness (flag -serve-bare-proxy) so its CPU and
// memory are its own.
func serveBareProxy(addr, upstream string) error {
	h, err := bareProxy(upstream)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}

// bareProxy is the bare proxy's handler: every path forwarded to upstream
// (scheme://host) as is, every write flushed at once.
func bareProxy(upstream string) (http.Handler, error) {
	target, err := url.Parse(upstream)
	if err != nil {
		return nil, err
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host = target.Scheme, target.Host
			r.Out.Host = target.Host
		},
		// Flush every write at once, as a streaming gateway must.
		FlushInterval: -1,
		Transport: &http.Transport{
			MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: 90 * time.Second,
			DisableCompression: true,
		},
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Any("/*", echo.WrapHandler(rp))
	return e, nil
}
