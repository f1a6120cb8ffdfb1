package main

import (
	"bytes"
	"context"
	"io"
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
		Transport:     bareTransport(),
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.Any("/*", echo.WrapHandler(bufferedBody(rp)))
	return e, nil
}

// bareTransport is http.DefaultTransport's settings with room for many
// idle connections to the one upstream.
func bareTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns, t.MaxIdleConnsPerHost = 1024, 1024
	t.DisableCompression = true
	return t
}

// bufferedBody reads the (small) request body before forwarding it. Go's
// HTTP/1 server closes an inbound body once the response headers are
// written; the transport, streaming that body upstream, reads it once more
// to check its length, fails, and tears down the upstream connection in the
// middle of a streamed answer (golang/go#40747). Every gateway reads the
// whole body anyway, so this is part of the floor, not extra work.
func bufferedBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 20<<20))
		if err != nil {
			http.Error(w, "bad request body", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.ContentLength = int64(len(b))
		next.ServeHTTP(w, r)
	})
}
