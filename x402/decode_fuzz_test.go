package x402

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// FuzzEIP3009Payload keeps the payment envelope valid and fuzzes every field
// of the EIP-3009 payload: the decoder accepts exactly canonical values
// (20-byte addresses, decimal uint256 without leading zeros, a 32-byte nonce,
// hex signature), keeps them bit for bit, refuses the rest as malformed, and
// whatever it accepts encodes and decodes back to the same authorization.
func FuzzEIP3009Payload(f *testing.F) {
	fx := newFixture(f)
	good := fx.payment(2, nil)
	a := good.Authorization
	f.Add(2, a.From.Hex(), a.To.Hex(), a.Value.String(), a.ValidAfter.String(), a.ValidBefore.String(),
		"0x"+hex.EncodeToString(a.Nonce[:]), "0x"+hex.EncodeToString(good.Signature))
	f.Add(1, strings.ToLower(a.From.Hex()), a.To.Hex(), "0", "0", strings.Repeat("9", 78), "0x"+strings.Repeat("Ff", 32), "0x00")
	f.Add(2, "0x"+strings.Repeat("g", 40), "", "01", "-1", "1e3", "0x", "0xabc")
	f.Fuzz(func(t *testing.T, version int, from, to, value, after, before, nonce, sig string) {
		if version != 1 && version != 2 {
			version = 2
		}
		h := fx.edited(version, func(m map[string]any) {
			m["payload"].(map[string]any)["signature"] = sig
			au := authOf(m)
			au["from"], au["to"], au["value"] = from, to, value
			au["validAfter"], au["validBefore"], au["nonce"] = after, before, nonce
		})
		p, err := DecodePayment(h, version)
		if err != nil {
			var xe *Error
			if !errors.As(err, &xe) || !xe.Malformed {
				t.Fatalf("refusal %v is not a malformed *Error", err)
			}
			return
		}
		got := p.Authorization
		if !strings.EqualFold(got.From.Hex(), from) || !strings.EqualFold(got.To.Hex(), to) {
			t.Fatalf("addresses %s %s decoded from %q %q", got.From.Hex(), got.To.Hex(), from, to)
		}
		if got.Value.String() != value || got.ValidAfter.String() != after || got.ValidBefore.String() != before {
			t.Fatalf("numbers %v %v %v decoded from %q %q %q", got.Value, got.ValidAfter, got.ValidBefore, value, after, before)
		}
		for _, n := range []*big.Int{got.Value, got.ValidAfter, got.ValidBefore} {
			if n.Sign() < 0 || n.BitLen() > 256 {
				t.Fatalf("%v is not a uint256", n)
			}
		}
		if !strings.EqualFold("0x"+hex.EncodeToString(got.Nonce[:]), nonce) || !strings.EqualFold("0x"+hex.EncodeToString(p.Signature), sig) {
			t.Fatalf("nonce %x / signature %x decoded from %q / %q", got.Nonce, p.Signature, nonce, sig)
		}
		checkRoundTrip(t, fx, p)
	})
}

// checkRoundTrip encodes p for the fixture's requirement and decodes it
// again: the authorization and signature must survive unchanged.
func checkRoundTrip(t *testing.T, fx *fixture, p *Payment) {
	t.Helper()
	if p.Version == 1 && p.Network != fx.req.Network.V1Name {
		return // re-encoding names the fixture's network; only the payload is compared
	}
	again := *p
	h, err := EncodePayment(&again, fx.req)
	if err != nil {
		t.Fatalf("EncodePayment of a decoded payment: %v", err)
	}
	back, err := DecodePayment(h, p.Version)
	if err != nil {
		t.Fatalf("re-encoded payment does not decode: %v", err)
	}
	x, y := p.Authorization, back.Authorization
	if x.From != y.From || x.To != y.To || x.Nonce != y.Nonce || x.Value.Cmp(y.Value) != 0 ||
		x.ValidAfter.Cmp(y.ValidAfter) != 0 || x.ValidBefore.Cmp(y.ValidBefore) != 0 || !bytes.Equal(p.Signature, back.Signature) {
		t.Fatalf("round trip changed the payment: %+v -> %+v", p, back)
	}
}

// FuzzDecodeReceipt reads PAYMENT-RESPONSE values as a paying client does:
// no panic, and every receipt it accepts encodes and decodes to itself.
func FuzzDecodeReceipt(f *testing.F) {
	f.Add(EncodeReceipt(&Receipt{Success: true, Payer: "0x857b06519E91e3A54538791bDbb0E22373e36b66",
		Transaction: "0x" + strings.Repeat("ab", 32), Network: "eip155:84532"}))
	f.Add(EncodeReceipt(&Receipt{ErrorReason: ReasonInsufficientFunds, Network: "base"}))
	f.Add(base64.StdEncoding.EncodeToString([]byte(`{"success":"yes","transaction":7}`)))
	f.Add(base64.StdEncoding.EncodeToString([]byte(`{"SUCCESS":true,"payer":"\ud800"}`)))
	f.Fuzz(func(t *testing.T, header string) {
		r, err := DecodeReceipt(header)
		if err != nil {
			if r != nil {
				t.Fatal("a receipt and an error")
			}
			return
		}
		back, err := DecodeReceipt(EncodeReceipt(r))
		if err != nil || *back != *r {
			t.Fatalf("receipt %+v does not round trip: %+v, %v", r, back, err)
		}
	})
}

// FuzzDecodeOffers reads 402s as a paying client does (the v2 header and
// the v1 body) and turns every offer into a requirement on the client's own
// networks: no panic, and an accepted requirement is exactly the client's
// token on a known network, with a uint256 amount and a positive timeout.
func FuzzDecodeOffers(f *testing.F) {
	reg := DefaultRegistry()
	fx := newFixture(f)
	f.Add(PaymentRequiredHeader([]*Requirement{fx.req}, "payment required"), V1Accepts([]*Requirement{fx.req}))
	f.Add(base64.StdEncoding.EncodeToString([]byte(`{"x402Version":2,"accepts":[{"scheme":"exact","network":"eip155:8453","amount":"-1","asset":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","payTo":"0x1","maxTimeoutSeconds":0,"extra":{"name":"USD Coin","version":"2"}}]}`)),
		[]byte(`{"x402Version":1,"accepts":[{"scheme":"exact","network":"base","maxAmountRequired":"1e9","asset":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","payTo":"0x0000000000000000000000000000000000000001","maxTimeoutSeconds":9223372036854775807}]}`))
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		var offers []Offer
		if o, err := DecodePaymentRequired(header); err == nil {
			offers = append(offers, o...)
		}
		if o, err := DecodeV1Offers(body); err == nil {
			offers = append(offers, o...)
		}
		for i := range offers {
			o := &offers[i]
			req, err := o.Requirement(reg)
			if err != nil {
				continue
			}
			n := reg.Lookup(o.Version, o.Network)
			if req.Network != n || req.Scheme != SchemeExact || !common.IsHexAddress(o.Asset) || common.HexToAddress(o.Asset) != n.Asset {
				t.Fatalf("offer %+v became a requirement on %v", o, req.Network)
			}
			if req.Amount.Sign() < 0 || req.Amount.BitLen() > 256 || req.MaxTimeoutSeconds <= 0 {
				t.Fatalf("offer %+v: amount %v, timeout %d", o, req.Amount, req.MaxTimeoutSeconds)
			}
		}
	})
}
