package x402

import (
	"encoding/base64"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func TestDecodeKeepsOtherSchemesPayloadRaw(t *testing.T) {
	env := `{"x402Version":2,"accepted":{"scheme":"upto","network":"eip155:1337"},"payload":{"signature":"0x01","permit2Authorization":{"from":"0x1"}},"extensions":{"eip2612GasSponsoring":{"info":{}}}}`
	p, err := DecodePayment(base64.StdEncoding.EncodeToString([]byte(env)), 2)
	if err != nil {
		t.Fatal(err)
	}
	if p.Scheme != "upto" || string(p.Payload) != `{"signature":"0x01","permit2Authorization":{"from":"0x1"}}` ||
		string(p.Extensions) != `{"eip2612GasSponsoring":{"info":{}}}` {
		t.Fatalf("decoded %+v", p)
	}
	// exact still decodes strictly: the upto payload is not an exact one.
	exact := `{"x402Version":2,"accepted":{"scheme":"exact","network":"eip155:1337"},"payload":{"signature":"0x01","permit2Authorization":{}}}`
	if _, err := DecodePayment(base64.StdEncoding.EncodeToString([]byte(exact)), 2); err == nil {
		t.Fatal("an exact payment with an upto payload decoded")
	}
}

func TestOfferListsOtherSchemesFirst(t *testing.T) {
	n := NewNetwork("", "", big.NewInt(1337), common.HexToAddress("0x1"), "USDC", "2")
	r := &Requirement{Scheme: "exact", Network: n, Amount: big.NewInt(5), Resource: "http://x/v1/responses"}
	h := PaymentRequiredHeaderOffer([]*Requirement{r}, []json.RawMessage{json.RawMessage(`{"scheme":"upto"}`)}, "payment_required",
		map[string]json.RawMessage{"eip2612GasSponsoring": json.RawMessage(`{}`)})
	raw, _ := base64.StdEncoding.DecodeString(h)
	var pr struct {
		Accepts    []struct{ Scheme string }
		Extensions map[string]json.RawMessage
		Resource   struct{ URL string }
	}
	if err := json.Unmarshal(raw, &pr); err != nil {
		t.Fatal(err)
	}
	if len(pr.Accepts) != 2 || pr.Accepts[0].Scheme != "upto" || pr.Accepts[1].Scheme != "exact" ||
		pr.Extensions["eip2612GasSponsoring"] == nil || pr.Resource.URL != r.Resource {
		t.Fatalf("offer %s", raw)
	}
}

func TestReceiptCarriesChannelStateRaw(t *testing.T) {
	r := &Receipt{Success: true, Payer: "0x1", Network: "eip155:1337",
		Extra: ReceiptExtra{ChargedAmount: "12", ChannelState: `{"channelId":"0xab","balance":"100"}`}}
	raw, _ := base64.StdEncoding.DecodeString(EncodeReceipt(r))
	if string(raw) != `{"success":true,"payer":"0x1","transaction":"","network":"eip155:1337","extra":{"chargedAmount":"12","channelState":{"channelId":"0xab","balance":"100"}}}` {
		t.Fatalf("encoded %s", raw)
	}
	back, err := DecodeReceipt(base64.StdEncoding.EncodeToString([]byte(`{"success":true,"payer":"0x1","transaction":"","network":"eip155:1337","extra":{"chargedAmount":"12","channelState":{ "channelId" : "0xab", "balance":"100"}}}`)))
	if err != nil || *back != *r {
		t.Fatalf("decoded %+v, %v", back, err)
	}
	plain, _ := base64.StdEncoding.DecodeString(EncodeReceipt(&Receipt{Success: true}))
	if string(plain) != `{"success":true,"payer":"","transaction":"","network":""}` {
		t.Fatalf("an exact receipt grew: %s", plain)
	}
}
