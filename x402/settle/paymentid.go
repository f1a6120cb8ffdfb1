package settle

import (
	"errors"

	"github.com/tidwall/gjson"
)

// PaymentIdentifier is the x402 extension that names a purchase
// (specs/extensions/payment_identifier.md in coinbase/x402).
const PaymentIdentifier = "payment-identifier"

// ErrInvalidPaymentID is returned when the payment-identifier id is not 16 to 128 letters,
// digits, hyphens or underscores (HTTP 402, reason invalid_payload).
var ErrInvalidPaymentID = errors.New("settle: the payment-identifier id must be 16 to 128 letters, digits, '-' or '_'")

// PaymentIDOf reads extensions["payment-identifier"].info.id from a
// payment header's JSON (x402.Payment.Raw); "" when there is none.
func PaymentIDOf(raw []byte) string {
	return gjson.GetBytes(raw, `extensions.payment-identifier.info.id`).String()
}

// ValidPaymentID reports whether id has the spec's format.
func ValidPaymentID(id string) bool {
	if len(id) < 16 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
