package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/proxy"
	"github.com/tidwall/gjson"
)

// ProxyMain is `farebox proxy`: a local OpenAI base URL that pays a paid
// endpoint for any client (Codex, LangChain, an SDK) that cannot pay.
type ProxyMain struct {
	Stdout, Stderr io.Writer
	getenv         func(string) string

	upstream, addr string
	pay            *payFlags
	budget         *big.Int // nil: --budget none
	allowRemote    bool
	allowHosts     listFlag
	allowOrigins   listFlag

	// Proxy and BaseURL are set once Run returns.
	Proxy   *proxy.Proxy
	BaseURL string

	server *http.Server
	ln     net.Listener
	served chan error
}

// NewProxyMain returns a proxy command writing to stdout and stderr and
// reading the environment (the payer key) through getenv.
func NewProxyMain(stdout, stderr io.Writer, getenv func(string) string) *ProxyMain {
	return &ProxyMain{Stdout: stdout, Stderr: stderr, getenv: getenv, served: make(chan error, 1)}
}

// ParseFlags reads the flags; the key is read from FAREBOX_PAYER_KEY only,
// never from a flag, which would put it in the shell history and ps.
func (m *ProxyMain) ParseFlags(args []string) error {
	fs := newFlagSet("proxy", "[flags]", "A local OpenAI base URL that pays --upstream's 402s. The payer key comes from\nFAREBOX_PAYER_KEY (hex); without it, the publicly known dev payer key of\n`farebox dev` is used.", m.Stderr)
	upstream := fs.String("upstream", getenvOr(m.getenv, "FAREBOX_BASE_URL", "http://127.0.0.1:8402/v1"), "base URL of the paid endpoint (env FAREBOX_BASE_URL)")
	addr := fs.String("addr", "127.0.0.1:8403", "listen address: clients use http://ADDR/v1 as their OpenAI base URL")
	budget := fs.String("budget", "1", "the most this proxy run may sign in total, in USDC: authorizations' maxima and channel deposits, counted when signed; none lifts it")
	m.pay = addPayFlags(fs.FlagSet, m.getenv, "call")
	fs.BoolVar(&m.allowRemote, "allow-remote", false, "listen on a non-loopback --addr: anyone who reaches it spends the wallet")
	fs.Var(&m.allowHosts, "allow-host", "also answer requests whose Host is NAME (or NAME:PORT), besides localhost, 127.0.0.1 and [::1] on the proxy's port (repeatable)")
	fs.Var(&m.allowOrigins, "allow-origin", "answer browser requests from this origin, like http://localhost:3000 (repeatable); requests with any other Origin are refused")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("proxy takes no arguments, got %q (flags go before them)", strings.Join(fs.Args(), " "))
	}
	m.upstream, m.addr = *upstream, *addr
	if err := m.pay.parse(); err != nil {
		return err
	}
	m.budget = nil
	if *budget != "none" {
		var err error
		if m.budget, err = x402.ParseUSDC(*budget); err != nil {
			return fmt.Errorf("--budget: %w (or none, for no total bound)", err)
		}
	}
	if !m.allowRemote && !loopbackAddr(m.addr) {
		return fmt.Errorf("--addr %s is not a loopback address: whoever reaches the proxy spends the wallet; add --allow-remote if that is meant", m.addr)
	}
	return nil
}

// loopbackAddr reports whether addr listens on this machine only.
func loopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Run learns the upstream's networks, listens and serves; it returns once
// the proxy takes requests.
func (m *ProxyMain) Run(ctx context.Context) error {
	key, err := payerKey(m.getenv, m.Stderr, "farebox proxy", m.pay)
	if err != nil {
		return err
	}
	offers, err := upstreamOffers(ctx, m.upstream)
	if err != nil {
		return err
	}
	tr, err := m.pay.transport(ctx, key, offers, m.Stderr)
	if err != nil {
		return err
	}
	m.Proxy, err = proxy.New(proxy.Config{Upstream: m.upstream, Transport: tr, Budget: m.budget, Log: m.Stderr,
		AllowHosts: m.allowHosts, AllowOrigins: m.allowOrigins})
	if err != nil {
		return err
	}
	if m.ln, err = net.Listen("tcp", m.addr); err != nil {
		return listenError(m.addr, "--addr", err)
	}
	m.BaseURL = "http://" + m.ln.Addr().String() + "/v1"
	m.server = &http.Server{Handler: m.Proxy, ReadHeaderTimeout: 10 * time.Second}
	go func() { m.served <- m.server.Serve(m.ln) }()
	budget := "none (--budget none: each call at most " + x402.FormatUSDC(m.pay.price) + " USDC, no total bound)"
	if m.budget != nil {
		budget = x402.FormatUSDC(m.budget) + " USDC signed at most this run (each call at most " + x402.FormatUSDC(m.pay.price) + " USDC; --budget none lifts it)"
	}
	_, port, _ := net.SplitHostPort(m.ln.Addr().String())
	access := "this machine's programs: Host localhost, 127.0.0.1 or [::1] port " + port + ", no web pages (widen with --allow-host, --allow-origin)"
	if len(m.allowHosts) > 0 || len(m.allowOrigins) > 0 {
		access = fmt.Sprintf("this machine's programs, hosts %v, origins %v", []string(m.allowHosts), []string(m.allowOrigins))
	}
	fmt.Fprintf(m.Stdout, "farebox proxy: base URL %s -> %s\n  payer   %s\n  budget  %s\n  access  %s\n",
		m.BaseURL, m.upstream, payer.NewSigner(key).Address().Hex(), budget, access)
	return nil
}

// Done reports a server that stopped by itself.
func (m *ProxyMain) Done() <-chan error { return m.served }

// Close stops serving; answers in flight are cut.
func (m *ProxyMain) Close() error {
	if m.server == nil {
		if m.ln != nil {
			return m.ln.Close()
		}
		return nil
	}
	if err := m.server.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// upstreamOffers asks the upstream what it takes for its paid models
// (listed by GET /models, as farebox and OpenAI-shaped servers do); which
// of them are trusted is trustedNetworks' decision.
func upstreamOffers(ctx context.Context, base string) ([]x402.Offer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/models", nil)
	if err != nil {
		return nil, fmt.Errorf("--upstream %q: %w", base, err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the upstream at %s (%s): start it (farebox dev) or point --upstream at it", base, rootCause(err))
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	var paid []string
	for _, m := range gjson.GetBytes(body, "data").Array() {
		// A model listed as free is not asked: its probe would run it.
		if m.Get("price.atomic").String() != "0" && len(paid) < 16 {
			paid = append(paid, m.Get("id").String())
		}
	}
	return offersOf(ctx, base, paid...)
}

// listFlag collects a repeatable flag's values in order.
type listFlag []string

func (f *listFlag) String() string     { return strings.Join(*f, ",") }
func (f *listFlag) Set(v string) error { *f = append(*f, v); return nil }
