package x402

import (
	"encoding/base64"
	"encoding/hex"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/tidwall/gjson"
)

// MaxPaymentHeaderBytes caps the encoded size of a payment header. A real
// EOA payment is about 700 bytes (v1) or 1.2 KiB (v2 with `accepted`);
// smart-wallet signatures make it longer, but never near this.
const MaxPaymentHeaderBytes = 8 << 10

// Reason codes of docs/wire.md §6 that clients understand.
const (
	ReasonInsufficientFunds     = "insufficient_funds"
	ReasonSignature             = "invalid_exact_evm_payload_signature"
	ReasonValidAfter            = "invalid_exact_evm_payload_authorization_valid_after"
	ReasonValidBefore           = "invalid_exact_evm_payload_authorization_valid_before"
	ReasonValue                 = "invalid_exact_evm_payload_authorization_value"
	ReasonRecipientMismatch     = "invalid_exact_evm_payload_recipient_mismatch"
	ReasonInvalidNetwork        = "invalid_network"
	ReasonInvalidPayload        = "invalid_payload"
	ReasonInvalidRequirements   = "invalid_payment_requirements"
	ReasonInvalidScheme         = "invalid_scheme"
	ReasonUnsupportedScheme     = "unsupported_scheme"
	ReasonInvalidVersion        = "invalid_x402_version"
	ReasonInvalidTxState        = "invalid_transaction_state"
	ReasonUnexpectedVerifyError = "unexpected_verify_error"
	ReasonUnexpectedSettleError = "unexpected_settle_error"
	ReasonNonceAlreadyUsed      = "invalid_exact_evm_nonce_already_used"
)

func malformed(msg string) *Error {
	return &Error{Reason: ReasonInvalidPayload, Message: msg, Malformed: true}
}

// DecodePayment decodes a payment header: the v2 PAYMENT-SIGNATURE header
// when version is 2, the v1 X-PAYMENT header when version is 1. Decoding is
// strict (standard padded base64, valid JSON, no duplicate or unknown keys
// in the parts that are verified, decimal-string amounts, 20-byte addresses,
// a 32-byte nonce). A header that cannot be read yields an *Error with
// Malformed set; a readable payload of the other protocol version yields
// invalid_x402_version. In v2 the `accepted` echo only contributes Scheme
// and Network: it is never trusted for anything else. A v2 payment of
// another scheme than exact keeps its payload and extensions raw (see
// Payment.Payload) for that scheme's package to decode.
func DecodePayment(header string, version int) (*Payment, error) {
	if version != 1 && version != 2 {
		return nil, &Error{Reason: ReasonInvalidVersion, Message: "unsupported x402 version"}
	}
	if header == "" {
		return nil, malformed("empty payment header")
	}
	if len(header) > MaxPaymentHeaderBytes {
		return nil, malformed("payment header larger than 8 KiB")
	}
	if strings.ContainsAny(header, "\r\n") {
		return nil, malformed("payment header is not standard base64")
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(header)
	if err != nil {
		return nil, malformed("payment header is not standard padded base64")
	}
	if !gjson.ValidBytes(raw) {
		return nil, malformed("payment header is not valid JSON")
	}
	root := gjson.ParseBytes(raw)
	if !root.IsObject() {
		return nil, malformed("payment header is not a JSON object")
	}
	p := &Payment{Raw: raw}
	if err := decodeTop(root, version, p); err != nil {
		return nil, err
	}
	return p, nil
}

// maxMembers bounds the members of any object the decoder looks into.
const maxMembers = 16

// members is one JSON object's members in order, kept in a fixed array
// rather than a map: the objects are tiny and this keeps decoding cheap.
type members struct {
	n    int
	keys [maxMembers]string
	vals [maxMembers]gjson.Result
}

func (m *members) get(key string) (gjson.Result, bool) {
	for i := 0; i < m.n; i++ {
		if m.keys[i] == key {
			return m.vals[i], true
		}
	}
	return gjson.Result{}, false
}

// fields collects the members of one JSON object, refusing duplicates.
func fields(obj gjson.Result, where string, m *members) *Error {
	var bad *Error
	m.n = 0
	obj.ForEach(func(k, v gjson.Result) bool {
		if _, seen := m.get(k.Str); seen {
			bad = malformed("duplicate field " + quote(k.Str) + " in " + where)
			return false
		}
		if m.n == maxMembers {
			bad = malformed("too many fields in " + where)
			return false
		}
		m.keys[m.n], m.vals[m.n] = k.Str, v
		m.n++
		return true
	})
	return bad
}

// onlyKeys refuses members outside the allowed set.
func onlyKeys(m *members, where string, allowed ...string) *Error {
	for _, k := range m.keys[:m.n] {
		ok := false
		for _, a := range allowed {
			if k == a {
				ok = true
				break
			}
		}
		if !ok {
			return malformed("unknown field " + quote(k) + " in " + where)
		}
	}
	return nil
}

func decodeTop(root gjson.Result, version int, p *Payment) error {
	var top members
	if e := fields(root, "payment", &top); e != nil {
		return e
	}
	var e *Error
	ver, ok := top.get("x402Version")
	if !ok {
		return malformed("x402Version is missing")
	}
	if ver.Type != gjson.Number || (ver.Raw != "1" && ver.Raw != "2") {
		if ver.Type == gjson.Number {
			return &Error{Reason: ReasonInvalidVersion, Message: "x402Version " + quote(ver.Raw) + " is not supported"}
		}
		return malformed("x402Version must be a number")
	}
	p.Version = int(ver.Raw[0] - '0')
	if p.Version != version {
		hdr := HeaderXPayment
		if version == 2 {
			hdr = HeaderPaymentSignature
		}
		return &Error{Reason: ReasonInvalidVersion, Message: "an x402Version " + ver.Raw + " payment was sent in the " + hdr + " header"}
	}
	if version == 1 {
		if e := onlyKeys(&top, "payment", "x402Version", "scheme", "network", "payload"); e != nil {
			return e
		}
		if p.Scheme, e = str(&top, "scheme", "payment", true); e != nil {
			return e
		}
		if p.Network, e = str(&top, "network", "payment", true); e != nil {
			return e
		}
	} else {
		if e := onlyKeys(&top, "payment", "x402Version", "accepted", "payload", "resource", "extensions"); e != nil {
			return e
		}
		if e := decodeAccepted(&top, p); e != nil {
			return e
		}
		for _, k := range []string{"resource", "extensions"} {
			if v, ok := top.get(k); ok && !v.IsObject() && v.Type != gjson.Null {
				return malformed(k + " must be an object")
			}
		}
	}
	payload, ok := top.get("payload")
	if !ok || !payload.IsObject() {
		return malformed("payload must be an object")
	}
	if version == 2 && p.Scheme != SchemeExact {
		// Another scheme's payload: its package decodes it.
		p.Payload = []byte(payload.Raw)
		if ext, ok := top.get("extensions"); ok && ext.IsObject() {
			p.Extensions = []byte(ext.Raw)
		}
		return nil
	}
	return decodePayload(payload, p)
}

// decodeAccepted reads only scheme and network from the v2 `accepted` echo.
func decodeAccepted(top *members, p *Payment) error {
	acc, ok := top.get("accepted")
	if !ok || !acc.IsObject() {
		return malformed("accepted must be an object")
	}
	var m members
	if e := fields(acc, "accepted", &m); e != nil {
		return e
	}
	var e *Error
	if p.Scheme, e = str(&m, "scheme", "accepted", true); e != nil {
		return e
	}
	if p.Network, e = str(&m, "network", "accepted", true); e != nil {
		return e
	}
	return nil
}

func decodePayload(payload gjson.Result, p *Payment) error {
	var m members
	if e := fields(payload, "payload", &m); e != nil {
		return e
	}
	if e := onlyKeys(&m, "payload", "signature", "authorization"); e != nil {
		return e
	}
	sig, e := str(&m, "signature", "payload", true)
	if e != nil {
		return e
	}
	if p.Signature, e = hexBytes(sig, "signature"); e != nil {
		return e
	}
	auth, ok := m.get("authorization")
	if !ok || !auth.IsObject() {
		return malformed("payload.authorization must be an object")
	}
	a := &m // the payload's members are no longer needed
	if e := fields(auth, "authorization", a); e != nil {
		return e
	}
	if e := onlyKeys(a, "authorization", "from", "to", "value", "validAfter", "validBefore", "nonce"); e != nil {
		return e
	}
	out := &p.Authorization
	if out.From, e = addressField(a, "from"); e != nil {
		return e
	}
	if out.To, e = addressField(a, "to"); e != nil {
		return e
	}
	// The three amounts share one allocation when they fit in a word each
	// (they always do in practice: six-decimal USDC and Unix times).
	small := new(smallUints)
	if out.Value, e = uintField(a, "value", small, 0); e != nil {
		return e
	}
	if out.ValidAfter, e = uintField(a, "validAfter", small, 1); e != nil {
		return e
	}
	if out.ValidBefore, e = uintField(a, "validBefore", small, 2); e != nil {
		return e
	}
	nonce, e := str(a, "nonce", "authorization", true)
	if e != nil {
		return e
	}
	if len(nonce) != 66 || !has0x(nonce) {
		return malformed("authorization.nonce must be 32 bytes of 0x-prefixed hex")
	}
	if _, err := hex.Decode(out.Nonce[:], []byte(nonce[2:])); err != nil {
		return malformed("authorization.nonce is not hex")
	}
	return nil
}

// str reads a string member; a present member of another type is refused.
func str(m *members, key, where string, required bool) (string, *Error) {
	v, ok := m.get(key)
	if !ok {
		if required {
			return "", malformed(where + "." + key + " is missing")
		}
		return "", nil
	}
	if v.Type != gjson.String {
		return "", malformed(where + "." + key + " must be a string")
	}
	return v.Str, nil
}

func has0x(s string) bool { return len(s) >= 2 && s[0] == '0' && s[1] == 'x' }

func hexBytes(s, name string) ([]byte, *Error) {
	if !has0x(s) || len(s) < 4 || len(s)%2 != 0 {
		return nil, malformed(name + " must be 0x-prefixed hex with an even number of digits")
	}
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return nil, malformed(name + " is not hex")
	}
	return b, nil
}

func addressField(m *members, key string) (common.Address, *Error) {
	var a common.Address
	s, e := str(m, key, "authorization", true)
	if e != nil {
		return a, e
	}
	if len(s) != 42 || !has0x(s) {
		return a, malformed("authorization." + key + " must be a 20-byte 0x-prefixed address")
	}
	if _, err := hex.Decode(a[:], []byte(s[2:])); err != nil {
		return a, malformed("authorization." + key + " is not hex")
	}
	return a, nil
}

// smallUints backs an authorization's three amounts.
type smallUints struct {
	ints  [3]big.Int
	words [3]big.Word
}

// uintField reads a uint256 written as a canonical decimal string.
// A value below 2^64 is stored in small's slot i instead of a big.Int and
// words of its own.
func uintField(m *members, key string, small *smallUints, i int) (*big.Int, *Error) {
	s, e := str(m, key, "authorization", true)
	if e != nil {
		return nil, e
	}
	if s == "" || len(s) > 78 || !allDigits(s) || (len(s) > 1 && s[0] == '0') {
		return nil, malformed("authorization." + key + " must be a decimal string")
	}
	if u, err := strconv.ParseUint(s, 10, 64); err == nil {
		small.words[i] = big.Word(u)
		if bits.UintSize == 32 && u > math.MaxUint32 {
			return new(big.Int).SetUint64(u), nil
		}
		// Capacity one: growing the number later reallocates rather than
		// writing over its neighbour.
		return small.ints[i].SetBits(small.words[i : i+1 : i+1]), nil
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.BitLen() > 256 {
		return nil, malformed("authorization." + key + " does not fit in uint256")
	}
	return n, nil
}
