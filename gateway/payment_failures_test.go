package gateway_test

import (
	"encoding/base64"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

var secp256k1N, _ = new(big.Int).SetString("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141", 16)

// TestPaymentFailures sends one paid request per way a payment can be
// wrong and checks the exact status and x402 reason code of the answer.
func TestPaymentFailures(t *testing.T) {
	ts, c := startPaid(t, "after")
	req := offerFor(t, ts, c)
	signer := payer.NewSigner(c.PayerKey)
	other, _ := crypto.GenerateKey()

	// sign signs a payment for a variant of the requirement, then lets mut
	// change the signed payment; it is encoded against the true requirement.
	sign := func(version int, vary func(r *x402.Requirement, s *payer.Signer), mut func(p *x402.Payment)) string {
		r := *req
		net := *req.Network
		r.Network = &net
		s := *signer
		if vary != nil {
			vary(&r, &s)
		}
		p, err := s.Sign(&r, version)
		if err != nil {
			t.Fatal(err)
		}
		if mut != nil {
			mut(p)
		}
		v, err := x402.EncodePayment(p, req)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	validV2 := sign(2, nil, nil)
	decoded, _ := base64.StdEncoding.DecodeString(validV2)
	edit := func(path, value string) string { // a JSON edit of a valid v2 payment
		out, err := sjsonSet(decoded, path, value)
		if err != nil {
			t.Fatal(err)
		}
		return base64.StdEncoding.EncodeToString(out)
	}
	decodedV1, _ := base64.StdEncoding.DecodeString(sign(1, nil, nil))
	editV1 := func(path, value string) string {
		out, err := sjsonSet(decodedV1, path, value)
		if err != nil {
			t.Fatal(err)
		}
		return base64.StdEncoding.EncodeToString(out)
	}
	past := func(d time.Duration) func(r *x402.Requirement, s *payer.Signer) {
		return func(r *x402.Requirement, s *payer.Signer) { s.Now = func() time.Time { return time.Now().Add(-d) } }
	}
	future := func(d time.Duration) func(r *x402.Requirement, s *payer.Signer) {
		return func(r *x402.Requirement, s *payer.Signer) { s.Now = func() time.Time { return time.Now().Add(d) } }
	}
	cases := []struct {
		name   string
		header string // PAYMENT-SIGNATURE unless v1
		v1     bool
		status int
		code   string
	}{
		{"no payment", "", false, 402, "payment_required"},
		{"not base64", "%%%not-base64%%%", false, 400, x402.ReasonInvalidPayload},
		{"base64 without padding", strings.TrimRight(b64(`{"x402Version":2}`), "="), false, 400, x402.ReasonInvalidPayload},
		{"url-safe base64 alphabet", strings.NewReplacer("+", "-", "/", "_").Replace(validV2) + "-_", false, 400, x402.ReasonInvalidPayload},
		{"base64 of text", b64("hello"), false, 400, x402.ReasonInvalidPayload},
		{"json array", b64(`[]`), false, 400, x402.ReasonInvalidPayload},
		{"oversized header", b64(`{"x402Version":2,"pad":"` + strings.Repeat("a", 9000) + `"}`), false, 400, x402.ReasonInvalidPayload},
		{"x402Version 3", edit("x402Version", "3"), false, 402, x402.ReasonInvalidVersion},
		{"v1 payload in the v2 header", sign(1, nil, nil), false, 402, x402.ReasonInvalidVersion},
		{"v2 payload in the v1 header", validV2, true, 402, x402.ReasonInvalidVersion},
		{"unknown top-level field", edit("surprise", `true`), false, 400, x402.ReasonInvalidPayload},
		{"nonce of 31 bytes", edit("payload.authorization.nonce", `"0x`+strings.Repeat("ab", 31)+`"`), false, 400, x402.ReasonInvalidPayload},
		{"from not an address", edit("payload.authorization.from", `"0x1234"`), false, 400, x402.ReasonInvalidPayload},
		{"value not a decimal string", edit("payload.authorization.value", `1000`), false, 400, x402.ReasonInvalidPayload},
		{"signature not hex", edit("payload.signature", `"0xzz"`), false, 400, x402.ReasonInvalidPayload},
		{"scheme upto", edit("accepted.scheme", `"upto"`), false, 402, x402.ReasonUnsupportedScheme},
		{"network not offered (Base mainnet)", edit("accepted.network", `"eip155:8453"`), false, 402, x402.ReasonInvalidNetwork},
		{"v1 network name unknown", editV1("network", `"polygon"`), true, 402, x402.ReasonInvalidNetwork},
		{"pays someone else", sign(2, func(r *x402.Requirement, _ *payer.Signer) {
			r.PayTo = common.HexToAddress("0x1111111111111111111111111111111111111111")
		}, nil), false, 402, x402.ReasonRecipientMismatch},
		{"pays too little", sign(2, func(r *x402.Requirement, _ *payer.Signer) { r.Amount = big.NewInt(999) }, nil), false, 402, x402.ReasonValue},
		{"pays too much", sign(2, func(r *x402.Requirement, _ *payer.Signer) { r.Amount = big.NewInt(1001) }, nil), false, 402, x402.ReasonValue},
		{"validAfter moved after signing", sign(2, nil, func(p *x402.Payment) { p.Authorization.ValidAfter = big.NewInt(time.Now().Add(time.Hour).Unix()) }), false, 402, x402.ReasonValidAfter},
		{"validAfter in the future, signed", sign(2, func(r *x402.Requirement, s *payer.Signer) {
			s.Now, s.Backdate = func() time.Time { return time.Now().Add(2 * time.Hour) }, time.Second
		}, nil), false, 402, x402.ReasonValidAfter},
		{"expired", sign(2, past(time.Hour), nil), false, 402, x402.ReasonValidBefore},
		{"expires in 3 seconds", sign(2, func(r *x402.Requirement, _ *payer.Signer) { r.MaxTimeoutSeconds = 3 }, nil), false, 402, x402.ReasonValidBefore},
		{"valid for too long", sign(2, future(2*time.Hour), nil), false, 402, x402.ReasonValidBefore},
		{"signed by another key", sign(2, nil, func(p *x402.Payment) { p.Authorization.From = crypto.PubkeyToAddress(other.PublicKey) }), false, 402, x402.ReasonSignature},
		{"nonce changed after signing", sign(2, nil, func(p *x402.Payment) { p.Authorization.Nonce[0] ^= 1 }), false, 402, x402.ReasonSignature},
		{"signed for another chain id", sign(2, func(r *x402.Requirement, _ *payer.Signer) {
			r.Network = x402.NewNetwork(r.Network.CAIP2, "", big.NewInt(1), r.Network.Asset, r.Network.Name, r.Network.Version)
		}, nil), false, 402, x402.ReasonSignature},
		{"signed for another token name", sign(2, func(r *x402.Requirement, _ *payer.Signer) {
			r.Network = x402.NewNetwork(r.Network.CAIP2, "", r.Network.ChainID, r.Network.Asset, "USD Coin", r.Network.Version)
		}, nil), false, 402, x402.ReasonSignature},
		{"signed for another token", sign(2, func(r *x402.Requirement, _ *payer.Signer) {
			r.Network = x402.NewNetwork(r.Network.CAIP2, "", r.Network.ChainID, common.HexToAddress("0x2222222222222222222222222222222222222222"), r.Network.Name, r.Network.Version)
		}, nil), false, 402, x402.ReasonSignature},
		{"high-s signature", sign(2, nil, highS), false, 402, x402.ReasonSignature},
		{"v = 29", sign(2, nil, func(p *x402.Payment) { p.Signature[64] = 29 }), false, 402, x402.ReasonSignature},
		{"64-byte signature", sign(2, nil, func(p *x402.Payment) { p.Signature = p.Signature[:64] }), false, 402, x402.ReasonSignature},
		{"smart-wallet signature without a chain to check it", sign(2, nil, func(p *x402.Payment) { p.Signature = append(p.Signature, make([]byte, 31)...) }), false, 402, x402.ReasonSignature},
	}
	if len(cases) < 30 {
		t.Fatalf("only %d cases", len(cases))
	}
	before := tokenBalance(t, c, c.Payer)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hdr := x402.HeaderPaymentSignature
			if tc.v1 {
				hdr = x402.HeaderXPayment
			}
			var headers []string
			if tc.header != "" {
				headers = []string{hdr, tc.header}
			}
			res, body := post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"hi"}`, headers...)
			if res.StatusCode != tc.status || gjson.GetBytes(body, "error.code").String() != tc.code {
				t.Errorf("got %d %s\nwant %d %s", res.StatusCode, body, tc.status, tc.code)
			}
			if res.Header.Get("X-Should-Retry") != "false" {
				t.Error("a payment failure must tell SDKs not to retry")
			}
			if tc.status == 402 {
				offer, _ := base64.StdEncoding.DecodeString(res.Header.Get(x402.HeaderPaymentRequired))
				if got := gjson.GetBytes(offer, "error").String(); got != tc.code {
					t.Errorf("PAYMENT-REQUIRED error %q, want %q", got, tc.code)
				}
			}
		})
	}
	if spent := new(big.Int).Sub(before, tokenBalance(t, c, c.Payer)); spent.Sign() != 0 {
		t.Errorf("refused payments moved %s", spent)
	}
	// The positive control: the same machinery accepts a correct v1 payment.
	res, body := post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"hi"}`, x402.HeaderXPayment, sign(1, nil, nil))
	if res.StatusCode != 200 || res.Header.Get(x402.HeaderXPaymentResponse) == "" {
		t.Errorf("valid v1 payment: %d %s", res.StatusCode, body)
	}
}

// highS replaces s by n - s and flips v: the same signer, a signature
// Ethereum tokens refuse.
func highS(p *x402.Payment) {
	s := new(big.Int).SetBytes(p.Signature[32:64])
	s.Sub(secp256k1N, s)
	copy(p.Signature[32:64], common.LeftPadBytes(s.Bytes(), 32))
	p.Signature[64] ^= 1 // 27 <-> 28
}

// sjsonSet sets one JSON path in doc (a tiny edit for malformed payloads).
func sjsonSet(doc []byte, path, raw string) ([]byte, error) {
	return sjson.SetRawBytes(doc, path, []byte(raw))
}
