package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path"
	"strings"
	"sync"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// maxProxyBody bounds a request body the proxy holds in memory: the
// paying transport reads it whole to send it again with the payment, and
// an agent's conversation (Codex sends all of it every turn) grows large.
const maxProxyBody = 32 << 20

// Proxy is a local OpenAI base URL that pays: it forwards /v1/* to a paid
// endpoint, streams each answer back as it comes, and logs every receipt
// with the running totals. Only this machine's programs may use it: a
// request must name the proxy by a loopback Host (or one of AllowHosts),
// must carry no Origin (a web page's request) unless AllowOrigins names
// it, and only POST requests are paid (a GET, which an <img> tag or a
// link can send, is forwarded unpaid). What it signs is bounded by its
// budget (payer.Budget: authorizations' maxima and deposits, counted when
// signed), besides the transport's own limits.
type Proxy struct {
	upstream *url.URL
	budget   *payer.Budget
	log      io.Writer
	paid     *httputil.ReverseProxy // POST: through the paying transport
	free     *httputil.ReverseProxy // anything else: never paid

	// AllowHosts are Host names accepted besides localhost, 127.0.0.1 and
	// [::1] (each with the proxy's own port, or as NAME:PORT).
	AllowHosts []string
	// AllowOrigins are the browser origins (scheme://host[:port]) whose
	// requests are served; any other request with an Origin is refused.
	AllowOrigins []string

	mu    sync.Mutex
	paidN int // receipts logged
}

// NewProxy returns a proxy to upstream (a base URL such as
// http://127.0.0.1:8402/v1) paying through tr; budget nil signs without a
// total bound. The budget and the receipt log ride on each request's
// payer.Hooks, so tr's own callbacks stay free for its caller.
func NewProxy(upstream string, tr *payer.Transport, budget *big.Int, log io.Writer) (*Proxy, error) {
	u, err := url.Parse(strings.TrimSuffix(upstream, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--upstream %q: want the paid endpoint's base URL, like http://127.0.0.1:8402/v1", upstream)
	}
	p := &Proxy{upstream: u, budget: payer.NewBudget(budget), log: log}
	p.paid = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      tr,
		FlushInterval:  -1, // every chunk at once: SSE events are never held back
		ModifyResponse: p.refused,
		ErrorHandler:   p.failed,
	}
	p.free = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      http.DefaultTransport,
		FlushInterval:  -1,
		ModifyResponse: p.noCORS,
		ErrorHandler:   p.failed,
	}
	return p, nil
}

// Spent is the total the receipts charged so far.
func (p *Proxy) Spent() *big.Int { return p.budget.Charged() }

// Signed is the total the wallet signed so far: what may have been spent.
func (p *Proxy) Signed() *big.Int { return p.budget.Signed() }

// ServeHTTP serves /v1/* to this machine's programs: POST requests go
// upstream paid when they ask for payment, anything else unpaid;
// anything outside /v1 is an OpenAI-shaped 404.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if e := p.admit(r); e != nil {
		fmt.Fprintf(p.log, "farebox proxy: refused %s %s: %s\n", r.Method, sellerText(r.URL.Path), e.Code)
		writeProxyError(w, e)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			if rh := r.Header.Get("Access-Control-Request-Headers"); rh != "" {
				h.Set("Access-Control-Allow-Headers", rh)
			}
			w.WriteHeader(http.StatusNoContent) // a preflight of an allowed origin is the proxy's to answer
			return
		}
	}
	clean := path.Clean(r.URL.Path)
	if strings.HasSuffix(r.URL.Path, "/") && clean != "/" {
		clean += "/"
	}
	if clean != "/v1" && !strings.HasPrefix(clean, "/v1/") {
		writeProxyError(w, &responses.Error{Status: http.StatusNotFound, Type: "invalid_request_error", Code: "unknown_url",
			Message: fmt.Sprintf("farebox proxy serves /v1/*, not %s (point the client's base URL at http://%s/v1)", clean, r.Host)})
		return
	}
	r.URL.Path, r.URL.RawPath = clean, ""
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, maxProxyBody)
	}
	if r.Method != http.MethodPost {
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

// errNotPaid carries a refusal to pay from ModifyResponse to ErrorHandler.
type errNotPaid struct{ e *responses.Error }

func (e *errNotPaid) Error() string { return e.e.Error() }

// refused replaces the upstream's 402 with the proxy's own error when the
// proxy chose not to pay it (over the budget, over --max-price, no offer
// it can sign): the client cannot pay either, so it should read why the
// proxy did not, not an offer it has no wallet for.
func (p *Proxy) refused(res *http.Response) error {
	_ = p.noCORS(res)
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
	return &errNotPaid{refusalError(why, p.budget.Limit())}
}

// refusalError is the OpenAI-shaped error for a payment the proxy did not
// make: a 402 with X-Should-Retry: false. The openai SDKs (Node, Python,
// Go) never retry a 402 and show its message. A 429 would be worse: the
// SDKs retry it with backoff, and Codex turns a 429 into "exceeded retry
// limit" (or, by its error type, a ChatGPT plan message), dropping ours.
// Codex retries a 402 like any unexpected status, its stream_max_retries
// times (5 by default), each refused again without paying, then prints
// "unexpected status 402 Payment Required:" and this message, which says
// what to change; a budget does not refill with time, so nothing waits.
func refusalError(why error, budget *big.Int) *responses.Error {
	var over *payer.OverBudgetError
	if errors.As(why, &over) {
		return &responses.Error{Status: http.StatusPaymentRequired, Type: "insufficient_quota", Code: "budget_exceeded",
			Message: fmt.Sprintf("farebox proxy: signing %s USDC would bring what this proxy signed to %s USDC, over the budget of %s USDC; nothing was paid (restart farebox proxy with a larger --budget, or --budget none)",
				x402.FormatUSDC(over.Amount), x402.FormatUSDC(new(big.Int).Add(over.Signed, over.Amount)), x402.FormatUSDC(over.Limit))}
	}
	return &responses.Error{Status: http.StatusPaymentRequired, Type: "invalid_request_error", Code: "payment_refused",
		Message: "farebox proxy did not pay: " + sellerText(why.Error())}
}

// failed answers what never got an answer upstream, or that the proxy
// refused to pay, in the OpenAI shape.
func (p *Proxy) failed(w http.ResponseWriter, r *http.Request, err error) {
	var np *errNotPaid
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &np):
		writeProxyError(w, np.e)
	case errors.As(err, &tooBig):
		writeProxyError(w, &responses.Error{Status: http.StatusRequestEntityTooLarge, Type: "invalid_request_error", Code: "request_too_large",
			Message: fmt.Sprintf("farebox proxy: the request body is over %d bytes", tooBig.Limit)})
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		// The client left: nobody reads an answer.
	default:
		fmt.Fprintf(p.log, "farebox proxy: %s %s: %s\n", r.Method, sellerText(r.URL.Path), sellerText(err.Error()))
		writeProxyError(w, &responses.Error{Status: http.StatusBadGateway, Type: "server_error", Code: "upstream_unreachable",
			Message: fmt.Sprintf("farebox proxy: no answer from %s: %s", p.upstream.Redacted(), rootCause(err))})
	}
}

// writeProxyError writes e as the OpenAI error object. X-Should-Retry
// tells the openai SDKs not to retry a 4xx the same request cannot fix.
func writeProxyError(w http.ResponseWriter, e *responses.Error) {
	nullable := func(s string) any {
		if s == "" {
			return nil
		}
		return s
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": e.Message, "type": e.Type, "param": nullable(e.Param), "code": nullable(e.Code)}})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	if e.Status >= 400 && e.Status < 500 {
		h.Set("X-Should-Retry", "false")
	}
	w.WriteHeader(e.Status)
	_, _ = w.Write(b)
}
