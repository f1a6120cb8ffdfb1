package x402

import (
	"context"
	"testing"
)

func BenchmarkDigest(b *testing.B) {
	f := newFixture(b)
	a := f.authorization()
	b.ReportAllocs()
	for b.Loop() {
		BaseSepolia.Digest(&a)
	}
}

// BenchmarkVerify measures local verification: checks, digest and recovery.
func BenchmarkVerify(b *testing.B) {
	f := newFixture(b)
	p := f.payment(2, nil)
	v := f.verifier()
	reqs := []*Requirement{f.req}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := v.Verify(ctx, p, reqs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodePayment(b *testing.B) {
	f := newFixture(b)
	h := f.header(f.payment(2, nil))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodePayment(h, 2); err != nil {
			b.Fatal(err)
		}
	}
}
