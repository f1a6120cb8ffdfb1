package x402

import (
	"encoding/base64"
	"encoding/json"
	"math/big"
	"strings"
	"testing"
)

func TestPaymentRequiredHeaderIsTheV2Shape(t *testing.T) {
	f := newFixture(t)
	base := &Requirement{Scheme: SchemeExact, Network: Base, Amount: big.NewInt(2500), PayTo: f.payTo, MaxTimeoutSeconds: 60,
		Resource: f.req.Resource, Description: f.req.Description, MimeType: f.req.MimeType}
	h := PaymentRequiredHeader([]*Requirement{f.req, base}, "payment required")
	raw, err := base64.StdEncoding.Strict().DecodeString(h)
	if err != nil {
		t.Fatalf("not padded standard base64: %v", err)
	}
	want := `{"x402Version":2,"error":"payment required","resource":{"url":"https://farebox.example/v1/responses","description":"model m","mimeType":"application/json"},` +
		`"accepts":[{"scheme":"exact","network":"eip155:84532","amount":"1000","asset":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":300,"extra":{"name":"USDC","version":"2"}},` +
		`{"scheme":"exact","network":"eip155:8453","amount":"2500","asset":"0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":60,"extra":{"name":"USD Coin","version":"2"}}]}`
	if string(raw) != want {
		t.Fatalf("PAYMENT-REQUIRED JSON\n got %s\nwant %s", raw, want)
	}
	offers, err := DecodePaymentRequired(h)
	if err != nil {
		t.Fatal(err)
	}
	got, err := offers[1].Requirement(DefaultRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if got.Network != Base || got.Amount.Cmp(base.Amount) != 0 || got.PayTo != base.PayTo || got.Resource != base.Resource {
		t.Fatalf("offer read back as %+v", got)
	}
	if raw := PaymentRequiredHeader(nil, ""); !strings.Contains(mustB64(t, raw), `"accepts":[]`) {
		t.Errorf("no requirements: %s", mustB64(t, raw))
	}
}

func mustB64(t *testing.T, s string) string {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestV1AcceptsHasEveryFieldTheV1ClientValidates(t *testing.T) {
	f := newFixture(t)
	custom := &Requirement{Scheme: SchemeExact, Network: customNetwork, Amount: big.NewInt(1), PayTo: f.payTo, MaxTimeoutSeconds: 300}
	b := V1Accepts([]*Requirement{custom, f.req})
	var got []map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("v1 accepts = %s: the network without a v1 name must be left out", b)
	}
	e := got[0]
	for k, want := range map[string]any{
		"scheme": "exact", "network": "base-sepolia", "maxAmountRequired": "1000", "resource": f.req.Resource,
		"description": "model m", "mimeType": "application/json", "payTo": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
		"maxTimeoutSeconds": 300.0, "asset": "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
	} {
		if e[k] != want {
			t.Errorf("%s = %#v, want %#v", k, e[k], want)
		}
	}
	if _, present := e["outputSchema"]; present {
		t.Error("outputSchema present; the v1 client refuses null")
	}
	if x, _ := e["extra"].(map[string]any); x["name"] != "USDC" || x["version"] != "2" {
		t.Errorf("extra = %v", e["extra"])
	}
	if string(V1Accepts(nil)) != "[]" {
		t.Errorf("V1Accepts(nil) = %s, want []", V1Accepts(nil))
	}
	body := `{"error":{"message":"pay"},"x402Version":1,"accepts":` + string(b) + `}`
	offers, err := DecodeV1Offers([]byte(body))
	if err != nil || len(offers) != 1 {
		t.Fatalf("DecodeV1Offers: %v %v", offers, err)
	}
	if r, err := offers[0].Requirement(DefaultRegistry()); err != nil || r.Network != BaseSepolia || r.Amount.Int64() != 1000 {
		t.Fatalf("v1 offer read back as %+v, %v", r, err)
	}
}

func TestOfferRequirementRefusesUnknownTokens(t *testing.T) {
	o := Offer{Version: 2, Scheme: "exact", Network: "eip155:84532", Amount: "1000", Asset: Base.Asset.Hex(),
		PayTo: "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", MaxTimeoutSeconds: 60}
	if _, err := o.Requirement(DefaultRegistry()); err == nil {
		t.Error("an offer naming Base's token on Base Sepolia was accepted")
	}
	o.Asset, o.Network = BaseSepolia.Asset.Hex(), "eip155:1"
	if _, err := o.Requirement(DefaultRegistry()); err == nil {
		t.Error("an offer on an unconfigured chain was accepted")
	}
}
