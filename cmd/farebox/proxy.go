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
// endpoint through a paying transport, streams each answer back as it
// comes, logs every receipt with the running total, and refuses a request
// whose payment would take the total over its budget.
type Proxy struct {
	upstream *url.URL
	budget   *big.Int // nil: no budget
	log      io.Writer
	rp       *httputil.ReverseProxy

	mu      sync.Mutex
	spent   *big.Int // the receipts' charges
	held    *big.Int // ceilings authorized whose answer has not come yet
	unknown *big.Int // ceilings signed whose outcome never came back
	paid    int      // receipts logged
}

// NewProxy returns a proxy to upstream (a base URL such as
// http://127.0.0.1:8402/v1) paying through tr; budget nil spends without
// a total bound. The budget and the receipt log ride on each request's
// payer.Hooks, so tr's own callbacks stay free for its caller.
func NewProxy(upstream string, tr *payer.Transport, budget *big.Int, log io.Writer) (*Proxy, error) {
	u, err := url.Parse(strings.TrimSuffix(upstream, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--upstream %q: want the paid endpoint's base URL, like http://127.0.0.1:8402/v1", upstream)
	}
	p := &Proxy{upstream: u, budget: budget, log: log, spent: new(big.Int), held: new(big.Int), unknown: new(big.Int)}
	p.rp = &httputil.ReverseProxy{
		Rewrite:        p.rewrite,
		Transport:      tr,
		FlushInterval:  -1, // every chunk at once: SSE events are never held back
		ModifyResponse: p.refused,
		ErrorHandler:   p.failed,
	}
	return p, nil
}

// Spent is the total the receipts charged so far.
func (p *Proxy) Spent() *big.Int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return new(big.Int).Set(p.spent)
}

// ServeHTTP serves /v1/*: every request goes upstream, paid when it asks
// for payment; anything else is an OpenAI-shaped 404.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1" && !strings.HasPrefix(r.URL.Path, "/v1/") {
		writeProxyError(w, &responses.Error{Status: http.StatusNotFound, Type: "invalid_request_error", Code: "unknown_url",
			Message: fmt.Sprintf("farebox proxy serves /v1/*, not %s (point the client's base URL at http://%s/v1)", r.URL.Path, r.Host)})
		return
	}
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, maxProxyBody)
	}
	t := &tab{p: p}
	defer t.close()
	ctx := context.WithValue(payer.WithHooks(r.Context(), t.hooks()), tabKey{}, t)
	p.rp.ServeHTTP(w, r.WithContext(ctx))
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
	return &errNotPaid{refusalError(why, p.budget)}
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
	var over *overBudget
	if errors.As(why, &over) {
		return &responses.Error{Status: http.StatusPaymentRequired, Type: "insufficient_quota", Code: "budget_exceeded",
			Message: fmt.Sprintf("farebox proxy: paying %s USDC would bring the total to %s USDC, over the budget of %s USDC; nothing was paid (restart farebox proxy with a larger --budget)",
				x402.FormatUSDC(over.price), x402.FormatUSDC(over.total), x402.FormatUSDC(budget))}
	}
	return &responses.Error{Status: http.StatusPaymentRequired, Type: "invalid_request_error", Code: "payment_refused",
		Message: "farebox proxy did not pay: " + why.Error()}
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
		fmt.Fprintf(p.log, "farebox proxy: %s %s: %v\n", r.Method, r.URL.Path, err)
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
