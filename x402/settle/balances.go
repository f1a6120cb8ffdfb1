package settle

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/tidwall/gjson"

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

// ShownBalances is Balances that also tells which of a payer's
// authorizations the balance it reads already shows (*evm.Settler), so a
// transfer mined before the follower released its hold counts once, in the
// balance, not also as money in flight.
type ShownBalances interface {
	// BalanceShowing reads who's balance of req's asset at the latest block
	// and, in the same chain state, whether each of nonces (EIP-3009
	// authorizations of who's on that token) is used: it moved what it
	// moves before that balance, or never will.
	BalanceShowing(ctx context.Context, req *x402.Requirement, who common.Address, nonces [][32]byte) (*big.Int, []bool, error)
}

// maxShown bounds how many of a payer's holds one recount looks up: a
// payer with more in flight has the rest counted as held.
const maxShown = 256

// hold counts the purchase against the payer's balance at the latest block.
// A refusal on a fresh read is counted again (recount) without the holds
// whose transfers that balance already shows.
func (e *Engine) hold(ctx context.Context, p *Purchase) error {
	if e.cfg.Balances == nil {
		return nil
	}
	acct := accountOf(p.entry)
	expires := e.cfg.Now().Add(e.cfg.HoldTTL)
	if p.entry.Expires.Before(expires) {
		expires = p.entry.Expires
	}
	if e.bals == nil {
		bal, err := e.cfg.Balances.BalanceOf(ctx, p.Requirement, p.entry.Payer)
		if err != nil {
			return fmt.Errorf("settle: reading the payer's balance: %w", err)
		}
		err = e.cfg.Holds.Hold(ctx, acct, p.name, p.entry.Amount, bal, expires)
		if errors.Is(err, ErrInsufficientFunds) {
			_, err = e.recount(ctx, p, acct, expires)
		}
		return err
	}
	for attempt := 0; ; attempt++ {
		bal, read, fresh, err := e.bals.get(ctx, e.cfg.Balances, p.Requirement, acct)
		if err == nil && !fresh && attempt > 0 {
			bal, read, err = e.bals.read(ctx, e.cfg.Balances, p.Requirement, acct)
			fresh = true
		}
		if err != nil {
			return fmt.Errorf("settle: reading the payer's balance: %w", err)
		}
		err = e.cfg.Holds.Hold(ctx, acct, p.name, p.entry.Amount, bal, expires)
		if errors.Is(err, ErrInsufficientFunds) && fresh {
			read, err = e.recount(ctx, p, acct, expires)
		}
		switch {
		case errors.Is(err, ErrInsufficientFunds) && !fresh:
			continue // refuse only on a fresh read: the payer may have been funded since
		case err != nil:
			return err
		case e.bals.releasedSince(acct, read) && attempt < 3:
			// A transfer of the payer's was mined and its hold released
			// after this balance was read: count again on a newer read.
			if rerr := e.cfg.Holds.Release(ctx, acct, p.name); rerr != nil {
				return rerr
			}
			continue
		}
		return nil
	}
}

// recount holds p against a balance read with the payer's exact holds
// (EIP-3009 authorizations, up to maxShown), leaving out those whose
// authorization is used in the state the balance was read from: their
// transfer is in the balance, and the follower has not released them yet
// (it learns of a block late). A used authorization that moved nothing
// (canceled, or used for another transfer) never will, so leaving it out
// is exact too. It returns when the balance was read; ErrInsufficientFunds
// when the recount cannot help.
func (e *Engine) recount(ctx context.Context, p *Purchase, acct Account, expires time.Time) (time.Time, error) {
	start := time.Now()
	sb, ok := e.cfg.Balances.(ShownBalances)
	if !ok {
		return start, ErrInsufficientFunds
	}
	ids, err := e.cfg.Holds.IDs(ctx, acct)
	if err != nil {
		return start, fmt.Errorf("settle: listing the payer's holds: %w", err)
	}
	var held []string
	var nonces [][32]byte
	for _, id := range ids {
		if len(held) == maxShown {
			break
		}
		if id == p.name {
			continue
		}
		if nonce, ok := e.exactHold(ctx, acct, id); ok {
			held, nonces = append(held, id), append(nonces, nonce)
		}
	}
	if len(held) == 0 {
		return start, ErrInsufficientFunds
	}
	start = time.Now()
	bal, used, err := sb.BalanceShowing(ctx, p.Requirement, acct.Payer, nonces)
	if err != nil {
		return start, fmt.Errorf("settle: reading the payer's balance: %w", err)
	}
	var shown []string
	for i, u := range used {
		if u {
			shown = append(shown, held[i])
		}
	}
	if len(shown) == 0 {
		return start, ErrInsufficientFunds
	}
	return start, e.cfg.Holds.Hold(ctx, acct, p.name, p.entry.Amount, bal, expires, shown...)
}

// exactHold is the nonce of the hold id of acct when it holds an exact
// payment (an EIP-3009 authorization on the token, whose used state the
// token keeps), per the journal. Another scheme's nonce (upto's Permit2
// nonce) says nothing on the token: a payer could mark it used there and
// still pay through Permit2.
func (e *Engine) exactHold(ctx context.Context, acct Account, id string) ([32]byte, bool) {
	i := strings.LastIndex(id, ":0x")
	if i < 0 {
		return [32]byte{}, false
	}
	nonce, err := hex.DecodeString(id[i+3:])
	if err != nil || len(nonce) != 32 {
		return [32]byte{}, false
	}
	en, err := e.cfg.Journal.Get(ctx, x402.Key{ChainID: acct.ChainID, Asset: acct.Asset, From: acct.Payer, Nonce: [32]byte(nonce)})
	if err != nil || en.Name() != id {
		return [32]byte{}, false
	}
	path := "accepted.scheme"
	if en.Version == 1 {
		path = "scheme"
	}
	return en.Nonce, gjson.GetBytes(en.Payment, path).String() == x402.SchemeExact
}
