// Package payer is farebox's Go paying client: it signs x402 payments the
// way the reference clients do (exact: EIP-3009 authorizations; upto: a
// Permit2 witness transfer of the ceiling, with an EIP-2612 permit for
// Permit2 when the server sponsors it; batch-settlement: channel deposits
// and cumulative vouchers, kept in a ChannelStore), and wraps an
// http.RoundTripper that answers a 402 by paying the cheapest acceptable
// offer and retrying.
package payer

import (
	"crypto/ecdsa"
	"crypto/rand"
	"errors"
	"io"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
)

// Signer signs x402 "exact" payments with one EOA key.
type Signer struct {
	key  *ecdsa.PrivateKey
	addr common.Address
	// Backdate, when non-zero, sets validAfter to now minus Backdate (older
	// clients use 600 s); zero sets validAfter to "0" as @x402/evm does.
	Backdate time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Rand supplies nonces; nil means crypto/rand.
	Rand io.Reader
}

// NewSigner returns a Signer for key.
func NewSigner(key *ecdsa.PrivateKey) *Signer {
	return &Signer{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
}

// Address is the payer: the `from` of every authorization it signs.
func (s *Signer) Address() common.Address { return s.addr }

// Sign builds and signs the authorization that pays req exactly:
// to = payTo, value = amount, validBefore = now + maxTimeoutSeconds, a random
// 32-byte nonce, v in {27, 28}. version (1 or 2) selects how the payment
// names its network.
func (s *Signer) Sign(req *x402.Requirement, version int) (*x402.Payment, error) {
	if req == nil || req.Network == nil || req.Amount == nil {
		return nil, errors.New("payer: incomplete requirement")
	}
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	rnd := s.Rand
	if rnd == nil {
		rnd = rand.Reader
	}
	t := now().Unix()
	p := &x402.Payment{Version: version, Scheme: req.Scheme, Network: req.Network.CAIP2}
	if version == 1 {
		if req.Network.V1Name == "" {
			return nil, errors.New("payer: network " + req.Network.CAIP2 + " has no v1 name")
		}
		p.Network = req.Network.V1Name
	}
	a := &p.Authorization
	a.From, a.To = s.addr, req.PayTo
	a.Value = new(big.Int).Set(req.Amount)
	a.ValidAfter = new(big.Int)
	if s.Backdate > 0 {
		a.ValidAfter.SetInt64(t - int64(s.Backdate/time.Second))
	}
	a.ValidBefore = big.NewInt(t + req.MaxTimeoutSeconds)
	if _, err := io.ReadFull(rnd, a.Nonce[:]); err != nil {
		return nil, errors.New("payer: no randomness for the nonce: " + err.Error())
	}
	digest := req.Network.Digest(a)
	sig, err := crypto.Sign(digest[:], s.key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	p.Signature = sig
	return p, nil
}

// PaymentHeader signs a fresh authorization for req and returns the request
// header that carries it: ("PAYMENT-SIGNATURE", value) for version 2 or
// ("X-PAYMENT", value) for version 1. Each call pays anew (new nonce), so a
// benchmark harness can pre-sign one header per request it will send.
func (s *Signer) PaymentHeader(req *x402.Requirement, version int) (name, value string, err error) {
	p, err := s.Sign(req, version)
	if err != nil {
		return "", "", err
	}
	value, err = x402.EncodePayment(p, req)
	if err != nil {
		return "", "", err
	}
	if version == 1 {
		return x402.HeaderXPayment, value, nil
	}
	return x402.HeaderPaymentSignature, value, nil
}

func (s *Signer) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// sign signs an EIP-712 digest with v in {27, 28}, as the contracts and
// the reference clients expect.
func (s *Signer) sign(digest [32]byte) ([]byte, error) {
	sig, err := crypto.Sign(digest[:], s.key)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return sig, nil
}
