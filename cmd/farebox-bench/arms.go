package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
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
	// body, when set, is the request body in the arm's wire (default: a
	// Responses body); expect is the text the answer must hold (default:
	// the fake upstream's).
	body   func(model string, stream bool) string
	expect string
	// via, when set, makes the arm's non-streaming calls itself (the voucher
	// arm pays through the Go transport) and returns the time to report.
	via func(context.Context) (time.Duration, error)
}

// request builds one call on a; stream picks the paced streaming model. It
// also returns the payer whose authorization the call carries (zero when free).
func (a *arm) request(ctx context.Context, model string, stream bool) (*http.Request, common.Address, error) {
	body := `{"model":"` + model + `","input":"Say hello."}`
	if stream {
		body = `{"model":"` + model + `","input":"Say hello.","stream":true}`
	}
	if a.body != nil {
		body = a.body(model, stream)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url, strings.NewReader(body))
	if err != nil {
		return nil, common.Address{}, err
	}
	for k, v := range a.headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	var from common.Address
	if a.pay != nil {
		sp := a.pay.take()
		req.Header.Set(sp.name, sp.value)
		from = sp.from
	}
	return req, from, nil
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
	if a.via != nil {
		return a.via(ctx)
	}
	req, from, err := a.request(ctx, a.model, false)
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
	want := fakeupstream.DefaultText
	if a.expect != "" {
		want = a.expect
	}
	if !bytes.Contains(body, []byte(want)) {
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
		a.pay.served(from)
	}
	return d, nil
}

// benchNetwork is the custom network the paid arm pays on: no chain exists
// behind it (settlement goes to the stand-in), only its EIP-712 domain.
var benchNetwork = x402.NewNetwork("eip155:1337", "", big.NewInt(1337),
	common.HexToAddress("0x0000000000000000000000000000000000b3c4d5"), "USDC", "2")

// signedPayment is one pre-signed payment header and its payer.
type signedPayment struct {
	name, value string
	from        common.Address
}

// payPool holds authorizations signed ahead of time, one per request, so
// the client's signing is never inside a measured interval. Its payers
// take turns; it counts each payer's served calls for the chain's check.
type payPool struct {
	signers []*payer.Signer
	req     *x402.Requirement
	mu      sync.Mutex
	ready   []signedPayment
	next    int                    // the signer of the next payment signed
	late    int                    // payments signed on demand because the pool ran dry
	paid    map[common.Address]int // calls served with a successful receipt, per payer
}

// newPayPool reads farebox's 402 offer for model on network (as any
// paying client would) and prepares to sign for it with signers (a fresh
// key when none are given).
func newPayPool(ctx context.Context, c *http.Client, url, model string, network *x402.Network, signers ...*payer.Signer) (*payPool, error) {
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
	reg, err := x402.NewRegistry(network)
	if err != nil {
		return nil, err
	}
	if len(signers) == 0 {
		s, err := newSigner()
		if err != nil {
			return nil, err
		}
		signers = []*payer.Signer{s}
	}
	for i := range offers {
		if r, err := offers[i].Requirement(reg); err == nil {
			return &payPool{signers: signers, req: r, paid: map[common.Address]int{}}, nil
		}
	}
	return nil, fmt.Errorf("no offer on %s in the 402", network.CAIP2)
}

// newSigner makes a payer with a fresh key.
func newSigner() (*payer.Signer, error) {
	key, err := crypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	return payer.NewSigner(key), nil
}

// sign makes one payment with the next payer in turn.
func (p *payPool) sign() (signedPayment, error) {
	p.mu.Lock()
	s := p.signers[p.next%len(p.signers)]
	p.next++
	p.mu.Unlock()
	name, value, err := s.PaymentHeader(p.req, 2)
	return signedPayment{name: name, value: value, from: s.Address()}, err
}

// fill signs until n payments are ready.
func (p *payPool) fill(n int) error {
	p.mu.Lock()
	have := len(p.ready)
	p.mu.Unlock()
	fresh := make([]signedPayment, 0, max(0, n-have))
	for i := have; i < n; i++ {
		sp, err := p.sign()
		if err != nil {
			return err
		}
		fresh = append(fresh, sp)
	}
	p.mu.Lock()
	p.ready = append(p.ready, fresh...)
	p.mu.Unlock()
	return nil
}

// take returns one unused payment (signing one if none is ready).
func (p *payPool) take() signedPayment {
	p.mu.Lock()
	if n := len(p.ready); n > 0 {
		sp := p.ready[n-1]
		p.ready = p.ready[:n-1]
		p.mu.Unlock()
		return sp
	}
	p.late++
	p.mu.Unlock()
	sp, err := p.sign()
	if err != nil {
		return signedPayment{name: "X-Bench-Error", value: err.Error()}
	}
	return sp
}

// served counts one call from's payment paid for.
func (p *payPool) served(from common.Address) {
	p.mu.Lock()
	p.paid[from]++
	p.mu.Unlock()
}

// servedBy is a copy of the served calls per payer.
func (p *payPool) servedBy() map[common.Address]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[common.Address]int, len(p.paid))
	for k, v := range p.paid {
		out[k] = v
	}
	return out
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
