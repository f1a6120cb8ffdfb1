package gateway_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/tidwall/gjson"
)

// withPaymentID adds the payment-identifier extension's id to a v2 payment
// header, as a client that names its purchase does.
func withPaymentID(t *testing.T, header, id string) string {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(header)
	if err != nil {
		t.Fatal(err)
	}
	js := strings.TrimSuffix(string(raw), "}") + `,"extensions":{"payment-identifier":{"info":{"id":"` + id + `"}}}}`
	return base64.StdEncoding.EncodeToString([]byte(js))
}

// x402's payment-identifier extension is declared in the 402 and honoured:
// the same id and payload get the same result (served again with the same
// receipt, charged once), the same id with another payment is a 409, and a
// malformed id a 400.
func TestPaymentIdentifierNamesOnePurchase(t *testing.T) {
	ts, c := startPaid(t, "after")
	res, _ := post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"hi"}`)
	if !gjson.Get(decodeHeader(t, res.Header.Get(x402.HeaderPaymentRequired)), `extensions.payment-identifier`).Exists() {
		t.Fatal("the 402 does not declare payment-identifier")
	}
	signer := payer.NewSigner(c.PayerKey)
	offer := offerFor(t, ts, c)
	name, first, err := signer.PaymentHeader(offer, 2)
	if err != nil {
		t.Fatal(err)
	}
	_, second, err := signer.PaymentHeader(offer, 2)
	if err != nil {
		t.Fatal(err)
	}
	const id = "purchase-0123456789abcdef"
	before := tokenBalance(t, c, c.Payer)
	body := `{"model":"` + paid + `","input":"named purchase"}`

	res, b := post(t, ts.URL+"/responses", body, name, withPaymentID(t, first, id))
	r1, err := x402.DecodeReceipt(res.Header.Get(x402.HeaderPaymentResponse))
	if res.StatusCode != 200 || err != nil || !r1.Success {
		t.Fatalf("the named purchase: %d %s", res.StatusCode, b)
	}
	res, b = post(t, ts.URL+"/responses", body, name, withPaymentID(t, first, id))
	r2, err := x402.DecodeReceipt(res.Header.Get(x402.HeaderPaymentResponse))
	if res.StatusCode != 200 || err != nil || r2.Transaction != r1.Transaction {
		t.Fatalf("the same id and payload again: %d %s (receipt %+v)", res.StatusCode, b, r2)
	}
	res, b = post(t, ts.URL+"/responses", body, name, withPaymentID(t, second, id))
	if res.StatusCode != 409 || gjson.GetBytes(b, "error.code").String() != "idempotency_conflict" {
		t.Fatalf("the same id with another payment: %d %s", res.StatusCode, b)
	}
	res, b = post(t, ts.URL+"/responses", body, name, withPaymentID(t, second, "short"))
	if res.StatusCode != 400 || gjson.GetBytes(b, "error.code").String() != "invalid_payment_identifier" {
		t.Fatalf("a malformed id: %d %s", res.StatusCode, b)
	}
	if spent := before.Int64() - tokenBalance(t, c, c.Payer).Int64(); spent != atomics {
		t.Errorf("spent %d, want one price", spent)
	}
}

func decodeHeader(t *testing.T, h string) string {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
