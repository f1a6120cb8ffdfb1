package gateway_test

import (
	"strconv"
	"testing"

	"github.com/farebox/farebox/x402/payer"
)

// BenchmarkPaidCall is one paid, non-streaming call at a time through the
// whole server on the in-process dev chain (mining on demand), settle:
// after with the chain settler and confirm broadcast: what a paid call
// costs end to end, the scripted model answering at once. Compare it
// across changes to the payment lifecycle:
//
//	go test -run '^$' -bench PaidCall -benchtime 200x ./gateway
func BenchmarkPaidCall(b *testing.B) {
	ts, c := startPaid(b, "after")
	req := offerFor(b, ts, c)
	signer := payer.NewSigner(c.PayerKey)
	names, values := make([]string, b.N), make([]string, b.N)
	for i := range values {
		var err error
		if names[i], values[i], err = signer.PaymentHeader(req, 2); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, body := post(b, ts.URL+"/responses", `{"model":"`+paid+`","input":"bench `+strconv.Itoa(i)+`"}`, names[i], values[i])
		if res.StatusCode != 200 {
			b.Fatalf("call %d: %d %s", i, res.StatusCode, body)
		}
	}
}
