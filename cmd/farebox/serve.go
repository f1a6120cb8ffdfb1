package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/farebox/farebox/gateway"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("config", getenvOr(getenv, "FAREBOX_CONFIG", "farebox.yaml"), "config file (env FAREBOX_CONFIG)")
	addr := fs.String("addr", "", "listen address, overrides the config (env FAREBOX_ADDR)")
	logLevel := fs.String("log-level", "", "debug, info, warn or error (env FAREBOX_LOG_LEVEL)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := gateway.LoadConfig(*path)
	if err != nil {
		return err
	}
	if err := cfg.ApplyEnv(getenv); err != nil {
		return err
	}
	if *addr != "" {
		cfg.Addr = *addr
	}
	if *logLevel != "" {
		cfg.LogLevel = *logLevel
	}
	srv, err := gateway.New(cfg, gateway.Options{})
	if err != nil {
		return err
	}
	if a := getenv("FAREBOX_PPROF_ADDR"); a != "" {
		if err := servePprof(a, stderr); err != nil {
			return err
		}
	}
	return serveUntilDone(ctx, srv, cfg, func(base string) {
		fmt.Fprintf(stdout, "farebox listening: base URL %s\n", base)
	})
}

// serveUntilDone listens, tells ready the base URL and serves until ctx
// ends; then it lets open streams finish within the shutdown deadline.
func serveUntilDone(ctx context.Context, srv *gateway.Server, cfg gateway.Config, ready func(baseURL string)) error {
	addr := cfg.Addr
	if addr == "" {
		addr = "127.0.0.1:8402"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	ready("http://" + ln.Addr().String() + "/v1")
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout.D(30*time.Second))
	defer cancel()
	return srv.Shutdown(sctx)
}

func getenvOr(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}

// servePprof exposes net/http/pprof on its own listener (keep it on
// loopback): profiles of a farebox under real load, for operators and the
// benchmark harness.
func servePprof(addr string, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("FAREBOX_PPROF_ADDR: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	fmt.Fprintf(stderr, "farebox: pprof on http://%s/debug/pprof/\n", ln.Addr())
	go http.Serve(ln, mux)
	return nil
}
