package pool

import (
	"context"
	"math/big"
	"slices"
	"time"
)

// order is the suppliers' indexes in the order this call tries them.
func (p *Pool) order(ctx context.Context) []int {
	n := len(p.cfg.Suppliers)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	switch p.cfg.Strategy {
	case Weighted:
		return p.weighted(idx)
	case Cheapest:
		prices := make([]*big.Int, n)
		for i, s := range p.cfg.Suppliers {
			prices[i] = price(ctx, s)
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmpPrice(prices[a], prices[b]) })
	case Fastest:
		p.mu.Lock()
		ttft := slices.Clone(p.ttft)
		p.mu.Unlock()
		slices.SortStableFunc(idx, func(a, b int) int { return cmpDuration(ttft[a], ttft[b]) })
	}
	return idx
}

// weighted draws an order without replacement, each next supplier with a
// chance proportional to its weight among those left.
func (p *Pool) weighted(idx []int) []int {
	out := make([]int, 0, len(idx))
	left := slices.Clone(idx)
	for len(left) > 0 {
		total := 0.0
		for _, i := range left {
			total += weight(p.cfg.Suppliers[i])
		}
		x := draw() * total
		k := len(left) - 1
		for j, i := range left {
			if x -= weight(p.cfg.Suppliers[i]); x < 0 {
				k = j
				break
			}
		}
		out = append(out, left[k])
		left = slices.Delete(left, k, k+1)
	}
	return out
}

func weight(s Supplier) float64 {
	if s.Weight <= 0 {
		return 1
	}
	return s.Weight
}

// price is what a supplier asks now: its offer when it has one (an
// unreadable offer ranks it last), else its configured cost.
func price(ctx context.Context, s Supplier) *big.Int {
	if s.Offer != nil {
		v, err := s.Offer.Offer(ctx)
		if err != nil {
			return nil
		}
		return v
	}
	return s.Cost
}

// cmpPrice orders known prices ascending, unknown ones last.
func cmpPrice(a, b *big.Int) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return a.Cmp(b)
}

// cmpDuration orders unmeasured (0) first, so every supplier gets
// measured, then ascending.
func cmpDuration(a, b time.Duration) int {
	switch {
	case a == b:
		return 0
	case a == 0:
		return -1
	case b == 0:
		return 1
	case a < b:
		return -1
	}
	return 1
}
