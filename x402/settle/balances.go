package settle

import (
	"context"
	"math/big"
	"sync"
	"time"

	"github.com/farebox/farebox/x402"
)

// balanceCache keeps payers' balances for a while, so a payer's calls do
// not each read the chain before the model runs. It stays exact for this
// process's own transfers: releasing a hold (the transfer was mined, or
// nothing moved) drops the payer's balance, and a read that a release
// overtook is read again, so a balance from before a transfer is never
// used after its hold is gone. Only a refusal is never made on a cached
// balance (see Engine.hold).
type balanceCache struct {
	maxAge time.Duration
	mu     sync.Mutex
	m      map[Account]*payerBalance
}

type payerBalance struct {
	bal      *big.Int  // nil: nothing cached
	read     time.Time // when the cached read started
	released time.Time // the last hold release
}

// pruneAt is the size past which stale payers are dropped.
const pruneAt = 4096

func newBalanceCache(maxAge time.Duration) *balanceCache {
	return &balanceCache{maxAge: maxAge, m: map[Account]*payerBalance{}}
}

// get returns a's balance, cached when a read younger than maxAge is
// kept, when the read started, and whether it was read just now.
func (c *balanceCache) get(ctx context.Context, b Balances, req *x402.Requirement, a Account) (*big.Int, time.Time, bool, error) {
	now := time.Now()
	c.mu.Lock()
	if p := c.m[a]; p != nil && p.bal != nil && now.Sub(p.read) < c.maxAge {
		bal, read := p.bal, p.read
		c.mu.Unlock()
		return bal, read, false, nil
	}
	c.mu.Unlock()
	bal, read, err := c.read(ctx, b, req, a)
	return bal, read, true, err
}

// releasedSince reports whether a hold of a's was released at or after t:
// a balance read at t may predate that transfer.
func (c *balanceCache) releasedSince(a Account, t time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.m[a]
	return p != nil && !p.released.Before(t)
}

// read reads a's balance at the latest block and keeps it, again when a
// hold of a's was released meanwhile (the read may predate the transfer).
func (c *balanceCache) read(ctx context.Context, b Balances, req *x402.Requirement, a Account) (*big.Int, time.Time, error) {
	for attempt := 0; ; attempt++ {
		start := time.Now()
		bal, err := b.BalanceOf(ctx, req, a.Payer)
		if err != nil {
			return nil, start, err
		}
		c.mu.Lock()
		p := c.m[a]
		overtaken := p != nil && !p.released.Before(start)
		if overtaken && attempt < 3 {
			c.mu.Unlock()
			continue
		}
		// A read slower than half the age limit is not kept: the release
		// that overtook it may be pruned by then.
		if !overtaken && time.Since(start) < c.maxAge/2 {
			if p == nil {
				p = &payerBalance{}
				c.m[a] = p
				c.prune(start)
			}
			p.bal, p.read = bal, start
		}
		c.mu.Unlock()
		return bal, start, nil
	}
}

// released drops a's balance: one of its holds ended.
func (c *balanceCache) released(a Account) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.m[a]
	if p == nil {
		p = &payerBalance{}
		c.m[a] = p
		c.prune(time.Now())
	}
	p.bal, p.released = nil, time.Now()
}

// prune drops payers untouched for maxAge once there are many; caller
// holds mu.
func (c *balanceCache) prune(now time.Time) {
	if len(c.m) < pruneAt {
		return
	}
	for a, p := range c.m {
		if now.Sub(p.read) > c.maxAge && now.Sub(p.released) > c.maxAge {
			delete(c.m, a)
		}
	}
}
