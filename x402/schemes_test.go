package x402

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

type namedScheme struct{ name, tag string }

func (s namedScheme) Name() string                        { return s.name }
func (s namedScheme) Accept(*Requirement) json.RawMessage { return json.RawMessage(`"` + s.tag + `"`) }
func (namedScheme) Metered() bool                         { return true }
func (namedScheme) Authorize(context.Context, *Payment, *Requirement, Facts) (Hold, error) {
	return nil, nil
}

// The registry answers by name in the order schemes were offered, and a
// scheme registered again replaces the first without moving.
func TestSchemesRegistry(t *testing.T) {
	var r Schemes
	if r.Lookup("upto") != nil {
		t.Fatal("an empty registry found a scheme")
	}
	r.Register(namedScheme{"batch-settlement", "a"})
	r.Register(namedScheme{"upto", "b"})
	r.Register(namedScheme{"batch-settlement", "c"})
	if got := r.Lookup("batch-settlement").Accept(nil); string(got) != `"c"` {
		t.Errorf("lookup after replacing: %s", got)
	}
	if all := r.All(); len(all) != 2 || all[0].Name() != "batch-settlement" || all[1].Name() != "upto" {
		t.Errorf("order %v", all)
	}
	if r.Lookup("exact") != nil {
		t.Error("found a scheme never registered")
	}
	var none *Schemes
	if none.Lookup("upto") != nil || none.All() != nil {
		t.Error("a nil registry is not empty")
	}
}

// AcceptJSON writes the fields every scheme's requirement shares in the
// reference SDK's order, with the scheme's own extra.
func TestAcceptJSONShape(t *testing.T) {
	net := NewNetwork("", "", big.NewInt(84532), common.HexToAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e"), "USDC", "2")
	req := &Requirement{Network: net, Amount: big.NewInt(50000), PayTo: common.HexToAddress("0xbeef"), MaxTimeoutSeconds: 300}
	got := string(AcceptJSON(req, "upto", struct {
		F string `json:"f"`
	}{"x"}))
	want := `{"scheme":"upto","network":"` + req.Network.CAIP2 + `","amount":"` + req.Amount.String() + `","asset":"` +
		req.Network.Asset.Hex() + `","payTo":"` + req.PayTo.Hex() + `","maxTimeoutSeconds":` + jsonInt(req.MaxTimeoutSeconds) + `,"extra":{"f":"x"}}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }

// A payment of a scheme no registered scheme serves is refused exactly as
// the exact verifier refused it before the registry: invalid_network when
// its network is not offered, else unsupported_scheme.
func TestUnsupportedIsTheVerifiersRefusal(t *testing.T) {
	n := NewNetwork("", "base-sepolia", big.NewInt(84532), common.HexToAddress("0x1"), "USDC", "2")
	reqs := []*Requirement{{Scheme: SchemeExact, Network: n, Amount: big.NewInt(5)}}
	for _, p := range []*Payment{
		{Version: 2, Scheme: "solana-exact", Network: n.CAIP2},
		{Version: 2, Scheme: "solana-exact", Network: "eip155:8453"},
		{Version: 1, Scheme: "upto", Network: "base-sepolia"},
		{Version: 1, Scheme: "upto", Network: n.CAIP2},
	} {
		_, want := (&Verifier{}).VerifyLocal(context.Background(), p, reqs)
		got := Unsupported(p, reqs)
		if want == nil || got.Error() != want.Error() {
			t.Errorf("%s on %s (v%d): %v, want %v", p.Scheme, p.Network, p.Version, got, want)
		}
	}
}

// Refusal never marks a refusal malformed, and never changes the error it
// was given.
func TestRefusalIsNeverMalformed(t *testing.T) {
	m := &Error{Reason: ReasonInvalidPayload, Message: "x", Malformed: true}
	if r := Refusal(m, ""); r.Malformed || r.Reason != m.Reason || !m.Malformed {
		t.Errorf("refusal %+v of %+v", r, m)
	}
	if r := Refusal(errors.New("boom"), ReasonUnexpectedVerifyError); r.Reason != ReasonUnexpectedVerifyError || r.Malformed {
		t.Errorf("refusal %+v", r)
	}
}
