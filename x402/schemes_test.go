package x402

import (
	"context"
	"encoding/json"
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
