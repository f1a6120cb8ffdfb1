package x402

import (
	"context"
	"testing"
)

// FuzzDecodePayment feeds arbitrary header values to the decoder and the
// verifier: neither may panic, every refusal is an *Error, and a payment
// that decodes encodes and decodes back to itself.
func FuzzDecodePayment(f *testing.F) {
	fx := newFixture(f)
	f.Add(fx.header(fx.payment(1, nil)), 1)
	f.Add(fx.header(fx.payment(2, nil)), 2)
	f.Fuzz(func(t *testing.T, header string, version int) {
		p, err := DecodePayment(header, version)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("DecodePayment returned a %T", err)
			}
			return
		}
		if p.Version != version {
			t.Fatalf("decoded version %d from the v%d header", p.Version, version)
		}
		checkRoundTrip(t, fx, p)
		v := fx.verifier()
		if _, err := v.Verify(context.Background(), p, []*Requirement{fx.req}); err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Verify returned a %T", err)
			}
		}
	})
}
