package settle

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/farebox/farebox/x402"

	"github.com/farebox/farebox/internal/jsonstr"
)

// AppendJSON appends e's JSON to dst: byte for byte what json.Marshal(e)
// writes (field order, omitempty, HTML-safe string escaping, base64
// Payment, hex addresses and hashes, decimal amounts, RFC 3339 times), so
// journals written either way read alike, but without reflection: the
// journals encode an entry before every write-ahead step. Like
// json.Marshal, it fails on a time that RFC 3339 cannot express (a year
// outside [0,9999], a zone offset of 24 hours or more); dst is then
// returned unchanged. A nil dst is fine: the buffer is sized for e.
func (e *Entry) AppendJSON(dst []byte) ([]byte, error) {
	dst = slices.Grow(dst, e.jsonSize())
	n0 := len(dst)
	var err error
	b := append(dst, `{"chainId":`...)
	b = appendString(b, e.ChainID)
	b = appendHexField(b, `,"asset":`, e.Asset[:])
	b = appendHexField(b, `,"payer":`, e.Payer[:])
	b = appendHexField(b, `,"nonce":`, e.Nonce[:])
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, int64(e.Version), 10)
	b = append(b, `,"payment":`...)
	if e.Payment == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, e.Payment)
		b = append(b, '"')
	}
	b = append(b, `,"network":`...)
	b = appendString(b, e.Network)
	b = append(b, `,"amount":`...)
	b = appendBig(b, e.Amount)
	if e.Charge != nil {
		b = append(b, `,"charge":`...)
		b = appendBig(b, e.Charge)
	}
	b = appendHexField(b, `,"payTo":`, e.PayTo[:])
	b = appendHexField(b, `,"bodyHash":`, e.BodyHash[:])
	if e.PaymentID != "" {
		b = append(b, `,"paymentId":`...)
		b = appendString(b, e.PaymentID)
	}
	b = append(b, `,"state":`...)
	b = appendString(b, string(e.State))
	b = appendHexField(b, `,"tx":`, e.Tx[:])
	if e.Receipt != nil {
		b = append(b, `,"receipt":`...)
		if b, err = appendReceipt(b, e.Receipt); err != nil {
			return dst[:n0], err
		}
	}
	if e.Reason != "" {
		b = append(b, `,"reason":`...)
		b = appendString(b, e.Reason)
	}
	if e.Owner != "" {
		b = append(b, `,"owner":`...)
		b = appendString(b, e.Owner)
	}
	if e.Model != "" {
		b = append(b, `,"model":`...)
		b = appendString(b, e.Model)
	}
	if e.Supplier != "" {
		b = append(b, `,"supplier":`...)
		b = appendString(b, e.Supplier)
	}
	for i, t := range [...]time.Time{e.Created, e.Updated, e.Expires} {
		b = append(b, timeNames[i]...)
		if b, err = appendTime(b, t); err != nil {
			return dst[:n0], err
		}
	}
	return append(b, '}'), nil
}

// jsonSize is about the length of e's JSON, so that AppendJSON allocates
// once: the fixed part (names, hex, times) and the variable one, with room
// for a few escapes.
func (e *Entry) jsonSize() int {
	n := 640 + base64.StdEncoding.EncodedLen(len(e.Payment)) + len(e.ChainID) + len(e.Network) +
		len(e.PaymentID) + len(e.State) + len(e.Reason) + len(e.Owner) + len(e.Model) + len(e.Supplier)
	if e.Amount != nil {
		n += e.Amount.BitLen()/3 + 1
	}
	if e.Charge != nil {
		n += e.Charge.BitLen()/3 + 1
	}
	if r := e.Receipt; r != nil {
		n += 128 + len(r.ErrorReason) + len(r.Payer) + len(r.Transaction) + len(r.Network) + len(r.Amount) +
			len(r.Extra.ChargedAmount) + len(r.Extra.ChannelState)
	}
	return n
}

// appendReceipt appends r as json.Marshal writes an x402.Receipt.
func appendReceipt(b []byte, r *x402.Receipt) ([]byte, error) {
	if r.Success {
		b = append(b, `{"success":true`...)
	} else {
		b = append(b, `{"success":false`...)
	}
	if r.ErrorReason != "" {
		b = append(b, `,"errorReason":`...)
		b = appendString(b, r.ErrorReason)
	}
	b = append(b, `,"payer":`...)
	b = appendString(b, r.Payer)
	b = append(b, `,"transaction":`...)
	b = appendString(b, r.Transaction)
	b = append(b, `,"network":`...)
	b = appendString(b, r.Network)
	if r.Amount != "" {
		b = append(b, `,"amount":`...)
		b = appendString(b, r.Amount)
	}
	switch x := r.Extra; {
	case x == x402.ReceiptExtra{}: // omitzero
	case x.ChannelState == "":
		// ReceiptExtra.MarshalJSON writes {"chargedAmount":...} alone.
		b = append(b, `,"extra":{"chargedAmount":`...)
		b = appendString(b, x.ChargedAmount)
		b = append(b, '}')
	default:
		// A channel's state, which settlements never carry: its raw JSON
		// is checked and compacted as ReceiptExtra.MarshalJSON does.
		xb, err := json.Marshal(x)
		if err != nil {
			return b, err
		}
		b = append(b, `,"extra":`...)
		b = append(b, xb...)
	}
	return append(b, '}'), nil
}

// appendHexField appends name and src as "0x" and lowercase hex, which is
// what common.Address's and common.Hash's MarshalText write.
func appendHexField(b []byte, name string, src []byte) []byte {
	b = append(b, name...)
	b = append(b, `"0x`...)
	b = hex.AppendEncode(b, src)
	return append(b, '"')
}

// appendBig appends x as (*big.Int).MarshalJSON writes it: decimal, or
// null for nil.
func appendBig(b []byte, x *big.Int) []byte {
	switch {
	case x == nil:
		return append(b, "null"...)
	case x.IsInt64(): // without Append's allocation
		return strconv.AppendInt(b, x.Int64(), 10)
	}
	return x.Append(b, 10)
}

// appendTime appends t quoted as time.Time's MarshalJSON writes it, with
// json.Marshal's error for a time RFC 3339 cannot express.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	tb, err := t.AppendText(append(b, '"'))
	if err != nil { // tb is nil
		_, err = t.MarshalJSON() // its error, which json.Marshal wraps so
		return b, &json.MarshalerError{Type: reflect.TypeFor[time.Time](), Err: err}
	}
	return append(tb, '"'), nil
}

// appendString appends s quoted as encoding/json writes strings, with its
// default HTML escaping.
func appendString(b []byte, s string) []byte { return jsonstr.Append(b, s, true) }

// timeNames are the names of Entry's times, in order.
var timeNames = [...]string{`,"created":`, `,"updated":`, `,"expires":`}
