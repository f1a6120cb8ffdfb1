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
	"github.com/tidwall/gjson"
)

// ProxyMain is `farebox proxy`: a local OpenAI base URL that pays a paid
// endpoint for any client (Codex, LangChain, an SDK) that cannot pay.
type ProxyMain struct {
	Stdout, Stderr io.Writer
	getenv         func(string) string

	upstream, addr, scheme, channels, rpcURL string
	budget, maxPrice, maxDeposit             *big.Int
	allowRemote                              bool

	// Proxy and BaseURL are set once Run returns.
	Proxy   *Proxy
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
	budget := fs.String("budget", "", "the most all requests together may cost, in USDC (default: no bound beyond --max-price per call)")
	maxPrice := fs.String("max-price", "0.1", "the most one call may cost, in USDC")
	fs.StringVar(&m.scheme, "scheme", "auto", "how to pay: auto (the cheapest the server offers: batch-settlement, then upto, then exact), or exact, upto, batch-settlement, or a comma-separated preference list")
	fs.StringVar(&m.channels, "channels", m.getenv("FAREBOX_CHANNELS"), "directory of the batch-settlement channel store (env FAREBOX_CHANNELS; default farebox/channels under the user's config directory)")
	fs.StringVar(&m.rpcURL, "rpc-url", m.getenv("FAREBOX_RPC_URL"), "a JSON-RPC endpoint of the payment chain: recovers channels from chain, checks Permit2 allowances, proves expired payments unused (env FAREBOX_RPC_URL)")
	maxDeposit := fs.String("max-deposit", "", "the most one batch-settlement deposit may put into a channel, in USDC (default: --max-price); unspent deposits come back with farebox call --refund")
	fs.BoolVar(&m.allowRemote, "allow-remote", false, "listen on a non-loopback --addr: anyone who reaches it spends the wallet")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("proxy takes no arguments, got %q (flags go before them)", strings.Join(fs.Args(), " "))
	}
	m.upstream, m.addr = *upstream, *addr
	var err error
	if m.maxPrice, err = x402.ParseUSDC(*maxPrice); err != nil {
		return fmt.Errorf("--max-price: %w", err)
	}
	if *budget != "" {
		if m.budget, err = x402.ParseUSDC(*budget); err != nil {
			return fmt.Errorf("--budget: %w", err)
		}
	}
	if *maxDeposit != "" {
		if m.maxDeposit, err = x402.ParseUSDC(*maxDeposit); err != nil {
			return fmt.Errorf("--max-deposit: %w", err)
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
	key, err := payerKey(m.getenv, m.Stderr, "farebox proxy")
	if err != nil {
		return err
	}
	nets, err := upstreamNetworks(ctx, m.upstream)
	if err != nil {
		return err
	}
	opts, err := paymentOptions(ctx, m.scheme, m.channels, m.rpcURL)
	if err != nil {
		return err
	}
	if m.maxDeposit != nil {
		opts = append(opts, payer.WithMaxDeposit(m.maxDeposit))
	}
	tr := payer.NewTransport(payer.NewSigner(key), append(opts, payer.WithNetworks(nets), payer.WithSpendCap(m.maxPrice))...)
	if m.Proxy, err = NewProxy(m.upstream, tr, m.budget, m.Stderr); err != nil {
		return err
	}
	if m.ln, err = net.Listen("tcp", m.addr); err != nil {
		return listenError(m.addr, "--addr", err)
	}
	m.BaseURL = "http://" + m.ln.Addr().String() + "/v1"
	m.server = &http.Server{Handler: m.Proxy, ReadHeaderTimeout: 10 * time.Second}
	go func() { m.served <- m.server.Serve(m.ln) }()
	budget := "none (each call at most " + x402.FormatUSDC(m.maxPrice) + " USDC)"
	if m.budget != nil {
		budget = x402.FormatUSDC(m.budget) + " USDC"
	}
	fmt.Fprintf(m.Stdout, "farebox proxy: base URL %s -> %s\n  payer   %s\n  budget  %s\n",
		m.BaseURL, m.upstream, payer.NewSigner(key).Address().Hex(), budget)
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

// upstreamNetworks trusts the networks the upstream offers for its paid
// models (listed by GET /models, as farebox and OpenAI-shaped servers
// do), ahead of the built-in ones.
func upstreamNetworks(ctx context.Context, base string) (*x402.Registry, error) {
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
	return offeredNetworks(ctx, base, paid...)
}
