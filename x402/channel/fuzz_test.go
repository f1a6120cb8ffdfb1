package channel

import (
	"errors"
	"testing"
)

// FuzzDecodePayload feeds arbitrary payloads to the decoder and the
// verifiers: none may panic, and every refusal is an *Error (or one of the
// two sentinels that send the caller to the chain).
func FuzzDecodePayload(f *testing.F) {
	fx := newFixture(f)
	f.Add(fx.payloadJSON(f, TypeVoucher, 4000, nil))
	f.Add(fx.payloadJSON(f, TypeRefund, 3000, nil))
	f.Add(fx.payloadJSON(f, TypeDeposit, 4000, map[string]any{"amount": "10", "authorization": map[string]any{
		"permit2Authorization": map[string]any{"from": fx.cfg.Payer.Hex(), "permitted": map[string]any{"token": fx.net.Asset.Hex(), "amount": "10"},
			"spender": fx.c.Permit2Collector.Hex(), "nonce": "1", "deadline": "1800000100",
			"witness": map[string]any{"channelId": "0x" + string(make([]byte, 0))}, "signature": "0x01"}}}))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := DecodePayload(raw)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("DecodePayload returned a %T", err)
			}
			return
		}
		v := fx.verifier()
		check := func(err error) {
			var e *Error
			if err != nil && !errors.As(err, &e) && err != ErrNeedsChain && err != ErrStale {
				t.Fatalf("verify returned %v", err)
			}
		}
		if p.Type == TypeRefund {
			_, err = v.VerifyRefund(p, fx.req, fx.terms, fx.state())
			check(err)
			return
		}
		check(v.Verify(p, fx.req, fx.terms, fx.state()))
		if p.Deposit != nil {
			_, err := fx.c.DepositCalldata(p, nil)
			check(err)
		}
	})
}

// BenchmarkVerifyVoucher is the per-request cost of a voucher call: the
// checks, the channel id and voucher digests and one signature recovery.
func BenchmarkVerifyVoucher(b *testing.B) {
	f := newFixture(b)
	p, err := DecodePayload(f.payloadJSON(b, TypeVoucher, 4000, nil))
	if err != nil {
		b.Fatal(err)
	}
	st := f.state()
	v := f.verifier()
	b.ReportAllocs()
	for b.Loop() {
		if err := v.Verify(p, f.req, f.terms, st); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodePayload(b *testing.B) {
	f := newFixture(b)
	raw := f.payloadJSON(b, TypeVoucher, 4000, nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodePayload(raw); err != nil {
			b.Fatal(err)
		}
	}
}
