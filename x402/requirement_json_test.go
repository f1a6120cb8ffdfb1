package x402

import (
	"errors"
	"math/big"
	"testing"
)

func TestRequirementJSONIsTheOfferEntryOfEachVersion(t *testing.T) {
	f := newFixture(t)
	v2, err := RequirementJSON(2, f.req)
	if err != nil {
		t.Fatal(err)
	}
	want2 := `{"scheme":"exact","network":"eip155:84532","amount":"1000","asset":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":300,"extra":{"name":"USDC","version":"2"}}`
	if string(v2) != want2 {
		t.Errorf("v2\n got %s\nwant %s", v2, want2)
	}
	v1, err := RequirementJSON(1, f.req)
	if err != nil {
		t.Fatal(err)
	}
	want1 := `{"scheme":"exact","network":"base-sepolia","maxAmountRequired":"1000","resource":"https://farebox.example/v1/responses","description":"model m","mimeType":"application/json","payTo":"0x209693Bc6afc0C5328bA36FaF03C514EF312287C","maxTimeoutSeconds":300,"asset":"0x036CbD53842c5426634e7929541eC2318f3dCF7e","extra":{"name":"USDC","version":"2"}}`
	if string(v1) != want1 {
		t.Errorf("v1\n got %s\nwant %s", v1, want1)
	}
	if accepts := V1Accepts([]*Requirement{f.req}); string(accepts) != "["+want1+"]" {
		t.Errorf("V1Accepts holds %s, not the v1 requirement", accepts)
	}
}

func TestRequirementJSONRefusesWhatCannotBeExpressed(t *testing.T) {
	f := newFixture(t)
	custom := &Requirement{Scheme: SchemeExact, Network: customNetwork, Amount: big.NewInt(1), PayTo: f.payTo, MaxTimeoutSeconds: 300}
	cases := []struct {
		name    string
		version int
		r       *Requirement
		reason  string
	}{
		{"nil requirement", 2, nil, ReasonInvalidRequirements},
		{"no amount", 2, &Requirement{Scheme: SchemeExact, Network: BaseSepolia}, ReasonInvalidRequirements},
		{"no network", 1, &Requirement{Scheme: SchemeExact, Amount: big.NewInt(1)}, ReasonInvalidRequirements},
		{"v1 without a v1 name", 1, custom, ReasonInvalidNetwork},
		{"version 3", 3, f.req, ReasonInvalidVersion},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b, err := RequirementJSON(tc.version, tc.r)
			var e *Error
			if !errors.As(err, &e) || e.Reason != tc.reason {
				t.Fatalf("got %s, %v; want an *Error with reason %s", b, err, tc.reason)
			}
		})
	}
	if _, err := RequirementJSON(2, custom); err != nil {
		t.Errorf("v2 needs no v1 name: %v", err)
	}
}
