package settle

import (
	"bytes"
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"

	"github.com/farebox/farebox/x402"
)

// checkEntryJSON fails unless e.AppendJSON writes what json.Marshal(e)
// writes (or fails as it does), after any prefix in dst.
func checkEntryJSON(t testing.TB, e *Entry) []byte {
	t.Helper()
	want, wantErr := json.Marshal(e)
	prefix := []byte("prefix")
	got, err := e.AppendJSON(prefix[:len(prefix):len(prefix)])
	switch {
	case wantErr != nil || err != nil:
		if wantErr == nil || err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("AppendJSON error = %v, json.Marshal error = %v\nentry: %#v", err, wantErr, e)
		}
		if string(got) != "prefix" {
			t.Fatalf("AppendJSON failed but returned %q, want dst unchanged", got)
		}
		return nil
	case !bytes.HasPrefix(got, prefix):
		t.Fatalf("AppendJSON lost dst: %q", got)
	case !bytes.Equal(got[len(prefix):], want):
		t.Fatalf("AppendJSON differs from json.Marshal\n got: %s\nwant: %s\nentry: %#v", got[len(prefix):], want, e)
	}
	if nil0, err := e.AppendJSON(nil); err != nil || !bytes.Equal(nil0, want) {
		t.Fatalf("AppendJSON(nil) = %s, %v; want %s", nil0, err, want)
	}
	return want
}

// checkRoundTrip fails unless b decodes to an entry that encodes to b
// again, for entries whose strings are valid UTF-8 (json.Unmarshal
// replaces invalid bytes), whose zone offsets are whole minutes and whose
// channel state is compact.
func checkRoundTrip(t testing.TB, e *Entry, b []byte) {
	t.Helper()
	strs := []string{e.ChainID, e.Network, e.PaymentID, string(e.State), e.Reason, e.Owner, e.Model, e.Supplier}
	if r := e.Receipt; r != nil {
		strs = append(strs, r.ErrorReason, r.Payer, r.Transaction, r.Network, r.Amount, r.Extra.ChargedAmount)
		if r.Extra.ChannelState != "" {
			return
		}
	}
	for _, s := range strs {
		if !utf8.ValidString(s) {
			return
		}
	}
	for _, t := range []time.Time{e.Created, e.Updated, e.Expires} {
		if _, off := t.Zone(); off%60 != 0 { // RFC 3339 has no seconds of offset
			return
		}
	}
	var d Entry
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("json.Unmarshal(%s): %v", b, err)
	}
	again, err := d.AppendJSON(nil)
	if err != nil || !bytes.Equal(again, b) {
		t.Fatalf("round trip:\n got: %s, %v\nwant: %s", again, err, b)
	}
}

func TestEntryJSONExamples(t *testing.T) {
	now := time.Date(2025, 3, 4, 5, 6, 7, 123456789, time.FixedZone("", -(3*3600+30*60)))
	full := &Entry{ChainID: "8453", Asset: common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
		Payer: common.Address{0xab, 0xcd}, Nonce: common.Hash{0xff, 1, 2}, Version: 2,
		Payment: []byte(`{"x402Version":2,"payload":{"signature":"0x..."}}`), Network: "eip155:8453",
		Amount: big.NewInt(1_000_000), Charge: big.NewInt(0), PayTo: common.Address{0xa1}, BodyHash: common.Hash{9},
		PaymentID: "pay_<1>&\"2\"", State: Broadcast, Tx: common.Hash{0xee},
		Receipt: &x402.Receipt{Success: true, Payer: "0xabcd", Transaction: "0xee", Network: "eip155:8453",
			Amount: "0", Extra: x402.ReceiptExtra{ChargedAmount: "0"}},
		Reason: "line\u2028sep\u2029 \x00\x1f\x7f \xff", Owner: "host-1/é", Model: "gpt<4>", Supplier: "vllm &1", Created: now, Updated: now.UTC(),
		Expires: now.Add(time.Hour).In(time.Local)}
	cases := map[string]*Entry{
		"zero":  {},
		"entry": full,
		"empty payment": func() *Entry {
			e := full.Clone()
			e.Payment, e.Amount, e.Charge = []byte{}, nil, nil
			return e
		}(),
		"big amounts": func() *Entry {
			e := full.Clone()
			e.Amount, _ = new(big.Int).SetString("115792089237316195423570985008687907853269984665640564039457584007913129639935", 10)
			e.Charge = big.NewInt(-42)
			return e
		}(),
		"failed receipt": func() *Entry {
			e := full.Clone()
			e.Receipt = &x402.Receipt{ErrorReason: "insufficient_funds"}
			return e
		}(),
		"channel state": func() *Entry {
			e := full.Clone()
			e.Receipt.Extra.ChannelState = `{"a": "<b>", "c":[1, 2]}`
			return e
		}(),
		"invalid channel state": func() *Entry {
			e := full.Clone()
			e.Receipt.Extra = x402.ReceiptExtra{ChannelState: `{`}
			return e
		}(),
		"year 10000":       func() *Entry { e := full.Clone(); e.Updated = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC); return e }(),
		"year -1":          func() *Entry { e := full.Clone(); e.Expires = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC); return e }(),
		"zone of 24 hours": func() *Entry { e := full.Clone(); e.Created = now.In(time.FixedZone("", 24*3600)); return e }(),
	}
	for name, e := range cases {
		t.Run(name, func(t *testing.T) {
			if b := checkEntryJSON(t, e); b != nil {
				checkRoundTrip(t, e, b)
			}
		})
	}
	if _, err := cases["year 10000"].AppendJSON(nil); err == nil {
		t.Fatal("AppendJSON of a time in year 10000 did not fail")
	}
}

func TestEntryJSONDecodes(t *testing.T) {
	e := &Entry{ChainID: "1", Payment: []byte("p<>"), Amount: big.NewInt(5), Charge: big.NewInt(3), State: Settling,
		Reason: "<&>", Created: time.Date(2024, 1, 2, 3, 4, 5, 6, time.FixedZone("", 3600)),
		Receipt: &x402.Receipt{Success: true, Payer: "p", Extra: x402.ReceiptExtra{ChargedAmount: "3"}}}
	b, err := e.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	var d Entry
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	if !d.Created.Equal(e.Created) || d.Amount.Cmp(e.Amount) != 0 || d.Charge.Cmp(e.Charge) != 0 {
		t.Fatalf("decoded %+v, want %+v", d, e)
	}
	d.Created, d.Amount, d.Charge = e.Created, e.Amount, e.Charge
	d.Updated, d.Expires = e.Updated, e.Expires // zero times decode as the zero time in UTC
	if !bytes.Equal(d.Payment, e.Payment) || d.Reason != e.Reason || *d.Receipt != *e.Receipt {
		t.Fatalf("decoded %+v, want %+v", d, e)
	}
}

// TestEntryJSONKnowsEveryField fails when Entry or x402.Receipt gains,
// loses or renames a field: AppendJSON must then change with it (a new
// omitempty field would otherwise be left out silently).
func TestEntryJSONKnowsEveryField(t *testing.T) {
	tags := func(typ reflect.Type) (s []string) {
		for f := range typ.Fields() {
			s = append(s, f.Name+" "+f.Type.String()+" "+f.Tag.Get("json"))
		}
		return s
	}
	want := []string{"ChainID string chainId", "Asset common.Address asset", "Payer common.Address payer",
		"Nonce common.Hash nonce", "Version int version", "Payment []uint8 payment", "Network string network",
		"Amount *big.Int amount", "Charge *big.Int charge,omitempty", "PayTo common.Address payTo",
		"BodyHash common.Hash bodyHash", "PaymentID string paymentId,omitempty", "State settle.State state",
		"Tx common.Hash tx", "Receipt *x402.Receipt receipt,omitempty", "Reason string reason,omitempty",
		"Owner string owner,omitempty", "Model string model,omitempty", "Supplier string supplier,omitempty",
		"Created time.Time created", "Updated time.Time updated",
		"Expires time.Time expires"}
	if got := tags(reflect.TypeFor[Entry]()); !slices.Equal(got, want) {
		t.Errorf("Entry's fields are\n%q\nAppendJSON writes\n%q", got, want)
	}
	want = []string{"Success bool success", "ErrorReason string errorReason,omitempty", "Payer string payer",
		"Transaction string transaction", "Network string network", "Amount string amount,omitempty",
		"Extra x402.ReceiptExtra extra,omitzero"}
	if got := tags(reflect.TypeFor[x402.Receipt]()); !slices.Equal(got, want) {
		t.Errorf("x402.Receipt's fields are\n%q\nappendReceipt writes\n%q", got, want)
	}
	want = []string{"ChargedAmount string ", "ChannelState string "}
	if got := tags(reflect.TypeFor[x402.ReceiptExtra]()); !slices.Equal(got, want) {
		t.Errorf("x402.ReceiptExtra's fields are\n%q\nappendReceipt writes\n%q", got, want)
	}
}

// pieces are what random strings are made of: the characters encoding/json
// escapes and a few it does not.
var pieces = []string{"", "a", "eip155:8453", `"`, `\`, "<", ">", "&", "\n", "\r", "\t", "\b", "\f", "\x00",
	"\x1f", "\x7f", " ", "/", "é", "日本", "\u2028", "\u2029", "\u2027", "\U0001F600", "\xff", "\xe2\x80",
	"\xe2\x80\xa8", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\ufffd", "'"}

func randString(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return ""
	}
	var sb strings.Builder
	for range r.IntN(8) {
		sb.WriteString(pieces[r.IntN(len(pieces))])
	}
	return sb.String()
}

func randBig(r *rand.Rand) *big.Int {
	switch r.IntN(5) {
	case 0:
		return nil
	case 1:
		return new(big.Int)
	case 2:
		return big.NewInt(r.Int64() - r.Int64())
	default:
		x := new(big.Int).Lsh(big.NewInt(r.Int64()), uint(r.IntN(256)))
		if r.IntN(4) == 0 {
			x.Neg(x)
		}
		return x
	}
}

func randTime(r *rand.Rand) time.Time {
	var t time.Time
	switch r.IntN(6) {
	case 0:
		return t
	case 1: // anywhere from year 0 to 9999 (or just beyond)
		t = time.Unix(r.Int64N(320_000_000_000)-62_200_000_000, r.Int64N(1e9))
	default:
		t = time.Unix(r.Int64N(1<<32), r.Int64N(1e9))
		if r.IntN(2) == 0 {
			t = t.Truncate(time.Duration(r.IntN(4)) * 1000 * time.Microsecond)
		}
	}
	switch r.IntN(4) {
	case 0:
		return t.UTC()
	case 1:
		return t.Local()
	case 2:
		return t.In(time.FixedZone("z", 60*(r.IntN(2*24*60+1)-24*60)))
	default: // with seconds, as some historical zones have
		return t.In(time.FixedZone("z", r.IntN(2*24*3600+1)-24*3600))
	}
}

func randHash(r *rand.Rand) (h common.Hash) {
	if r.IntN(3) != 0 {
		for i := range h {
			h[i] = byte(r.Uint32())
		}
	}
	return h
}

func randEntry(r *rand.Rand) *Entry {
	e := &Entry{ChainID: randString(r), Asset: common.BytesToAddress(randHash(r).Bytes()),
		Payer: common.BytesToAddress(randHash(r).Bytes()), Nonce: randHash(r), Version: int(r.Int64() >> r.IntN(64)),
		Network: randString(r), Amount: randBig(r), Charge: randBig(r), PayTo: common.BytesToAddress(randHash(r).Bytes()),
		BodyHash: randHash(r), PaymentID: randString(r), State: State(randString(r)), Tx: randHash(r),
		Reason: randString(r), Owner: randString(r), Model: randString(r), Supplier: randString(r), Created: randTime(r), Updated: randTime(r), Expires: randTime(r)}
	if r.IntN(2) == 0 {
		e.Version = -e.Version
	}
	switch r.IntN(4) {
	case 0: // nil
	case 1:
		e.Payment = []byte{}
	case 2:
		e.Payment = make([]byte, r.IntN(5000))
	default:
		e.Payment = make([]byte, r.IntN(8))
	}
	for i := range e.Payment {
		e.Payment[i] = byte(r.Uint32())
	}
	if r.IntN(2) == 0 {
		e.Receipt = &x402.Receipt{Success: r.IntN(2) == 0, ErrorReason: randString(r), Payer: randString(r),
			Transaction: randString(r), Network: randString(r), Amount: randString(r)}
		switch r.IntN(4) {
		case 0:
			e.Receipt.Extra.ChargedAmount = randString(r)
		case 1:
			e.Receipt.Extra.ChannelState = `{"id":` + string(appendString(nil, randString(r))) + ` }`
		case 2:
			e.Receipt.Extra.ChannelState = randString(r)
		}
	}
	return e
}

func TestEntryJSONMatchesMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	n := 20_000
	if testing.Short() {
		n = 2000
	}
	for range n {
		e := randEntry(r)
		if b := checkEntryJSON(t, e); b != nil {
			checkRoundTrip(t, e, b)
		}
	}
}

func FuzzEntryJSONMatchesMarshal(f *testing.F) {
	f.Add("8453", "eip155:8453", "", "reserved", "", "", []byte(`{"x402Version":2}`), "", "", int64(2), int64(10_000), int64(1_700_000_000_123_456_789), 0, uint8(0))
	f.Add("1", "eip155:1", "id<&>", "failed", "no \"funds\"\n", "host\u2028", []byte{}, "0xab", "7", int64(-1), int64(-5), int64(0), -3600*5-1800, uint8(0xff))
	f.Add("\xff", "\u2029", "é", "broadcast", "\x00", "日本", []byte(nil), "{\"a\": 1}", "", int64(1<<40), int64(0), int64(-1<<63), 24*3600-1, uint8(0x5a))
	f.Fuzz(func(t *testing.T, chainID, network, paymentID, state, reason, owner string, payment []byte,
		receipt, charged string, version, amount, unixNano int64, zone int, flags uint8) {
		loc := time.FixedZone("", zone%(48*3600))
		ts := time.Unix(0, unixNano).In(loc)
		e := &Entry{ChainID: chainID, Asset: common.BytesToAddress(payment), Payer: common.Address{byte(flags)},
			Nonce: common.BytesToHash([]byte(reason)), Version: int(version), Payment: payment, Network: network,
			Amount: big.NewInt(amount), PayTo: common.BytesToAddress([]byte(owner)), BodyHash: common.Hash{byte(zone)},
			PaymentID: paymentID, State: State(state), Tx: common.BytesToHash([]byte(chainID)), Reason: reason,
			Owner: owner, Created: ts, Updated: ts.Add(time.Duration(amount)), Expires: time.Unix(amount, version).UTC()}
		if flags&1 != 0 {
			e.Amount = nil
		}
		if flags&2 != 0 {
			e.Charge = new(big.Int).Lsh(big.NewInt(amount), uint(flags))
		}
		if flags&4 != 0 && payment == nil {
			e.Payment = []byte{}
		}
		if flags&8 != 0 {
			e.Receipt = &x402.Receipt{Success: flags&16 != 0, ErrorReason: reason, Payer: owner, Transaction: receipt,
				Network: network, Amount: charged, Extra: x402.ReceiptExtra{ChargedAmount: charged}}
			if flags&32 != 0 {
				e.Receipt.Extra.ChannelState = receipt
			}
		}
		if flags&64 != 0 {
			e.Created = time.Time{}
		}
		if b := checkEntryJSON(t, e); b != nil {
			checkRoundTrip(t, e, b)
		}
	})
}

// benchEntry is a Broadcast entry as a chain settlement journals it: an
// EIP-3009 payment header of the usual size and a receipt.
func benchEntry() *Entry {
	now := time.Now()
	payment := []byte(`{"x402Version":2,"resource":{"url":"https://api.example.com/v1/chat/completions","description":"chat","mimeType":"application/json"},` +
		`"accepted":{"scheme":"exact","network":"eip155:8453","amount":"10000","asset":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",` +
		`"payTo":"0x00000000000000000000000000000000000000a1","maxTimeoutSeconds":60,"extra":{"name":"USD Coin","version":"2"}},` +
		`"payload":{"signature":"0x` + strings.Repeat("ab", 65) + `","authorization":{"from":"0x00000000000000000000000000000000000000b0",` +
		`"to":"0x00000000000000000000000000000000000000a1","value":"10000","validAfter":"0","validBefore":"1900000000",` +
		`"nonce":"0x` + strings.Repeat("cd", 32) + `"}}}`)
	return &Entry{ChainID: "8453", Asset: common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
		Payer: common.Address{0xb0}, Nonce: common.Hash{0xcd}, Version: 2, Payment: payment, Network: "eip155:8453",
		Amount: big.NewInt(10_000), PayTo: common.Address{0xa1}, BodyHash: common.Hash{1}, PaymentID: "pay_0123456789abcdef",
		State: Broadcast, Tx: common.Hash{0xee},
		Receipt: &x402.Receipt{Success: true, Payer: "0x00000000000000000000000000000000000000b0",
			Transaction: "0xee00000000000000000000000000000000000000000000000000000000000000", Network: "eip155:8453"},
		Owner: "farebox-7f9c", Created: now, Updated: now, Expires: now.Add(time.Minute)}
}

func BenchmarkEntryJSON(b *testing.B) {
	e := benchEntry()
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(e); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := e.AppendJSON(nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
