package x402

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestReceiptRoundTrips(t *testing.T) {
	r := &Receipt{Success: true, Payer: "0x857b06519E91e3A54538791bDbb0E22373e36b66", Transaction: "0x" + strings.Repeat("ab", 32), Network: "eip155:84532"}
	h := EncodeReceipt(r)
	raw, err := base64.StdEncoding.DecodeString(h)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"success":true`) || strings.Contains(string(raw), "errorReason") {
		t.Errorf("receipt JSON = %s", raw)
	}
	got, err := DecodeReceipt(h)
	if err != nil {
		t.Fatal(err)
	}
	if *got != *r {
		t.Errorf("DecodeReceipt = %+v, want %+v", got, r)
	}
	failed := EncodeReceipt(&Receipt{ErrorReason: ReasonInsufficientFunds, Network: "base"})
	raw, _ = base64.StdEncoding.DecodeString(failed)
	if !strings.Contains(string(raw), `"transaction":""`) || !strings.Contains(string(raw), `"success":false`) {
		t.Errorf("failed receipt JSON = %s", raw)
	}
	for _, bad := range []string{"", "%%%", base64.StdEncoding.EncodeToString([]byte("[]"))} {
		if _, err := DecodeReceipt(bad); err == nil {
			t.Errorf("DecodeReceipt(%q) succeeded", bad)
		}
	}
}
