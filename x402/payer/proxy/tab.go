package proxy

import (
	"context"
	"fmt"
	"math/big"
	"sync"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// tab is one proxied request's account with the proxy: why its 402 was
// not paid, and whether what it signed got an answer. The budget itself
// is the proxy's payer.Budget, which counts what is signed when it is
// signed and never gives it back on a seller's word.
type tab struct {
	p *Proxy

	mu       sync.Mutex
	signed   *big.Int // the ceiling of the authorization signed, nil when none
	answered bool
	refusal  error
}

type tabKey struct{}

func tabFrom(ctx context.Context) *tab {
	t, _ := ctx.Value(tabKey{}).(*tab)
	return t
}

// hooks are the paying transport's callbacks for this request; the
// context that carries them carries the tab too (see ServeHTTP).
func (t *tab) hooks() *payer.Hooks {
	return &payer.Hooks{Budget: t.p.budget, Signed: t.sign, Void: t.void, Settled: t.settled, Refused: t.refused}
}

// sign notes an authorization signed and sent for this request.
func (t *tab) sign(req *x402.Requirement, _ *x402.Payment) {
	t.mu.Lock()
	t.signed = new(big.Int).Set(req.Amount)
	t.mu.Unlock()
}

// void forgets an authorization proven never spendable.
func (t *tab) void(*x402.Requirement, *x402.Payment) {
	t.mu.Lock()
	t.signed = nil
	t.mu.Unlock()
}

// settled logs the receipt's charge with the running totals: what the
// wallet signed (what bounds the budget) and what was charged.
func (t *tab) settled(s *payer.Settlement) {
	t.mu.Lock()
	t.answered = true
	t.mu.Unlock()
	charged := s.Charged
	if charged == nil {
		charged = new(big.Int)
	}
	p := t.p
	p.mu.Lock()
	p.paidN++
	n := p.paidN
	p.mu.Unlock()
	tx := payer.SellerText(s.Transaction)
	if tx == "" {
		tx = "-" // a voucher: claimed on chain later, in batches
	}
	line := fmt.Sprintf("farebox proxy: receipt %d: scheme=%s amount=%s USDC tx=%s payer=%s network=%s",
		n, payer.SellerText(s.Scheme), x402.FormatUSDC(charged), tx, payer.SellerText(s.Payer), payer.SellerText(s.Network))
	if s.Deposited != nil {
		line += " deposited=" + x402.FormatUSDC(s.Deposited) + " USDC channel=" + s.ChannelID.Hex()
	}
	fmt.Fprintf(p.log, "%s total=%s USDC signed, charged=%s USDC\n", line, x402.FormatUSDC(p.budget.Signed()), x402.FormatUSDC(p.budget.Charged()))
}

// refused keeps why the 402 was not paid; nothing was signed for it.
func (t *tab) refused(err error) {
	t.mu.Lock()
	t.refusal = err
	t.mu.Unlock()
}

// close ends the request: an authorization signed and sent that no
// answer priced stays counted against the budget, and the log says so.
func (t *tab) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.signed == nil || t.answered {
		return
	}
	fmt.Fprintf(t.p.log, "farebox proxy: a payment of up to %s USDC got no receipt; it stays counted against the budget\n", x402.FormatUSDC(t.signed))
}
