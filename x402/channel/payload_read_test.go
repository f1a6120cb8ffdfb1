package channel

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzReadPayloadMatchesEncodingJSON holds the hand-written payload reader
// to encoding/json's reading of the same structs: the same input refused,
// the same fields filled, so replacing reflection changed no decision.
func FuzzReadPayloadMatchesEncodingJSON(f *testing.F) {
	fx := newFixture(f)
	f.Add(fx.payloadJSON(f, TypeVoucher, 4000, nil))
	f.Add(fx.payloadJSON(f, TypeRefund, 3000, nil))
	f.Add(fx.payloadJSON(f, TypeDeposit, 4000, map[string]any{"amount": "10", "authorization": map[string]any{
		"erc3009Authorization": map[string]any{"validAfter": "0", "validBefore": "1", "salt": "0x00", "signature": "0x01"}}}))
	for _, s := range []string{
		`null`, `[]`, `"voucher"`, `{"type":5}`, `{"type":null,"voucher":null}`,
		`{"TYPE":"voucher","Voucher":{"channelid":"0x01"},"voucher":{"signature":"0x02"}}`,
		`{"type":"refund","amount":null}`, `{"type":"refund","amount":"1","amount":null}`,
		`{"channelConfig":{"withdrawDelay":null,"withdrawDelay":"90"}}`, `{"channelConfig":{"withdrawDelay":{"a":1}}}`,
		`{"deposit":{"authorization":{"permit2Authorization":{"permitted":{"token":"a"},"permitted":{"amount":"1"}}}}}`,
		`{"deposit":{"authorization":{"erc3009Authorization":{"salt":"a"},"erc3009Authorization":null}}}`,
		`{"deposit":{"authorization":[]}}`, `{"voucher":{"channelId":1}}`, `{"\u0074ype":"voucher","ſalt":1}`,
		`{"voucher":{"maxClaimableAmount":"1","maxclaimableamount":null}}`, `{"type":"voucher"} `, `{"type":"a\ud800"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want, got payloadJSON
		wantOK := json.Unmarshal(raw, &want) == nil
		gotOK := readPayload(raw, &got)
		if gotOK != wantOK {
			t.Fatalf("%q: read ok %v, encoding/json ok %v", raw, gotOK, wantOK)
		}
		if wantOK && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\nread          %+v\nencoding/json %+v", raw, got, want)
		}
	})
}
