package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/farebox/farebox/x402/payer"
)

// maxBody bounds a request body the proxy holds in memory: the paying
// transport reads it whole to send it again with the payment, and an
// agent's conversation (Codex sends all of it every turn) grows large.
const maxBody = 32 << 20

// Config is what a Proxy is built from.
type Config struct {
	// Upstream is the paid endpoint's base URL, such as
	// http://127.0.0.1:8402/v1: the proxy's /v1/REST goes to Upstream/REST.
	Upstream string
	// Transport pays the upstream's 402s on the paid routes. The budget
	// and the receipt log ride on each request's payer.Hooks, so the
	// transport's own callbacks stay free for its caller.
	Transport *payer.Transport
	// Budget is the most the proxy signs in total (authorizations'
	// maxima and deposits, counted when signed), in atomic USDC; nil
	// signs without a total bound.
	Budget *big.Int
	// Log gets a line per receipt (with the running totals), refused
	// request and failed forward; nil discards them.
	Log io.Writer
	// AllowHosts are Host names accepted besides localhost, 127.0.0.1 and
	// [::1] (each with the proxy's own port, or as NAME:PORT).
	AllowHosts []string
	// AllowOrigins are the browser origins (scheme://host[:port]) whose
	// requests are served; any other request with an Origin is refused.
	AllowOrigins []string
}

// Proxy is a local base URL that pays: see the package doc for what it
// forwards, what it pays and whom it answers.
type Proxy struct {
	upstream     *url.URL
	budget       *payer.Budget
	log          io.Writer
	allowHosts   []string
	allowOrigins []string
	paid         *httputil.ReverseProxy // the paid routes' POSTs: through the paying transport
	free         *httputil.ReverseProxy // anything else: never paid

	mu    sync.Mutex
	paidN int // receipts logged
}

// New returns a proxy to cfg.Upstream paying through cfg.Transport.
func New(cfg Config) (*Proxy, error) {
	u, err := url.Parse(strings.TrimSuffix(cfg.Upstream, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("proxy: upstream %q: want the paid endpoint's base URL, like http://127.0.0.1:8402/v1", cfg.Upstream)
	}
	if cfg.Transport == nil {
		return nil, errors.New("proxy: no paying transport")
	}
	p := &Proxy{upstream: u, budget: payer.NewBudget(cfg.Budget), log: cfg.Log,
		allowHosts: slices.Clone(cfg.AllowHosts), allowOrigins: slices.Clone(cfg.AllowOrigins)}
	if p.log == nil {
		p.log = io.Discard
	}
	p.paid = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      cfg.Transport,
		FlushInterval:  -1, // every chunk at once: SSE events are never held back
		ModifyResponse: p.refused,
		ErrorHandler:   p.failed,
	}
	p.free = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      http.DefaultTransport,
		FlushInterval:  -1,
		ModifyResponse: noCORS,
		ErrorHandler:   p.failed,
	}
	return p, nil
}

// Spent is the total the receipts charged so far.
func (p *Proxy) Spent() *big.Int { return p.budget.Charged() }

// Signed is the total the wallet signed so far: what may have been spent.
func (p *Proxy) Signed() *big.Int { return p.budget.Signed() }

// ServeHTTP serves /v1/* to this machine's programs: a POST to a paid
// route goes upstream paid when it asks for payment, anything else
// unpaid; anything outside /v1 is an OpenAI-shaped 404.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if e := p.admit(r); e != nil {
		fmt.Fprintf(p.log, "farebox proxy: refused %s %s: %s\n", r.Method, payer.SellerText(r.URL.Path), e.code)
		writeError(w, r, e)
		return
	}
	if allowCORS(w, r) {
		return // a preflight of an allowed origin is the proxy's to answer
	}
	clean := path.Clean(r.URL.Path)
	if strings.HasSuffix(r.URL.Path, "/") && clean != "/" {
		clean += "/"
	}
	if clean != "/v1" && !strings.HasPrefix(clean, "/v1/") {
		writeError(w, r, &apiError{status: http.StatusNotFound, typ: "invalid_request_error", code: "unknown_url",
			message: fmt.Sprintf("farebox proxy serves /v1/*, not %s (point the client's base URL at http://%s/v1)", clean, r.Host)})
		return
	}
	r.URL.Path, r.URL.RawPath = clean, ""
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	}
	if r.Method != http.MethodPost || !paid(clean) {
		p.free.ServeHTTP(w, r) // never paid: a 402 goes back as it came
		return
	}
	t := &tab{p: p}
	defer t.close()
	ctx := context.WithValue(payer.WithHooks(r.Context(), t.hooks()), tabKey{}, t)
	p.paid.ServeHTTP(w, r.WithContext(ctx))
}

// rewrite sends /v1/<rest> to the upstream's base URL + /<rest>. The
// client's Accept-Encoding is dropped so the transport sees the stream in
// clear (its in-band receipt is read from it) and decompresses for us.
func (p *Proxy) rewrite(r *httputil.ProxyRequest) {
	rest := strings.TrimPrefix(r.In.URL.Path, "/v1")
	r.Out.URL.Scheme, r.Out.URL.Host = p.upstream.Scheme, p.upstream.Host
	r.Out.URL.Path, r.Out.URL.RawPath = p.upstream.Path+rest, ""
	r.Out.Host = ""
	r.Out.Header.Del("Accept-Encoding")
}

// refused replaces the upstream's 402 with the proxy's own error when the
// proxy chose not to pay it (over the budget, over the transport's spend
// cap, no offer it can sign): the client cannot pay either, so it should
// read why the proxy did not, not an offer it has no wallet for.
func (p *Proxy) refused(res *http.Response) error {
	_ = noCORS(res)
	if res.StatusCode != http.StatusPaymentRequired {
		return nil
	}
	t := tabFrom(res.Request.Context())
	if t == nil {
		return nil
	}
	t.mu.Lock()
	why := t.refusal
	t.mu.Unlock()
	if why == nil {
		return nil // paid and refused by the server: its answer stands
	}
	return &errNotPaid{refusalError(why)}
}
