package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"time"

	"github.com/farebox/farebox/gateway"
)

// Main is one running gateway in the shape of benbjohnson/wtf's cmd/wtfd
// Main: the serve and dev commands fill its Config and Options, Run's steps
// open what it needs in order, and Close closes all of it in reverse, so
// every listener and store opened is closed on shutdown or a failed start.
type Main struct {
	// Config and Options build the gateway.
	Config  gateway.Config
	Options gateway.Options
	// AddrFlag names what moves the listen address, for error messages.
	AddrFlag string
	// PprofAddr, when set, serves net/http/pprof there (FAREBOX_PPROF_ADDR).
	PprofAddr string
	// Stdout gets the banner, Stderr the pprof notice.
	Stdout, Stderr io.Writer

	// BaseURL is the gateway's base URL once it listens.
	BaseURL string

	ln      net.Listener
	server  *gateway.Server
	pprof   *http.Server
	closers []func() error // in opening order; Close runs them backwards
	served  chan error
}

// listen takes the gateway's address first, so a taken one fails before
// anything else (a dev chain, a relayer) is started.
func (m *Main) listen() error {
	addr := m.Config.Addr
	if addr == "" {
		addr = "127.0.0.1:8402"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return listenError(addr, m.AddrFlag, err)
	}
	m.ln = ln
	m.onClose(func() error { return ignoreClosed(ln.Close()) })
	m.BaseURL = "http://" + ln.Addr().String() + "/v1"
	return nil
}

// build makes the gateway (and opens its stores and chain clients), to be
// closed with the rest.
func (m *Main) build() error {
	srv, err := gateway.New(m.Config, m.Options)
	if err != nil {
		return err
	}
	m.server = srv
	m.onClose(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), m.Config.ShutdownTimeout.D(30*time.Second))
		defer cancel()
		return srv.Shutdown(ctx)
	})
	return nil
}

// serve serves the built gateway on the listener (and pprof, when asked)
// until Close.
// adminURL is where the admin dashboard is served, "" when it is off.
func (m *Main) adminURL() string {
	if m.Config.Admin.TokenEnv == "" || m.server == nil {
		return ""
	}
	if a := m.server.AdminAddr(); a != "" {
		return "http://" + a + "/admin"
	}
	return strings.TrimSuffix(m.BaseURL, "/v1") + "/admin"
}

func (m *Main) serve() error {
	srv := m.server
	if m.PprofAddr != "" {
		if err := m.servePprof(); err != nil {
			return err
		}
	}
	m.served = make(chan error, 1)
	go func() { m.served <- srv.Serve(m.ln) }()
	return nil
}

// servePprof exposes net/http/pprof on its own listener (keep it on
// loopback): profiles of a farebox under real load, for operators and the
// benchmark harness.
func (m *Main) servePprof() error {
	ln, err := net.Listen("tcp", m.PprofAddr)
	if err != nil {
		return listenError(m.PprofAddr, "FAREBOX_PPROF_ADDR", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	m.pprof = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	m.onClose(func() error { return ignoreClosed(m.pprof.Close()) })
	fmt.Fprintf(m.Stderr, "farebox: pprof on http://%s/debug/pprof/\n", ln.Addr())
	go m.pprof.Serve(ln)
	return nil
}

// Done reports a gateway that stopped serving by itself (nil channel
// before Run).
func (m *Main) Done() <-chan error { return m.served }

// onClose registers how to close something just opened.
func (m *Main) onClose(f func() error) { m.closers = append(m.closers, f) }

// Close shuts the gateway down (open streams may finish within the
// shutdown timeout) and closes everything else in reverse opening order.
func (m *Main) Close() error {
	var errs []error
	for i := len(m.closers) - 1; i >= 0; i-- {
		errs = append(errs, m.closers[i]())
	}
	m.closers = nil
	return errors.Join(errs...)
}

func ignoreClosed(err error) error {
	if errors.Is(err, net.ErrClosed) || errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
