package x402

import (
	"context"
	"encoding/base64"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// checkerFunc adapts a function to Checker.
type checkerFunc func(ctx context.Context, p *Payment, req *Requirement) error

func (c checkerFunc) Check(ctx context.Context, p *Payment, req *Requirement) error {
	return c(ctx, p, req)
}

// resign replaces p's signature with one made by f's key over network n.
func resign(f *fixture, p *Payment, n *Network) { p.Signature = sign(f.t, f.key, n, &p.Authorization) }

// withSig re-encodes p after edit changes its signature bytes.
func withSig(f *fixture, version int, edit func(sig []byte) []byte) string {
	p := f.payment(version, nil)
	p.Signature = edit(append([]byte(nil), p.Signature...))
	return f.header(p)
}

func TestPaymentFailuresCarryTheReasonCode(t *testing.T) {
	type failure struct {
		name      string
		version   int // which header the payment arrives in
		header    func(f *fixture) string
		reqs      func(f *fixture) []*Requirement // default: f.req
		checker   Checker
		reason    string
		malformed bool
	}
	bad := func(name string, version int, h func(f *fixture) string) failure {
		return failure{name: name, version: version, header: h, reason: ReasonInvalidPayload, malformed: true}
	}
	refused := func(name, reason string, version int, h func(f *fixture) string) failure {
		return failure{name: name, version: version, header: h, reason: reason}
	}
	authEdit := func(version int, edit func(a map[string]any)) func(f *fixture) string {
		return func(f *fixture) string { return f.edited(version, func(m map[string]any) { edit(authOf(m)) }) }
	}
	signed := func(version int, edit func(a *Authorization)) func(f *fixture) string {
		return func(f *fixture) string { return f.header(f.payment(version, edit)) }
	}
	raw := func(version int, edit func(s string) string) func(f *fixture) string {
		return func(f *fixture) string {
			p := f.payment(version, nil)
			f.header(p)
			return base64.StdEncoding.EncodeToString([]byte(edit(string(p.Raw))))
		}
	}
	cases := []failure{
		// Decoding: the header cannot be read (400).
		bad("empty header", 2, func(f *fixture) string { return "" }),
		bad("oversized header", 2, func(f *fixture) string { return strings.Repeat("QUFB", 2100) }),
		bad("not base64", 2, func(f *fixture) string { return "!!not base64!!" }),
		bad("padding missing", 2, func(f *fixture) string {
			p := f.payment(2, nil)
			f.header(p)
			js := string(p.Raw)
			for len(js)%3 == 0 { // whitespace is valid JSON; make the encoding need padding
				js += " "
			}
			h := base64.StdEncoding.EncodeToString([]byte(js))
			if _, err := DecodePayment(h, 2); err != nil {
				f.t.Fatalf("the padded form is refused: %v", err)
			}
			return strings.TrimRight(h, "=")
		}),
		bad("url-safe base64 alphabet", 1, func(f *fixture) string {
			return base64.URLEncoding.EncodeToString([]byte(`{"x402Version":1,"scheme":"exact","network":"base-sepolia","payload":{}}` + "\xfb\xff"))
		}),
		bad("line break inside base64", 2, func(f *fixture) string { h := f.header(f.payment(2, nil)); return h[:10] + "\n" + h[10:] }),
		bad("not JSON", 2, func(f *fixture) string { return base64.StdEncoding.EncodeToString([]byte("hello")) }),
		bad("JSON array", 2, func(f *fixture) string { return base64.StdEncoding.EncodeToString([]byte("[1,2]")) }),
		bad("trailing garbage after JSON", 1, raw(1, func(s string) string { return s + "}" })),
		bad("duplicate value field", 1, raw(1, func(s string) string {
			return strings.Replace(s, `"value":"1000"`, `"value":"1000","value":"1"`, 1)
		})),
		bad("duplicate top-level x402Version", 2, raw(2, func(s string) string {
			return strings.Replace(s, `{"x402Version":2`, `{"x402Version":2,"x402Version":2`, 1)
		})),
		bad("unknown authorization field", 2, authEdit(2, func(a map[string]any) { a["validUntil"] = "1" })),
		bad("unknown v1 top-level field", 1, func(f *fixture) string {
			return f.edited(1, func(m map[string]any) { m["accepted"] = map[string]any{} })
		}),
		bad("x402Version as a string", 1, func(f *fixture) string { return f.edited(1, func(m map[string]any) { m["x402Version"] = "1" }) }),
		bad("x402Version missing", 1, func(f *fixture) string { return f.edited(1, func(m map[string]any) { delete(m, "x402Version") }) }),
		bad("value as a JSON number", 2, authEdit(2, func(a map[string]any) { a["value"] = 1000 })),
		bad("value with a leading zero", 2, authEdit(2, func(a map[string]any) { a["value"] = "01000" })),
		bad("negative value", 1, authEdit(1, func(a map[string]any) { a["value"] = "-1000" })),
		bad("value wider than uint256", 1, authEdit(1, func(a map[string]any) { a["value"] = "2" + strings.Repeat("0", 77) })),
		bad("validBefore in hex", 2, authEdit(2, func(a map[string]any) { a["validBefore"] = "0x68f0b5a4" })),
		bad("19-byte from address", 2, authEdit(2, func(a map[string]any) { a["from"] = "0x" + strings.Repeat("ab", 19) })),
		bad("to without 0x", 2, authEdit(2, func(a map[string]any) { a["to"] = strings.Repeat("ab", 21) })),
		bad("31-byte nonce", 1, authEdit(1, func(a map[string]any) { a["nonce"] = "0x" + strings.Repeat("11", 31) })),
		bad("nonce missing", 1, authEdit(1, func(a map[string]any) { delete(a, "nonce") })),
		bad("signature not hex", 2, func(f *fixture) string {
			return f.edited(2, func(m map[string]any) { m["payload"].(map[string]any)["signature"] = "0xzz" + strings.Repeat("0", 128) })
		}),
		bad("v2 without accepted", 2, func(f *fixture) string { return f.edited(2, func(m map[string]any) { delete(m, "accepted") }) }),
		bad("payload missing", 1, func(f *fixture) string { return f.edited(1, func(m map[string]any) { delete(m, "payload") }) }),
		bad("authorization is a string", 1, func(f *fixture) string {
			return f.edited(1, func(m map[string]any) { m["payload"].(map[string]any)["authorization"] = "x" })
		}),

		// Version mix-ups: readable, but the wrong protocol (402).
		refused("v2 payment in the X-PAYMENT header", ReasonInvalidVersion, 1, func(f *fixture) string { return f.header(f.payment(2, nil)) }),
		refused("v1 payment in the PAYMENT-SIGNATURE header", ReasonInvalidVersion, 2, func(f *fixture) string { return f.header(f.payment(1, nil)) }),
		refused("x402Version 3", ReasonInvalidVersion, 2, func(f *fixture) string {
			return f.edited(2, func(m map[string]any) { m["x402Version"] = 3 })
		}),

		// Verification against the recomputed requirement (402).
		refused("network not offered", ReasonInvalidNetwork, 2, func(f *fixture) string {
			return f.edited(2, func(m map[string]any) { m["accepted"].(map[string]any)["network"] = "eip155:8453" })
		}),
		refused("v1 name in a v2 payment", ReasonInvalidNetwork, 2, func(f *fixture) string {
			return f.edited(2, func(m map[string]any) { m["accepted"].(map[string]any)["network"] = "base-sepolia" })
		}),
		refused("CAIP-2 id in a v1 payment", ReasonInvalidNetwork, 1, func(f *fixture) string {
			return f.edited(1, func(m map[string]any) { m["network"] = "eip155:84532" })
		}),
		refused("scheme upto", ReasonUnsupportedScheme, 1, func(f *fixture) string {
			return f.edited(1, func(m map[string]any) { m["scheme"] = "upto" })
		}),
		{name: "requirement of another scheme", version: 2, header: signed(2, nil), reason: ReasonInvalidScheme,
			reqs: func(f *fixture) []*Requirement { r := *f.req; r.Scheme = "upto"; return []*Requirement{&r} }},
		{name: "requirement without EIP-712 domain", version: 2, header: signed(2, nil), reason: ReasonInvalidRequirements,
			reqs: func(f *fixture) []*Requirement {
				r := *f.req
				r.Network = &Network{CAIP2: BaseSepolia.CAIP2, ChainID: BaseSepolia.ChainID, Asset: BaseSepolia.Asset}
				return []*Requirement{&r}
			}},
		refused("paid to someone else", ReasonRecipientMismatch, 2, signed(2, func(a *Authorization) { a.To[0] ^= 1 })),
		refused("one unit short", ReasonValue, 1, signed(1, func(a *Authorization) { a.Value = big.NewInt(999) })),
		refused("one unit over", ReasonValue, 2, signed(2, func(a *Authorization) { a.Value = big.NewInt(1001) })),
		refused("accepted claims a lower amount", ReasonValue, 2, func(f *fixture) string {
			r := *f.req
			r.Amount = big.NewInt(1)
			p := f.payment(2, func(a *Authorization) { a.Value = big.NewInt(1) })
			h, _ := EncodePayment(p, &r)
			return h
		}),
		refused("validAfter in the future", ReasonValidAfter, 2, signed(2, func(a *Authorization) { a.ValidAfter = big.NewInt(1_760_000_001) })),
		refused("validBefore too soon", ReasonValidBefore, 1, signed(1, func(a *Authorization) { a.ValidBefore = big.NewInt(1_760_000_005) })),
		refused("validBefore in the past", ReasonValidBefore, 2, signed(2, func(a *Authorization) { a.ValidBefore = big.NewInt(1_759_999_000) })),
		refused("validBefore beyond maxTimeoutSeconds plus skew", ReasonValidBefore, 2, signed(2, func(a *Authorization) {
			a.ValidBefore = big.NewInt(1_760_000_000 + 300 + int64(DefaultSkew.Seconds()) + 1)
		})),
		refused("validBefore far beyond int64", ReasonValidBefore, 2, signed(2, func(a *Authorization) {
			a.ValidBefore = new(big.Int).Lsh(big.NewInt(1), 200)
		})),
		refused("high-s signature", ReasonSignature, 2, func(f *fixture) string {
			return withSig(f, 2, func(sig []byte) []byte {
				s := new(big.Int).SetBytes(sig[32:64])
				new(big.Int).Sub(secpN, s).FillBytes(sig[32:64])
				sig[64] ^= 1 // 27 <-> 28: the same signer, the malleated form
				return sig
			})
		}),
		refused("v = 29", ReasonSignature, 1, func(f *fixture) string {
			return withSig(f, 1, func(sig []byte) []byte { sig[64] = 29; return sig })
		}),
		refused("r = 0", ReasonSignature, 2, func(f *fixture) string {
			return withSig(f, 2, func(sig []byte) []byte { clear(sig[0:32]); return sig })
		}),
		refused("s = n", ReasonSignature, 2, func(f *fixture) string {
			return withSig(f, 2, func(sig []byte) []byte { copy(sig[32:64], secpNBytes); return sig })
		}),
		refused("64-byte signature", ReasonSignature, 1, func(f *fixture) string {
			return withSig(f, 1, func(sig []byte) []byte { return sig[:64] })
		}),
		refused("smart-wallet signature without a checker", ReasonSignature, 2, func(f *fixture) string {
			return withSig(f, 2, func(sig []byte) []byte { return append(sig, make([]byte, 64)...) })
		}),
		refused("signed by another key", ReasonSignature, 2, func(f *fixture) string {
			p := f.payment(2, nil)
			other, _ := crypto.GenerateKey()
			p.Signature = sign(f.t, other, BaseSepolia, &p.Authorization)
			return f.header(p)
		}),
		refused("signed for another chain id", ReasonSignature, 2, func(f *fixture) string {
			p := f.payment(2, nil)
			resign(f, p, NewNetwork("", "", big.NewInt(8453), BaseSepolia.Asset, BaseSepolia.Name, BaseSepolia.Version))
			return f.header(p)
		}),
		refused("signed for another token", ReasonSignature, 1, func(f *fixture) string {
			p := f.payment(1, nil)
			resign(f, p, NewNetwork("", "", BaseSepolia.ChainID, Base.Asset, BaseSepolia.Name, BaseSepolia.Version))
			return f.header(p)
		}),
		refused("signed under another domain name", ReasonSignature, 2, func(f *fixture) string {
			p := f.payment(2, nil)
			resign(f, p, NewNetwork("", "", BaseSepolia.ChainID, BaseSepolia.Asset, "USD Coin", "2"))
			return f.header(p)
		}),
		refused("from swapped after signing", ReasonSignature, 1, func(f *fixture) string {
			p := f.payment(1, nil)
			p.Authorization.From[19] ^= 1
			return f.header(p)
		}),
		refused("nonce changed after signing", ReasonSignature, 2, func(f *fixture) string {
			p := f.payment(2, nil)
			p.Authorization.Nonce[5] ^= 1
			return f.header(p)
		}),
		{name: "checker refuses: low balance", version: 2, header: signed(2, nil), reason: ReasonInsufficientFunds,
			checker: checkerFunc(func(context.Context, *Payment, *Requirement) error {
				return &Error{Reason: ReasonInsufficientFunds, Message: "balance too low"}
			})},
		{name: "checker fails unexpectedly", version: 1, header: signed(1, nil), reason: ReasonUnexpectedVerifyError,
			checker: checkerFunc(func(context.Context, *Payment, *Requirement) error { return errors.New("rpc down") })},
	}
	if len(cases) < 30 {
		t.Fatalf("only %d failure cases", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			reqs := []*Requirement{f.req}
			if tc.reqs != nil {
				reqs = tc.reqs(f)
			}
			v := f.verifier()
			v.Checker = tc.checker
			p, err := DecodePayment(tc.header(f), tc.version)
			if err == nil {
				_, err = v.Verify(context.Background(), p, reqs)
			}
			var xe *Error
			if !errors.As(err, &xe) {
				t.Fatalf("got %v, want an *Error with reason %s", err, tc.reason)
			}
			if xe.Reason != tc.reason || xe.Malformed != tc.malformed {
				t.Fatalf("got reason %s (malformed %v: %s), want %s (malformed %v)", xe.Reason, xe.Malformed, xe.Message, tc.reason, tc.malformed)
			}
			if xe.Message == "" {
				t.Error("refusal without a message")
			}
		})
	}
}

func TestValidPaymentsPass(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version int
		edit    func(a *Authorization)
		sig     func(sig []byte) []byte
		checker bool
	}{
		{name: "v1 with validAfter now-600", version: 1},
		{name: "v2 with validAfter 0", version: 2, edit: func(a *Authorization) { a.ValidAfter = new(big.Int) }},
		{name: "v in {0,1}", version: 2, sig: func(sig []byte) []byte { sig[64] -= 27; return sig }},
		{name: "validBefore exactly now+6", version: 2, edit: func(a *Authorization) { a.ValidBefore = big.NewInt(1_760_000_006) }},
		{name: "validBefore at the upper bound", version: 1, edit: func(a *Authorization) {
			a.ValidBefore = big.NewInt(1_760_000_000 + 300 + int64(DefaultSkew.Seconds()))
		}},
		{name: "smart-wallet signature left to the checker", version: 2, checker: true,
			sig: func(sig []byte) []byte { return append(sig, make([]byte, 100)...) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			p := f.payment(tc.version, tc.edit)
			if tc.sig != nil {
				p.Signature = tc.sig(p.Signature)
			}
			v := f.verifier()
			checked := false
			if tc.checker {
				v.Checker = checkerFunc(func(_ context.Context, got *Payment, req *Requirement) error {
					checked = len(got.Signature) > 65 && req == f.req
					return nil
				})
			}
			decoded, err := DecodePayment(f.header(p), tc.version)
			if err != nil {
				t.Fatal(err)
			}
			other := &Requirement{Scheme: SchemeExact, Network: Base, Amount: big.NewInt(5), PayTo: f.payTo, MaxTimeoutSeconds: 60}
			got, err := v.Verify(context.Background(), decoded, []*Requirement{other, f.req})
			if err != nil {
				t.Fatal(err)
			}
			if got != f.req {
				t.Fatalf("Verify chose %+v, want the Base Sepolia requirement", got)
			}
			if tc.checker && !checked {
				t.Fatal("the checker did not see the smart-wallet payment")
			}
		})
	}
}

func TestDecodeKeepsRawAndReadsAcceptedOnlyForSchemeAndNetwork(t *testing.T) {
	f := newFixture(t)
	p := f.payment(2, nil)
	h := f.header(p)
	got, err := DecodePayment(h, 2)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Raw) != string(p.Raw) {
		t.Errorf("Raw = %s, want %s", got.Raw, p.Raw)
	}
	if got.Scheme != "exact" || got.Network != "eip155:84532" || got.Version != 2 {
		t.Errorf("decoded %s/%s v%d", got.Scheme, got.Network, got.Version)
	}
	a, b := got.Authorization, p.Authorization
	if a.From != b.From || a.To != b.To || a.Value.Cmp(b.Value) != 0 || a.ValidAfter.Cmp(b.ValidAfter) != 0 ||
		a.ValidBefore.Cmp(b.ValidBefore) != 0 || a.Nonce != b.Nonce || string(got.Signature) != string(p.Signature) {
		t.Errorf("authorization changed in transit: %+v vs %+v", a, b)
	}
}
