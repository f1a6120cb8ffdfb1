package x402

import (
	"encoding/base64"
	"encoding/json"
	"errors"
)

// maxReceiptHeaderBytes bounds what DecodeReceipt accepts from a server.
const maxReceiptHeaderBytes = 4 << 10

// EncodeReceipt renders a SettleResponse as the value of the PAYMENT-RESPONSE
// (v2) or X-PAYMENT-RESPONSE (v1) header: standard padded base64 of its JSON.
func EncodeReceipt(r *Receipt) string {
	b, _ := json.Marshal(r) // strings and a bool: cannot fail
	return base64.StdEncoding.EncodeToString(b)
}

// DecodeReceipt reads a PAYMENT-RESPONSE / X-PAYMENT-RESPONSE header value.
func DecodeReceipt(header string) (*Receipt, error) {
	if header == "" || len(header) > maxReceiptHeaderBytes {
		return nil, errors.New("x402: receipt header is empty or too large")
	}
	raw, err := base64.StdEncoding.DecodeString(header)
	if err != nil {
		return nil, errors.New("x402: receipt header is not standard base64")
	}
	var r Receipt
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, errors.New("x402: receipt header is not a SettleResponse: " + err.Error())
	}
	return &r, nil
}
