package payer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// DefaultSpendCap is the most one call may cost unless WithSpendCap says
// otherwise: 0.1 USDC, the same default as the reference x402-fetch.
var DefaultSpendCap = big.NewInt(100_000)

// maxOfferBody bounds how much of a 402 body is read looking for offers.
const maxOfferBody = 64 << 10

// Transport is an http.RoundTripper that pays: a 402 answer is read for
// offers (the v2 PAYMENT-REQUIRED header first, else the v1 body), the best
// acceptable one is signed (batch-settlement over upto over exact, see
// WithSchemes), and the request is sent again with the payment header.
// Once a batch-settlement call to an endpoint was answered, the next
// request there carries the next voucher straight away, without a 402
// first (see WithPreemptivePayment). Anything else passes through untouched. When no offer is
// acceptable the 402 is returned as is, so SDKs report the server's error.
// Use it with openai-go via option.WithHTTPClient(&http.Client{Transport: t}).
//
// It is retry-safe: once a payment was sent, an unknown outcome (a 5xx, a
// timeout, a reset connection, a stream cut short) leaves the authorization
// remembered under the request's method, URL and body, and every retry of
// that request (openai-go retries 5xx and connection errors by default)
// presents the same authorization again instead of signing a new one. A
// new authorization is signed only once the old one provably cannot move
// money: refused for a reason that proves it was never spendable, or
// expired and unused on chain (WithChain). A batch-settlement voucher is
// cumulative and deterministic: signed again from the same channel record
// it is the same voucher, and a deposit whose outcome is unknown is kept in
// the channel store and presented again until the chain or an answer
// settles it. Requests on one channel take turns (ChannelStore.Lock).
type Transport struct {
	base      http.RoundTripper
	signer    *Signer
	networks  *x402.Registry
	cap       *big.Int
	payTo     map[common.Address]bool
	onReceipt func(*x402.Receipt)
	onRefusal func(error)
	chain     ChainReader

	schemes      []string // allowed, by preference; nil: DefaultSchemes
	store        ChannelStore
	multiplier   int64
	maxDeposit   *big.Int // nil: the spend cap
	salt         [32]byte
	saltSet      bool                            // WithChannelSalt: every channel uses salt
	deployments  map[string]contracts.Deployment // by chain id
	onSettlement func(*Settlement)
	noPreempt    bool // WithPreemptivePayment(false)
	budget       *Budget
	maxDelay     time.Duration        // WithMaxWithdrawDelay
	decimals     map[string]uint8     // WithTokenDecimals, by tokenKey
	provenTx     map[common.Hash]bool // transactions that proved an upto charge (guarded by mu)

	mu      sync.Mutex
	pending map[purchaseKey][]*purchase // signed and unanswered, by request
	known   map[string]*terms           // batch-settlement terms last paid, by endpoint (WithPreemptivePayment)
	permits map[common.Address]uint64   // EIP-2612 permits seen settled, by token (no chain)
	genesis string                      // the chain's genesis hash, read once (WithChain)
}

// Option configures a Transport.
type Option func(*Transport)

// WithBase sets the transport that actually sends requests (default
// http.DefaultTransport).
func WithBase(rt http.RoundTripper) Option { return func(t *Transport) { t.base = rt } }

// WithNetworks sets the networks (and so the tokens) the client pays on;
// default Base and Base Sepolia.
func WithNetworks(r *x402.Registry) Option { return func(t *Transport) { t.networks = r } }

// WithSpendCap sets the most one call may move, in atomic units: the
// ceiling of an exact or upto payment (what the server may take), the
// ceiling a batch-settlement voucher adds, and a batch-settlement deposit
// (money leaving the wallet for the channel's escrow, refundable): deposits
// are cut to the cap (or to WithMaxDeposit), and a call whose deposit
// cannot fit is not paid with a channel. A channel is topped up only when
// its unspent balance cannot cover one more ceiling, so what sits unspent
// in it never exceeds one deposit plus one ceiling. nil: no cap.
func WithSpendCap(atomic *big.Int) Option { return func(t *Transport) { t.cap = atomic } }

// WithPayTo restricts payments to these recipients; without it any payTo is paid.
func WithPayTo(addrs ...common.Address) Option {
	return func(t *Transport) {
		t.payTo = make(map[common.Address]bool, len(addrs))
		for _, a := range addrs {
			t.payTo[a] = true
		}
	}
}

// OnReceipt registers a callback that receives the decoded PAYMENT-RESPONSE
// / X-PAYMENT-RESPONSE of every paid response that carries one.
func OnReceipt(f func(*x402.Receipt)) Option { return func(t *Transport) { t.onReceipt = f } }

// OnRefusal registers a callback told why a 402 was not paid (no acceptable
// offer, over the spend cap, payTo not allowed, unreadable offer, refused
// by a Hooks.Authorize).
func OnRefusal(f func(error)) Option { return func(t *Transport) { t.onRefusal = f } }

// NewTransport returns a paying transport for signer.
func NewTransport(signer *Signer, opts ...Option) *Transport {
	t := &Transport{base: http.DefaultTransport, signer: signer, networks: x402.DefaultRegistry(), cap: DefaultSpendCap,
		pending: map[purchaseKey][]*purchase{}, permits: map[common.Address]uint64{}, multiplier: DefaultDepositMultiplier,
		deployments: map[string]contracts.Deployment{}, maxDelay: DefaultMaxWithdrawDelay}
	for _, o := range opts {
		o(t)
	}
	if t.store == nil {
		t.store = NewMemoryChannels()
	}
	return t
}

// RoundTrip sends req, paying when the answer is a 402, and presenting a
// remembered authorization again when req retries a purchase whose outcome
// is unknown.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get(x402.HeaderPaymentSignature) != "" || req.Header.Get(x402.HeaderXPayment) != "" {
		return t.base.RoundTrip(req) // the caller pays by itself
	}
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	key := keyOf(req, body)
	endpoint := endpointOf(req, body)
	hooks := hooksFrom(req.Context())
	call := callFrom(req.Context())
	retry := call != nil && call.Paid() // a retry of a call presents its payment or nothing
	p, err := t.recallFor(req.Context(), call, retry, key)
	if err != nil {
		return nil, err
	}
	fresh := p == nil // a retry presents a remembered authorization first
	if p == nil {
		p = t.preempt(req.Context(), endpoint, key, hooks)
	}
	if p == nil {
		resp, err := t.base.RoundTrip(withBody(req, body))
		if err != nil || resp.StatusCode != http.StatusPaymentRequired {
			return resp, err
		}
		if p = t.buy(req.Context(), resp, key, endpoint, hooks); p == nil {
			return resp, nil // not paid: the caller reads the server's 402
		}
		resp.Body.Close()
	}
	for resynced := false; ; fresh = true {
		resp, err := t.present(req, body, p, hooks)
		if err != nil || resp.StatusCode != http.StatusPaymentRequired {
			return resp, err
		}
		// A refusal of the payment: the reason says whether it can be spent.
		reason := refusalReason(resp)
		if p.batch != nil {
			// A voucher never signs more than charged + ceiling: one that
			// was refused is superseded by the next, built on the record
			// the refusal corrected (once per request).
			pr, _ := decodeRequired(resp.Header.Get(x402.HeaderPaymentRequired))
			corrected := t.batchRefused(req.Context(), p, pr, reason)
			again := corrected && !resynced
			t.void(p)
			t.forget(p)
			if p.preempted {
				// The server's terms or state moved on: its 402 is the one
				// the normal path would have read first (a corrective one
				// counts as this request's resynchronisation).
				t.unlearn(p)
				again, resynced = true, corrected
			} else {
				resynced = true
			}
			if !again || retry {
				return resp, nil
			}
			if p = t.buy(req.Context(), resp, key, endpoint, hooks); p == nil {
				return resp, nil
			}
			resp.Body.Close()
			continue
		}
		if !t.neverSpendable(p, reason) && !t.provablyUnsettled(req.Context(), p) {
			t.idle(p)
			return resp, nil // it may have moved money: never sign another for it
		}
		t.void(p)
		t.forget(p)
		if fresh || retry {
			return resp, nil // a new authorization, or a call's own, was refused: the server's answer stands
		}
		if p = t.buy(req.Context(), resp, key, endpoint, hooks); p == nil {
			return resp, nil
		}
		resp.Body.Close()
	}
}

// present sends req with p's payment and sorts the outcome: answered
// (forgotten), unknown (kept for the retry), or a refusal for the caller.
func (t *Transport) present(req *http.Request, body []byte, p *purchase, hooks *Hooks) (*http.Response, error) {
	if p.batch != nil {
		if p.unlock == nil { // a retry: take the channel again
			unlock, err := t.store.Lock(req.Context(), p.batch.key)
			if err != nil {
				t.idle(p)
				return nil, err
			}
			p.unlock = unlock
		}
		defer func() { p.unlock(); p.unlock = nil }()
	}
	paid := withBody(req, body)
	paid.Header.Set(p.header, p.value)
	resp, err := t.base.RoundTrip(paid)
	if err != nil {
		if errors.Is(err, context.Canceled) && req.Context().Err() != nil {
			t.forget(p) // the caller gave the purchase up
		} else {
			t.idle(p) // unknown outcome: a retry presents p again
		}
		return nil, err
	}
	if r := readReceipt(resp); r != nil {
		t.deliver(r, hooks)
	}
	switch {
	case resp.StatusCode == http.StatusPaymentRequired:
		return resp, nil
	case resp.StatusCode == http.StatusRequestTimeout, resp.StatusCode == http.StatusConflict,
		resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode >= 500:
		t.idle(p)
		return resp, nil // unknown outcome: a retry presents p again
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		t.forget(p)
		ab := &answerBody{ReadCloser: resp.Body, t: t, p: p, ctx: req.Context()}
		if raw := receiptJSON(resp); raw == nil && isEventStream(resp) {
			t.creditDeposit(p) // the next request on the channel must not deposit again
			ab.watch = &streamReceipt{t: t, p: p, hooks: hooks, ctx: req.Context()}
		} else {
			t.settled(req.Context(), p, raw, hooks)
		}
		resp.Body = ab
		return resp, nil
	}
	t.forget(p) // answered (another 4xx): the purchase is over
	return resp, nil
}

// buy signs an acceptable offer of the 402 resp, remembers it under key
// before it is sent, and returns it; nil when the transport will not pay.
func (t *Transport) buy(ctx context.Context, resp *http.Response, key purchaseKey, endpoint string, hooks *Hooks) *purchase {
	p, err := t.sign(ctx, resp, hooks)
	if err != nil {
		if hooks != nil && hooks.Refused != nil {
			hooks.Refused(err)
		}
		if t.onRefusal != nil {
			t.onRefusal(err)
		}
		return nil
	}
	p.key, p.hooks, p.endpoint, p.call = key, hooks, endpoint, callFrom(ctx)
	if hooks != nil && hooks.Signed != nil {
		hooks.Signed(p.req, &p.payment)
	}
	t.remember(p)
	return p
}

// sign reads the offers of a 402 and signs the best acceptable one (see
// DefaultSchemes), falling back to the next when one cannot be signed. It
// leaves resp.Body readable by the caller when it reads the body itself.
func (t *Transport) sign(ctx context.Context, resp *http.Response, hooks *Hooks) (*purchase, error) {
	var err error
	pr := &paymentRequired{}
	if h := resp.Header.Get(x402.HeaderPaymentRequired); h != "" {
		pr, err = decodeRequired(h)
		if pr == nil {
			pr = &paymentRequired{}
		}
	}
	version := 2
	if len(pr.offers) == 0 {
		body, rerr := peekBody(resp)
		if rerr != nil {
			return nil, rerr
		}
		offers, v1err := x402.DecodeV1Offers(body)
		if len(offers) == 0 {
			return nil, fmt.Errorf("payer: 402 without a usable offer: %w", errors.Join(err, v1err))
		}
		version = 1
		for _, o := range offers {
			pr.offers = append(pr.offers, offer{Offer: o})
		}
	}
	cands, why := t.candidates(pr)
	for _, c := range cands {
		if version == 1 && c.req.Scheme != x402.SchemeExact {
			continue
		}
		if err := t.channelTermsAcceptable(c); err != nil {
			why = append(why, err)
			continue
		}
		if hooks != nil && hooks.Authorize != nil {
			if err := hooks.Authorize(c.req); err != nil {
				return nil, err // e.g. over the caller's budget: nothing is signed
			}
		}
		if version == 1 {
			return t.signOffer(ctx, c.req, 1, "")
		}
		p, err := t.signScheme(ctx, c, pr)
		if err == nil {
			return p, nil
		}
		why = append(why, err)
	}
	return nil, fmt.Errorf("payer: no acceptable offer: %w", errors.Join(why...))
}

// acceptable turns an offer into a requirement this client agrees to pay:
// the ceiling (what one call may cost) within the spend cap.
func (t *Transport) acceptable(o *offer) (*x402.Requirement, error) {
	req, err := o.requirement(t.networks)
	if err != nil {
		return nil, err
	}
	if t.payTo != nil && !t.payTo[req.PayTo] {
		return nil, fmt.Errorf("payer: payTo %s is not in the allow-list", req.PayTo.Hex())
	}
	if t.cap != nil && t.inUSDC(req.Network, req.Amount).Cmp(t.cap) > 0 {
		return nil, fmt.Errorf("payer: the seller's price of %s USDC is over the spend cap of %s USDC (max price)",
			x402.FormatUSDC(t.inUSDC(req.Network, req.Amount)), x402.FormatUSDC(t.cap))
	}
	return req, nil
}

func (t *Transport) deliver(r *x402.Receipt, hooks *Hooks) {
	if hooks != nil && hooks.Receipt != nil {
		hooks.Receipt(r)
	}
	if t.onReceipt != nil {
		t.onReceipt(r)
	}
}

// readReceipt decodes the receipt header of resp, if any.
func readReceipt(resp *http.Response) *x402.Receipt {
	h := resp.Header.Get(x402.HeaderPaymentResponse)
	if h == "" {
		h = resp.Header.Get(x402.HeaderXPaymentResponse)
	}
	if h == "" {
		return nil
	}
	r, err := x402.DecodeReceipt(h)
	if err != nil {
		return nil
	}
	return r
}

// peekBody reads (a bounded prefix of) resp's body and puts it back.
func peekBody(resp *http.Response) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxOfferBody))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return body, err
}

// readBody returns the request body, read once (from GetBody when the
// request can be rewound): it is hashed and sent again.
func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	rc := req.Body
	if req.GetBody != nil {
		req.Body.Close()
		var err error
		if rc, err = req.GetBody(); err != nil {
			return nil, err
		}
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// withBody clones req with a fresh copy of body.
func withBody(req *http.Request, body []byte) *http.Request {
	c := req.Clone(req.Context())
	if body == nil {
		c.Body, c.GetBody = http.NoBody, nil
		return c
	}
	c.Body = io.NopCloser(bytes.NewReader(body))
	c.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	c.ContentLength = int64(len(body))
	return c
}
