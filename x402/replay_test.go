package x402

import "testing"

func TestPaymentKeyIgnoresSignature(t *testing.T) {
	f := newFixture(t)
	p := f.payment(2, nil)
	q := *p
	q.Signature = append([]byte(nil), p.Signature...)
	q.Signature[64] ^= 1
	if p.Key(BaseSepolia) != q.Key(BaseSepolia) {
		t.Fatal("the replay key depends on signature bytes")
	}
	if p.Key(BaseSepolia) == p.Key(Base) {
		t.Fatal("the replay key ignores the chain")
	}
	if got := p.Authorization.Expires().Unix(); got != p.Authorization.ValidBefore.Int64() {
		t.Fatalf("Expires() = %d, want validBefore", got)
	}
}
