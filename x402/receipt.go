package x402

import (
	"bytes"
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

type receiptExtraJSON struct {
	ChargedAmount string          `json:"chargedAmount,omitempty"`
	ChannelState  json.RawMessage `json:"channelState,omitempty"`
}

// MarshalJSON writes extra with channelState as the JSON object it holds
// (left out when it is not valid JSON).
func (e ReceiptExtra) MarshalJSON() ([]byte, error) {
	j := receiptExtraJSON{ChargedAmount: e.ChargedAmount}
	if e.ChannelState != "" && json.Valid([]byte(e.ChannelState)) {
		j.ChannelState = json.RawMessage(e.ChannelState)
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads extra, keeping channelState as compact raw JSON.
func (e *ReceiptExtra) UnmarshalJSON(b []byte) error {
	var j receiptExtraJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*e = ReceiptExtra{ChargedAmount: j.ChargedAmount}
	if len(j.ChannelState) > 0 && string(j.ChannelState) != "null" {
		var c bytes.Buffer
		if err := json.Compact(&c, j.ChannelState); err != nil {
			return err
		}
		e.ChannelState = c.String()
	}
	return nil
}
