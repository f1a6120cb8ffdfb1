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

func BenchmarkMemoryStoreReserve(b *testing.B) {
	s := NewMemoryStore(1 << 20)
	f := newFixture(b)
	exp := f.now.Add(1 << 40)
	k := testKey(0)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		k.Nonce[1], k.Nonce[2], k.Nonce[3] = byte(i), byte(i>>8), byte(i>>16)
		s.Reserve(ctx, k, exp)
		s.Release(ctx, k)
	}
}
