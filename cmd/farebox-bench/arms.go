package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/fakeupstream"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// Arm names, in table order.
const (
	armDirect  = "direct"
	armBare    = "bare-proxy"
	armFree    = "farebox-free"
	armPaid    = "farebox-paid"
	armPortkey = "portkey"
)

// arm is one path from the client to the fake upstream.
type arm struct {
	name     string
	url      string // the POST /v1/responses endpoint
	model    string // model for zero-delay non-streaming calls
	paced    string // model for paced streams ("" = the arm cannot stream)
	hold     string // model whose stream (or answer) stays open, for the memory phase
	headers  http.Header
	proc     *process // the gateway process; nil for direct
	pay      *payPool // pre-signed payments; nil for free arms
	holdNote string   // what "open streams" means for this arm
}

// request builds one call on a; stream picks the paced streaming model.
func (a *arm) request(ctx context.Context, model string, stream bool) (*http.Request, error) {
	body := `{"model":"` + model + `","input":"Say hello."}`
	if stream {
		body = `{"model":"` + model + `","input":"Say hello.","stream":true}`
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range a.headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	if a.pay != nil {
		name, value := a.pay.take()
		req.Header.Set(name, value)
	}
	return req, nil
}

// newClient is the benchmark client: keep-alive, many idle connections, no
// transparent gzip (no arm compresses, and none should be asked to).
func newClient() *http.Client {
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns: 4096, MaxIdleConnsPerHost: 4096, IdleConnTimeout: 90 * time.Second,
			DisableCompression: true,
		},
	}
}

// callOnce sends one non-streaming call and checks the answer is the fake
// upstream's text (and, when paid, that a successful receipt came back).
func callOnce(ctx context.Context, c *http.Client, a *arm) (time.Duration, error) {
	req, err := a.request(ctx, a.model, false)
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	res, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	d := time.Since(t0)
	if err != nil {
		return d, err
	}
	if res.StatusCode != http.StatusOK {
		return d, fmt.Errorf("%s: HTTP %d: %.300s", a.name, res.StatusCode, body)
	}
	if !bytes.Contains(body, []byte(fakeupstream.DefaultText)) {
		return d, fmt.Errorf("%s: the answer lacks the upstream's text: %.300s", a.name, body)
	}
	if a.pay != nil {
		r, err := x402.DecodeReceipt(res.Header.Get(x402.HeaderPaymentResponse))
		if err != nil {
			return d, fmt.Errorf("%s: receipt: %w", a.name, err)
		}
		if !r.Success {
			return d, fmt.Errorf("%s: settlement failed: %s", a.name, r.ErrorReason)
		}
	}
	return d, nil
}

// benchNetwork is the custom network the paid arm pays on: no chain exists
// behind it (settlement goes to the stand-in), only its EIP-712 domain.
var benchNetwork = x402.NewNetwork("eip155:1337", "", big.NewInt(1337),
	common.HexToAddress("0x0000000000000000000000000000000000b3c4d5"), "USDC", "2")

// payPool holds authorizations signed ahead of time, one per request, so
// the client's signing is never inside a measured interval.
type payPool struct {
	signer *payer.Signer
	req    *x402.Requirement
	mu     sync.Mutex
	ready  [][2]string
	late   int // payments signed on demand because the pool ran dry
}

// newPayPool reads farebox's 402 offer for model (as any paying client
// would) and prepares to sign for it.
func newPayPool(ctx context.Context, c *http.Client, url, model string) (*payPool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"model":"`+model+`","input":"Say hello."}`))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusPaymentRequired {
		return nil, fmt.Errorf("paid route answered %d without payment, want 402", res.StatusCode)
	}
	offers, err := x402.DecodePaymentRequired(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil {
		return nil, err
	}
	reg, err := x402.NewRegistry(benchNetwork)
	if err != nil {
		return nil, err
	}
	for i := range offers {
		if r, err := offers[i].Requirement(reg); err == nil {
			signer, err := newSigner()
			if err != nil {
				return nil, err
			}
			return &payPool{signer: signer, req: r}, nil
		}
	}
	return nil, errors.New("no offer on the bench network in the 402")
}

// newSigner makes a payer with a fresh key.
func newSigner() (*payer.Signer, error) {
	key, err := crypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	return payer.NewSigner(key), nil
}

// fill signs until n payments are ready.
func (p *payPool) fill(n int) error {
	p.mu.Lock()
	have := len(p.ready)
	p.mu.Unlock()
	fresh := make([][2]string, 0, max(0, n-have))
	for i := have; i < n; i++ {
		name, value, err := p.signer.PaymentHeader(p.req, 2)
		if err != nil {
			return err
		}
		fresh = append(fresh, [2]string{name, value})
	}
	p.mu.Lock()
	p.ready = append(p.ready, fresh...)
	p.mu.Unlock()
	return nil
}

// take returns one unused payment header (signing one if none is ready).
func (p *payPool) take() (string, string) {
	p.mu.Lock()
	if n := len(p.ready); n > 0 {
		h := p.ready[n-1]
		p.ready = p.ready[:n-1]
		p.mu.Unlock()
		return h[0], h[1]
	}
	p.late++
	p.mu.Unlock()
	name, value, err := p.signer.PaymentHeader(p.req, 2)
	if err != nil {
		return "X-Bench-Error", err.Error()
	}
	return name, value
}

// lateCount is how many payments were signed inside a measured interval.
func (p *payPool) lateCount() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.late
}
