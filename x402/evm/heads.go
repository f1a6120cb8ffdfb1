package evm

import (
	"context"
	"math/big"
	"sync"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/core/types"
)

// headSubscriber is the push side of a backend: ethclient over ws/IPC and
// the dev chain's in-process client have it; over HTTP it fails.
type headSubscriber interface {
	SubscribeNewHead(ctx context.Context, ch chan<- *types.Header) (ethereum.Subscription, error)
}

// heads follows the chain's new blocks: pushed by a subscription when the
// backend supports one, else polled at the time the next block is due
// (learned from recent headers), then at a short, growing interval.
type heads struct {
	b       Backend
	minPoll time.Duration
	sub     ethereum.Subscription
	ch      chan *types.Header
	// interval is the block time learned from header timestamps (0: unknown).
	interval time.Duration
	// seen is when the current head was first observed, the phase of
	// polling; gap is the time between the last two heads observed one
	// after the other; regular says heads have been arriving about one
	// gap apart, much slower than polling (interval mining), so the next
	// one is worth waiting for and a transaction sent does not hasten it.
	// The gap is the wall clock's, not the timestamps': anvil's timestamps
	// fall behind its 2 s blocks (one second apart). When the next block
	// is due is still reckoned from the timestamps (see nextWait).
	seen    time.Time
	gap     time.Duration
	regular bool
	top     uint64 // the highest head observed (seen is when)
	learned uint64
	// observe, when set, gets every latest header read or pushed.
	observe func(*types.Header)
	// wake, when set, ends a poll's wait at once: a transaction was just
	// sent, and a chain that mines on demand has its block already (on a
	// chain mining at a regular interval it is ignored: the block is due).
	wake <-chan struct{}
	// quiet is the growing wait between polls while no block comes, kept
	// across calls to next so the backoff is not restarted every idle period.
	quiet time.Duration
	last  *types.Header // the latest header polled
}

func newHeads(ctx context.Context, b Backend, minPoll time.Duration) *heads {
	h := &heads{b: b, minPoll: minPoll}
	h.subscribe(ctx)
	return h
}

// subscribe pushes new heads when the backend can.
func (h *heads) subscribe(ctx context.Context) {
	if s, ok := h.b.(headSubscriber); ok && h.sub == nil {
		ch := make(chan *types.Header, 64)
		if sub, err := s.SubscribeNewHead(ctx, ch); err == nil {
			h.sub, h.ch = sub, ch
		}
	}
}

// close ends the subscription; what was learned of the chain's pace is
// kept for the next subscribe.
func (h *heads) close() {
	if h.sub != nil {
		h.sub.Unsubscribe()
		h.sub, h.ch = nil, nil
	}
}

// next returns the first head above `after`, or nil when ctx ends or
// idle passes first (so the caller can look at its own state again).
func (h *heads) next(ctx context.Context, after uint64, idle time.Duration) *types.Header {
	deadline := time.NewTimer(idle)
	defer deadline.Stop()
	if h.sub != nil {
		// A head pushed before this call may be above `after`: read the latest once.
		if head, err := h.b.HeaderByNumber(ctx, nil); err == nil {
			h.saw(head)
			if head.Number.Uint64() > after {
				return head
			}
		}
		for {
			select {
			case head := <-h.ch:
				h.saw(head)
				if head.Number.Uint64() > after {
					return head
				}
			case err := <-h.sub.Err():
				// The subscription broke (node restart): poll from now on.
				_ = err
				h.sub, h.ch = nil, nil
				return h.poll(ctx, after, deadline)
			case <-deadline.C:
				return nil
			case <-ctx.Done():
				return nil
			}
		}
	}
	return h.poll(ctx, after, deadline)
}

// poll asks for the latest header: on an interval-mined chain shortly after
// the next block is due, otherwise (instant or irregular mining) at minPoll
// growing by half each time, never slower than a quarter block, or than
// quietPoll on a chain with no known block interval (one that mines on
// demand, where only a transaction makes a block: this process's own
// transactions wake the poll at once).
func (h *heads) poll(ctx context.Context, after uint64, deadline *time.Timer) *types.Header {
	wait := time.Duration(0)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		timer.Reset(wait)
	sleep:
		select {
		case <-timer.C:
		case <-h.wake:
			if h.regular {
				// Interval mining: a transaction just sent is mined with
				// the block that is due (or late), not sooner; polling now
				// would find nothing, once per transaction sent under load.
				goto sleep
			}
			h.quiet = 0
		case <-deadline.C:
			return nil
		case <-ctx.Done():
			return nil
		}
		head, err := h.latest(ctx, after)
		if err == nil {
			h.saw(head)
		}
		if err == nil && head.Number.Uint64() > after {
			now := time.Now()
			if n := head.Number.Uint64(); n > h.top {
				// A new head, not one a previous run of the follower saw.
				h.arrived(now, n, after)
				h.seen, h.top = now, n
			}
			h.quiet = 0
			h.learn(ctx, head)
			return head
		}
		wait = h.nextWait(head)
	}
}

// arrived notes head n observed at now (after was the head the caller had
// before): heads are regular when two gaps in a row agree within 30% and
// are longer than four polls.
func (h *heads) arrived(now time.Time, n, after uint64) {
	if h.seen.IsZero() || h.interval == 0 {
		h.regular, h.gap = false, 0
		return
	}
	elapsed := now.Sub(h.seen)
	if n != h.top+1 || n != after+1 {
		// Heads came unobserved: while the follower was idle, or many at
		// once (a chain mining on demand). As many as the pace says keeps
		// the chain regular; any other count does not.
		if h.regular && h.gap > 0 {
			if d := float64(elapsed)/float64(h.gap) - float64(n-h.top); d < 1.5 && d > -1.5 {
				return
			}
		}
		h.regular, h.gap = false, 0
		return
	}
	if h.gap > 0 && elapsed > 3*h.gap {
		// The follower was idle meanwhile (or this head is very late): no
		// gap to judge; the next one is.
		return
	}
	d := elapsed - h.gap
	h.regular = h.gap > 0 && elapsed > 4*h.minPoll && d < h.gap*3/10 && -d < h.gap*3/10
	h.gap = elapsed
}

// quietPoll is the slowest poll on a chain without a known block interval.
// Another replica's transaction, awaited here, may wait this long for its
// receipt once the chain has been quiet for a second or two.
const quietPoll = 500 * time.Millisecond

// blockNumberer is ethclient's eth_blockNumber: a poll that finds no new
// block then costs a few bytes instead of a whole header to decode.
type blockNumberer interface {
	BlockNumber(ctx context.Context) (uint64, error)
}

// latest is the latest header, or h.last when the chain has not moved past
// `after` (the header is read only when there is a new one).
func (h *heads) latest(ctx context.Context, after uint64) (*types.Header, error) {
	if bn, ok := h.b.(blockNumberer); ok && h.last != nil && h.last.Number.Uint64() <= after {
		n, err := bn.BlockNumber(ctx)
		if err != nil {
			return nil, err
		}
		if n == h.last.Number.Uint64() {
			return h.last, nil
		}
	}
	head, err := h.b.HeaderByNumber(ctx, nil)
	if err == nil {
		h.last = head
	}
	return head, err
}

func (h *heads) saw(head *types.Header) {
	if h.observe != nil {
		h.observe(head)
	}
}

// nextWait is how long to wait before polling again for a head after head.
// Each call to next polls at once, then waits this long between polls.
func (h *heads) nextWait(head *types.Header) time.Duration {
	if head != nil && h.regular {
		// The next block is due one interval after the head was first seen
		// (or after its timestamp, whichever is later), plus a little slack.
		// The interval is the timestamps': the wall clock's gap, measured
		// at polls, would drift later by the slack each block.
		due := h.seen.Add(h.interval)
		if ts := time.Unix(int64(head.Time), 0).Add(h.interval); ts.After(due) {
			due = ts
		}
		if d := time.Until(due) + 20*time.Millisecond; d > h.minPoll {
			return d
		}
	}
	next := max(h.minPoll, h.quiet+h.quiet/2)
	ceiling := max(h.interval/4, h.minPoll)
	if h.interval == 0 {
		ceiling = max(quietPoll, h.minPoll)
	}
	if next > ceiling {
		next = ceiling
	}
	h.quiet = next
	return next
}

// learn estimates the block interval from the timestamps of the last eight
// blocks, again every eight blocks (a chain's mining may change); an
// instant chain's learned interval is small, so polling stays at minPoll.
func (h *heads) learn(ctx context.Context, head *types.Header) {
	n := head.Number.Uint64()
	if h.learned != 0 && n < h.learned+8 || n < 8 {
		return
	}
	h.learned = n
	old, err := h.b.HeaderByNumber(ctx, new(big.Int).SetUint64(n-8))
	if err != nil || old.Time >= head.Time {
		h.interval = 0
		return
	}
	h.interval = time.Duration(head.Time-old.Time) * time.Second / 8
}

// latestHead caches the latest header for maxAge: the dispatcher and the
// checker need the head's timestamp and base fee, which a header a fraction
// of a block old gives as well (transfers land at max(head+1, now), and fee
// caps are twice the base fee), at one eth_getBlockByNumber per maxAge
// instead of one per call.
type latestHead struct {
	mu sync.Mutex
	h  *types.Header
	at time.Time
}

// get returns the cached header, or reads the latest one when the cache is
// older than maxAge.
func (c *latestHead) get(ctx context.Context, b Backend, maxAge time.Duration) (*types.Header, error) {
	c.mu.Lock()
	if c.h != nil && time.Since(c.at) < maxAge {
		h := c.h
		c.mu.Unlock()
		return h, nil
	}
	c.mu.Unlock()
	h, err := b.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	c.seen(h)
	return h, nil
}

// seen records a header read elsewhere (a new head), if it is newer.
func (c *latestHead) seen(h *types.Header) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h == nil || h.Number.Cmp(c.h.Number) >= 0 {
		c.h, c.at = h, time.Now()
	}
}
