package payer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
)

// DefaultSpendCap is the most one call may cost unless WithSpendCap says
// otherwise: 0.1 USDC, the same default as the reference x402-fetch.
var DefaultSpendCap = big.NewInt(100_000)

// maxOfferBody bounds how much of a 402 body is read looking for v1 offers.
const maxOfferBody = 64 << 10

// Transport is an http.RoundTripper that pays: a 402 answer is read for
// offers (the v2 PAYMENT-REQUIRED header first, else the v1 body), the first
// acceptable one is signed, and the request is sent again, once, with the
// payment header. Anything else passes through untouched. When no offer is
// acceptable the 402 is returned as is, so SDKs report the server's error.
// Use it with openai-go via option.WithHTTPClient(&http.Client{Transport: t}).
type Transport struct {
	base      http.RoundTripper
	signer    *Signer
	networks  *x402.Registry
	cap       *big.Int
	payTo     map[common.Address]bool
	onReceipt func(*x402.Receipt)
	onRefusal func(error)
}

// Option configures a Transport.
type Option func(*Transport)

// WithBase sets the transport that actually sends requests (default
// http.DefaultTransport).
func WithBase(rt http.RoundTripper) Option { return func(t *Transport) { t.base = rt } }

// WithNetworks sets the networks (and so the tokens) the client pays on;
// default Base and Base Sepolia.
func WithNetworks(r *x402.Registry) Option { return func(t *Transport) { t.networks = r } }

// WithSpendCap sets the most one call may cost, in atomic units.
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
// offer, over the spend cap, payTo not allowed, unreadable offer).
func OnRefusal(f func(error)) Option { return func(t *Transport) { t.onRefusal = f } }

// NewTransport returns a paying transport for signer.
func NewTransport(signer *Signer, opts ...Option) *Transport {
	t := &Transport{base: http.DefaultTransport, signer: signer, networks: x402.DefaultRegistry(), cap: DefaultSpendCap}
	for _, o := range opts {
		o(t)
	}
	return t
}

// RoundTrip sends req, paying and retrying once if the answer is a 402.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Header.Get(x402.HeaderPaymentSignature) != "" || req.Header.Get(x402.HeaderXPayment) != "" {
		return t.base.RoundTrip(req) // the caller pays by itself
	}
	getBody, err := replayableBody(req)
	if err != nil {
		return nil, err
	}
	first := req.Clone(req.Context())
	if first.Body, err = openBody(getBody); err != nil {
		return nil, err
	}
	resp, err := t.base.RoundTrip(first)
	if err != nil || resp.StatusCode != http.StatusPaymentRequired {
		return resp, err
	}
	name, value, err := t.pay(resp)
	if err != nil {
		if t.onRefusal != nil {
			t.onRefusal(err)
		}
		return resp, nil
	}
	resp.Body.Close()
	second := req.Clone(req.Context())
	if second.Body, err = openBody(getBody); err != nil {
		return nil, err
	}
	second.Header.Set(name, value)
	resp, err = t.base.RoundTrip(second)
	if err == nil && t.onReceipt != nil {
		t.deliverReceipt(resp)
	}
	return resp, err
}

func (t *Transport) deliverReceipt(resp *http.Response) {
	h := resp.Header.Get(x402.HeaderPaymentResponse)
	if h == "" {
		h = resp.Header.Get(x402.HeaderXPaymentResponse)
	}
	if h == "" {
		return
	}
	if r, err := x402.DecodeReceipt(h); err == nil {
		t.onReceipt(r)
	} else if t.onRefusal != nil {
		t.onRefusal(err)
	}
}

// pay reads the offers of a 402 and signs the first acceptable one. It
// leaves resp.Body readable by the caller when it reads the body itself.
func (t *Transport) pay(resp *http.Response) (name, value string, err error) {
	var offers []x402.Offer
	if h := resp.Header.Get(x402.HeaderPaymentRequired); h != "" {
		offers, err = x402.DecodePaymentRequired(h)
	}
	if len(offers) == 0 {
		body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxOfferBody))
		resp.Body.Close()
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if rerr != nil {
			return "", "", rerr
		}
		var v1err error
		offers, v1err = x402.DecodeV1Offers(body)
		if len(offers) == 0 {
			return "", "", fmt.Errorf("payer: 402 without a usable offer: %w", errors.Join(err, v1err))
		}
	}
	var why []error
	for i := range offers {
		req, err := t.acceptable(&offers[i])
		if err != nil {
			why = append(why, err)
			continue
		}
		return t.signer.PaymentHeader(req, offers[i].Version)
	}
	return "", "", fmt.Errorf("payer: no acceptable offer: %w", errors.Join(why...))
}

// acceptable turns an offer into a requirement this client agrees to pay.
func (t *Transport) acceptable(o *x402.Offer) (*x402.Requirement, error) {
	req, err := o.Requirement(t.networks)
	if err != nil {
		return nil, err
	}
	if t.payTo != nil && !t.payTo[req.PayTo] {
		return nil, fmt.Errorf("payer: payTo %s is not in the allow-list", req.PayTo.Hex())
	}
	if t.cap != nil && req.Amount.Cmp(t.cap) > 0 {
		return nil, fmt.Errorf("payer: %s USDC is over the spend cap of %s USDC",
			x402.FormatUSDC(req.Amount), x402.FormatUSDC(t.cap))
	}
	return req, nil
}

// replayableBody returns a function that yields the request body afresh,
// buffering it when the request has no GetBody.
func replayableBody(req *http.Request) (func() (io.ReadCloser, error), error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		req.Body.Close() // every send reads a fresh copy from GetBody
		return req.GetBody, nil
	}
	b, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }, nil
}

func openBody(get func() (io.ReadCloser, error)) (io.ReadCloser, error) {
	if get == nil {
		return http.NoBody, nil
	}
	return get()
}
