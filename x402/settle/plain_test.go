package settle_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// plainSettler shows only Settle, as a remote facilitator does.
type plainSettler struct{ s x402.Settler }

func (p plainSettler) Settle(ctx context.Context, pay *x402.Payment, req *x402.Requirement) (*x402.Receipt, error) {
	return p.s.Settle(ctx, pay, req)
}

// A settler without a broadcast step (a remote facilitator; here the chain
// settler seen only through Settle) is journaled before and after its
// Settle: confirmed when it returns, released when it refuses.
func TestPlainSettlerIsJournaledAroundSettle(t *testing.T) {
	ctx := context.Background()
	j := settle.NewMemoryJournal(100)
	e, ev := newEngine(t, settle.Config{Journal: j, Settler: plainSettler{settler.Settler}})
	if e.Confirm() != settle.ConfirmMined {
		t.Fatalf("default confirm mode for a plain settler = %s, want mined", e.Confirm())
	}
	b := newBuyer(t, price)
	pu := b.purchase(b.pay(t), "plain")
	p, err := e.Begin(ctx, pu)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := p.Settle(ctx)
	if err != nil || !rc.Success {
		t.Fatalf("Settle = %+v, %v", rc, err)
	}
	if got := ev.await(t, settle.EventSettling, p.Entry().Name()); got.Entry.State != settle.Settling {
		t.Fatalf("journaled before Settle in state %s", got.Entry.State)
	}
	en, err := j.Get(ctx, pu.Payment.Key(chain.Network))
	if err != nil || en.State != settle.Confirmed || en.Receipt.Transaction != rc.Transaction {
		t.Fatalf("entry after Settle = %+v, %v", en, err)
	}
	again, err := e.Begin(ctx, pu)
	if err != nil || !again.Replay() {
		t.Fatalf("retry = %v, want a replay", err)
	}

	// No in-flight accounting without balances: the second purchase is
	// accepted and refused by the chain, which releases it.
	refused := b.purchase(b.pay(t), "plain 2")
	p2, err := e.Begin(ctx, refused)
	if err != nil {
		t.Fatal(err)
	}
	rc2, err := p2.Settle(ctx)
	var xe *x402.Error
	if !errors.As(err, &xe) || rc2.Success {
		t.Fatalf("Settle without funds = %+v, %v; want a refusal", rc2, err)
	}
	if _, err := j.Get(ctx, refused.Payment.Key(chain.Network)); !errors.Is(err, settle.ErrNotFound) {
		t.Fatalf("the refused purchase stayed journaled: %v", err)
	}
	if from, to := b.balancesAfter(t, rc.Transaction); from != 0 || to != price {
		t.Fatalf("payer %d, payee %d; want 0 and %d", from, to, price)
	}
}

// unansweredSettler is a facilitator that took the settle request and gave
// no answer (the facilitator client wraps x402.ErrSettlementPending): it
// may be settling the payment right now.
type unansweredSettler struct{}

func (unansweredSettler) Settle(context.Context, *x402.Payment, *x402.Requirement) (*x402.Receipt, error) {
	xe := &x402.Error{Reason: x402.ReasonUnexpectedSettleError, Message: "the payment facilitator did not answer"}
	return &x402.Receipt{ErrorReason: xe.Reason}, fmt.Errorf("facilitator settle: %w (%w)", xe, x402.ErrSettlementPending)
}

// A settle request that got no answer keeps its purchase in Settling: the
// authorization stays spent, so the same payment cannot buy a second run
// while the facilitator may still move the money for the first.
func TestUnansweredSettleKeepsThePurchase(t *testing.T) {
	ctx := context.Background()
	j := settle.NewMemoryJournal(100)
	e, _ := newEngine(t, settle.Config{Journal: j, Settler: unansweredSettler{}})
	b := newBuyer(t, price)
	pu := b.purchase(b.pay(t), "unanswered")
	p, err := e.Begin(ctx, pu)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Settle(ctx); !errors.Is(err, x402.ErrSettlementPending) {
		t.Fatalf("Settle = %v, want pending", err)
	}
	en, err := j.Get(ctx, pu.Payment.Key(chain.Network))
	if err != nil || en.State != settle.Settling {
		t.Fatalf("entry after an unanswered settle = %+v, %v; want it kept in settling", en, err)
	}
	if again, err := e.Begin(ctx, pu); err == nil && !again.Replay() {
		t.Fatal("the same authorization began a second purchase while the first may still settle")
	}
}

// failingFacilitator answers every settle with its own transaction's
// failure, as the reference facilitator does when its relayer's nonce
// raced another of its sends: nothing of the payer's doing.
type failingFacilitator struct{}

func (failingFacilitator) Settle(_ context.Context, p *x402.Payment, _ *x402.Requirement) (*x402.Receipt, error) {
	xe := &x402.Error{Reason: "invalid_exact_evm_transaction_failed", Message: "the facilitator's transaction failed"}
	return &x402.Receipt{Payer: p.Authorization.From.Hex(), ErrorReason: xe.Reason}, xe
}

// A facilitator's failure of its own (its transaction failed, it did not
// say why) while the model runs does not put an honest payer in debt: the
// purchase is released, nothing is owed, and the payer's next payment is
// taken. A refusal that names the payer's doing (insufficient funds) does.
func TestFacilitatorsOwnFailureIsNoDebt(t *testing.T) {
	ctx := context.Background()
	j := settle.NewMemoryJournal(100)
	e, _ := newEngine(t, settle.Config{Journal: j, Settler: failingFacilitator{}})
	b := newBuyer(t, price)
	p, err := e.Begin(ctx, b.purchase(b.pay(t), "facilitator fails"))
	if err != nil {
		t.Fatal(err)
	}
	p.Running()
	if _, err := p.Settle(ctx); err == nil || errors.Is(err, settle.ErrUnpaidRun) {
		t.Fatalf("Settle = %v; want the facilitator's refusal, not an unpaid run", err)
	}
	if owed, _, err := e.Debt(ctx, b.addr); err != nil || (owed != nil && owed.Sign() != 0) {
		t.Fatalf("debt after the facilitator's own failure = %v, %v; want none", owed, err)
	}
	if _, err := e.Begin(ctx, b.purchase(b.pay(t), "next call")); err != nil {
		t.Fatalf("the payer's next payment = %v; want it taken", err)
	}
}
