package main

import (
	"context"
	"fmt"
	"math/big"
	"sync"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// overBudget refuses a payment that would take the proxy's total over its
// budget.
type overBudget struct{ price, total *big.Int }

func (o *overBudget) Error() string {
	return fmt.Sprintf("paying %s USDC would bring the total to %s USDC, over the budget", x402.FormatUSDC(o.price), x402.FormatUSDC(o.total))
}

// tab is one proxied request's account with the proxy: the ceiling it
// holds against the budget while its answer is on the way, and why its
// 402 was not paid. The budget counts what may have been spent: the
// receipts' charges, the ceilings of answers still streaming, and the
// ceilings of payments whose outcome never came back (a reset connection
// after the payment was sent may still have moved the money).
type tab struct {
	p *Proxy

	mu      sync.Mutex
	held    *big.Int // this request's ceiling in p.held; nil when none
	signed  bool     // an authorization for held was signed and sent
	refusal error
}

type tabKey struct{}

func tabFrom(ctx context.Context) *tab {
	t, _ := ctx.Value(tabKey{}).(*tab)
	return t
}

// hooks are the paying transport's callbacks for this request; the
// context that carries them carries the tab too (see ServeHTTP).
func (t *tab) hooks() *payer.Hooks {
	return &payer.Hooks{Authorize: t.authorize, Signed: t.sign, Void: t.void, Settled: t.settled, Refused: t.refused}
}

// authorize holds req's ceiling against the budget before it is signed;
// the transport may ask again for another offer of the same 402, which
// replaces the ceiling held.
func (t *tab) authorize(req *x402.Requirement) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.p
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.held != nil {
		p.held.Sub(p.held, t.held)
		t.held = nil
	}
	total := new(big.Int).Add(p.spent, p.held)
	total.Add(total, p.unknown).Add(total, req.Amount)
	if p.budget != nil && total.Cmp(p.budget) > 0 {
		return &overBudget{price: new(big.Int).Set(req.Amount), total: total}
	}
	t.held = new(big.Int).Set(req.Amount)
	p.held.Add(p.held, t.held)
	return nil
}

// sign notes that the held ceiling may now be spent.
func (t *tab) sign(*x402.Requirement, *x402.Payment) {
	t.mu.Lock()
	t.signed = true
	t.mu.Unlock()
}

// void releases the ceiling of an authorization proven never spendable.
func (t *tab) void(*x402.Requirement, *x402.Payment) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.release()
}

// release gives the held ceiling back (t.mu held).
func (t *tab) release() {
	if t.held == nil {
		return
	}
	t.p.mu.Lock()
	t.p.held.Sub(t.p.held, t.held)
	t.p.mu.Unlock()
	t.held = nil
}

// settled replaces the held ceiling with the receipt's charge and logs it
// with the running total.
func (t *tab) settled(s *payer.Settlement) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.release()
	charged := s.Charged
	if charged == nil {
		charged = s.Ceiling // a receipt that did not say: count the most it could be
	}
	if charged == nil {
		charged = new(big.Int)
	}
	p := t.p
	p.mu.Lock()
	p.spent.Add(p.spent, charged)
	p.paid++
	n, total := p.paid, new(big.Int).Set(p.spent)
	p.mu.Unlock()
	tx := s.Transaction
	if tx == "" {
		tx = "-" // a voucher: claimed on chain later, in batches
	}
	line := fmt.Sprintf("farebox proxy: receipt %d: scheme=%s amount=%s USDC tx=%s payer=%s network=%s",
		n, s.Scheme, x402.FormatUSDC(charged), tx, s.Payer, s.Network)
	if s.Deposited != nil {
		line += " deposited=" + x402.FormatUSDC(s.Deposited) + " USDC channel=" + s.ChannelID.Hex()
	}
	fmt.Fprintf(p.log, "%s total=%s USDC\n", line, x402.FormatUSDC(total))
}

// refused keeps why the 402 was not paid; nothing was signed for it.
func (t *tab) refused(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.refusal = err
	t.release()
}

// close ends the request: a ceiling still held was signed and sent but no
// answer said what it cost, so it stays counted against the budget.
func (t *tab) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.held == nil {
		return
	}
	if !t.signed {
		t.release() // authorized, but no offer could be signed
		return
	}
	p := t.p
	p.mu.Lock()
	p.held.Sub(p.held, t.held)
	p.unknown.Add(p.unknown, t.held)
	p.mu.Unlock()
	fmt.Fprintf(p.log, "farebox proxy: a payment of up to %s USDC got no receipt; it stays counted against the budget\n", x402.FormatUSDC(t.held))
	t.held = nil
}
