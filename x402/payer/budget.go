package payer

import (
	"context"
	"fmt"
	"math/big"
	"sync"

	"github.com/farebox/farebox/x402"
)

// Budget is the one spend limit of a paying client (farebox proxy, call,
// chat, the agent and any Go program using Transport): it counts what the
// wallet signs when it signs it (an exact authorization's value, an upto
// authorization's maximum, a batch-settlement deposit, a voucher's
// increment beyond what the channel's deposits cover) and refuses a
// signature that would take that total over its limit, before it is made.
// What a receipt says was charged is kept beside it but frees nothing: a
// signed amount is given back only when the chain proves it can never
// move (WithChain), since a seller's receipt is the seller's word.
// Amounts are in USDC units (6 decimals); a token with other decimals is
// converted first (WithTokenDecimals). A Budget is safe for concurrent use
// and may be shared by several transports (WithBudget) or carried by one
// request (Hooks.Budget).
type Budget struct {
	limit *big.Int // nil: no limit

	mu      sync.Mutex
	signed  *big.Int
	charged *big.Int
	pending []*hold // counted holds a chain read may prove unspendable later
}

// NewBudget returns a budget of limit USDC atomic units; nil counts
// without a limit.
func NewBudget(limit *big.Int) *Budget {
	b := &Budget{signed: new(big.Int), charged: new(big.Int)}
	if limit != nil {
		b.limit = new(big.Int).Set(limit)
	}
	return b
}

// Limit is the budget's limit, nil when there is none.
func (b *Budget) Limit() *big.Int {
	if b.limit == nil {
		return nil
	}
	return new(big.Int).Set(b.limit)
}

// Signed is what the wallet signed and may still be spent.
func (b *Budget) Signed() *big.Int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return new(big.Int).Set(b.signed)
}

// Charged is what the receipts said was charged (never more than Signed
// unless a receipt lied upwards, which the signatures still bound).
func (b *Budget) Charged() *big.Int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return new(big.Int).Set(b.charged)
}

// OverBudgetError refuses a signature that would take what was signed
// over a Budget's limit: nothing was signed for it.
type OverBudgetError struct {
	What   string   // "an exact authorization", "a deposit", ...
	Amount *big.Int // what the signature would count, USDC atomic units
	Signed *big.Int // what was signed before it
	Limit  *big.Int
}

func (e *OverBudgetError) Error() string {
	return fmt.Sprintf("payer: signing %s of %s USDC would bring what the wallet signed to %s USDC, over the budget of %s USDC; nothing was signed",
		e.What, x402.FormatUSDC(e.Amount), x402.FormatUSDC(new(big.Int).Add(e.Signed, e.Amount)), x402.FormatUSDC(e.Limit))
}

// hold is an amount counted against a budget for one signature.
type hold struct {
	b      *Budget
	amount *big.Int
	freed  bool
	// prove, once set, asks the chain what the signature can still move:
	// ok with keep (USDC units; nil for nothing) when the chain proves it.
	// The budget asks it when it runs short.
	prove func(ctx context.Context) (keep *big.Int, ok bool)
}

// take counts amount against b, or refuses; a budget running short first
// asks the chain to prove earlier signatures unspendable.
func (b *Budget) take(ctx context.Context, amount *big.Int, what string) (*hold, error) {
	b.mu.Lock()
	over := b.limit != nil && new(big.Int).Add(b.signed, amount).Cmp(b.limit) > 0
	b.mu.Unlock()
	if over {
		b.reclaim(ctx)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.limit != nil && new(big.Int).Add(b.signed, amount).Cmp(b.limit) > 0 {
		return nil, &OverBudgetError{What: what, Amount: new(big.Int).Set(amount), Signed: new(big.Int).Set(b.signed), Limit: new(big.Int).Set(b.limit)}
	}
	b.signed.Add(b.signed, amount)
	h := &hold{b: b, amount: new(big.Int).Set(amount)}
	return h, nil
}

// reclaim frees the holds the chain now proves unspendable.
func (b *Budget) reclaim(ctx context.Context) {
	b.mu.Lock()
	var ask []*hold
	for _, h := range b.pending {
		if !h.freed && h.prove != nil {
			ask = append(ask, h)
		}
	}
	b.mu.Unlock()
	for _, h := range ask {
		if keep, ok := h.prove(ctx); ok {
			h.reduce(keep)
		}
	}
	b.mu.Lock()
	kept := b.pending[:0]
	for _, h := range b.pending {
		if !h.freed {
			kept = append(kept, h)
		}
	}
	b.pending = kept
	b.mu.Unlock()
}

// free gives the hold back: its signature can never move money.
func (h *hold) free() {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	if h.freed {
		return
	}
	h.freed = true
	h.b.signed.Sub(h.b.signed, h.amount)
}

// reduce counts only keep of the hold from now on (nil: nothing), and
// settles it: the chain proved what it can move.
func (h *hold) reduce(keep *big.Int) {
	if keep == nil || keep.Sign() <= 0 {
		h.free()
		return
	}
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	if h.freed || keep.Cmp(h.amount) >= 0 {
		return
	}
	h.b.signed.Sub(h.b.signed, new(big.Int).Sub(h.amount, keep))
	h.amount, h.freed = new(big.Int).Set(keep), true // settled: no longer pending
}

// provable lets the budget ask prove when it runs short.
func (h *hold) provable(prove func(ctx context.Context) (*big.Int, bool)) {
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	if h.freed || h.prove != nil {
		return
	}
	h.prove = prove
	if len(h.b.pending) < 4096 { // bounded: an unproven hold merely stays counted
		h.b.pending = append(h.b.pending, h)
	}
}

// charge notes what a receipt said an answer cost.
func (b *Budget) charge(amount *big.Int) {
	b.mu.Lock()
	b.charged.Add(b.charged, amount)
	b.mu.Unlock()
}

// WithBudget counts everything the transport signs against b (see Budget).
func WithBudget(b *Budget) Option { return func(t *Transport) { t.budget = b } }

// budgets are the budgets a request's signatures count against: the
// transport's and the request's own (Hooks.Budget).
func (t *Transport) budgets(ctx context.Context) []*Budget {
	var out []*Budget
	if t.budget != nil {
		out = append(out, t.budget)
	}
	if h := hooksFrom(ctx); h != nil && h.Budget != nil && h.Budget != t.budget {
		out = append(out, h.Budget)
	}
	return out
}

// spend counts amount (atomic units of net's token) against every budget
// of the request before it is signed; all or nothing.
func (t *Transport) spend(ctx context.Context, net *x402.Network, amount *big.Int, what string) ([]*hold, error) {
	usd := t.inUSDC(net, amount)
	var holds []*hold
	for _, b := range t.budgets(ctx) {
		h, err := b.take(ctx, usd, what)
		if err != nil {
			release(holds)
			return nil, err
		}
		holds = append(holds, h)
	}
	return holds, nil
}

// release frees holds whose signature was never made or is proven never
// spendable.
func release(holds []*hold) {
	for _, h := range holds {
		h.free()
	}
}

// provable hands the holds a proof the budgets may ask for later.
func provable(holds []*hold, prove func(ctx context.Context) (*big.Int, bool)) {
	for _, h := range holds {
		h.provable(prove)
	}
}

// charged notes a settlement's charge in the budgets of the request.
func (t *Transport) charged(ctx context.Context, s *Settlement) {
	if s == nil || s.Charged == nil {
		return
	}
	net := t.networks.ByCAIP2(s.Network)
	for _, b := range t.budgets(ctx) {
		b.charge(t.inUSDC(net, s.Charged))
	}
}

// provableLater lets the budgets ask the chain, when they run short,
// whether p's exact or upto authorization expired unused.
func (t *Transport) provableLater(p *purchase) {
	if t.chain == nil || p.batch != nil {
		return
	}
	provable(p.holds, func(ctx context.Context) (*big.Int, bool) {
		if t.provablyUnsettled(ctx, p) {
			return nil, true
		}
		if p.upto != nil {
			moved, err := t.uptoProvenCharge(ctx, p)
			if err != nil {
				return nil, false
			}
			return t.inUSDC(p.req.Network, moved), true
		}
		return nil, false
	})
}
