package agent_test

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/agent"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/payer/payertest"
	"github.com/farebox/farebox/x402/upto"
)

// TestHostileSellerCannotStretchTheAgentsBudget: a seller answering every
// upto payment with a receipt of 0 does not make the agent's budget look
// unspent: the budget counts each signed maximum, so a budget of 2.5
// maxima pays two turns and signs nothing for the third.
func TestHostileSellerCannotStretchTheAgentsBudget(t *testing.T) {
	shop, srv := payertest.NewShop(t, x402.BaseSepolia, 1000, payertest.Charges(0))
	shop.Schemes = []string{upto.Scheme}
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	tr := payer.NewTransport(payer.NewSigner(key))
	a, err := agent.New(agent.Config{Client: agent.NewClient(srv.URL+"/v1/", tr), Model: "m", Budget: big.NewInt(2500)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, err := a.Ask(context.Background(), "hi"); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
	if _, err := a.Ask(context.Background(), "hi"); !errors.Is(err, agent.ErrBudget) {
		t.Fatalf("third turn: %v, want ErrBudget", err)
	}
	if n := len(shop.Seen()); n != 2 || a.Spent().Int64() != 2000 {
		t.Fatalf("%d payments, spent %s: want 2 and the 2000 signed", n, a.Spent())
	}
}
