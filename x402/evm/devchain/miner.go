package devchain

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"
)

// pollInterval is how often the miner looks at the pool when no
// new-transaction notification arrives.
const pollInterval = 10 * time.Millisecond

// mine commits blocks so senders (the settler, viem, cast) never call
// Commit: every interval when one is set, else whenever the transaction
// pool holds pending transactions.
func (c *Chain) mine() {
	defer close(c.done)
	if c.interval > 0 {
		c.mineEvery(c.interval)
		return
	}
	c.mineOnDemand()
}

// mineEvery commits a block per tick, empty or not, the way a real chain
// (or anvil --block-time) advances, so waiting for a receipt costs what it
// costs on Base.
func (c *Chain) mineEvery(d time.Duration) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		if !c.waitForClock() {
			return
		}
		c.backend.Commit()
	}
}

// mineOnDemand commits a block whenever the transaction pool holds pending
// transactions. It
// talks to the node over its private IPC socket: a subscription to new
// pending transactions wakes it at once, txpool_status says what is
// pending, and a short poll covers anything the subscription misses.
func (c *Chain) mineOnDemand() {
	rc := c.rpc
	wake := make(chan common.Hash, 256)
	if rc != nil {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if sub, err := rc.EthSubscribe(ctx, wake, "newPendingTransactions"); err == nil {
			defer sub.Unsubscribe()
		}
	}
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-wake:
		case <-tick.C:
		}
		for c.pending(rc) > 0 {
			if !c.waitForClock() {
				return
			}
			c.backend.Commit()
		}
	}
}

// pending counts executable transactions in the pool (txpool_status).
func (c *Chain) pending(rc *rpc.Client) uint64 {
	if rc == nil {
		return 0
	}
	var status struct {
		Pending hexutil.Uint64 `json:"pending"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := rc.CallContext(ctx, &status, "txpool_status"); err != nil {
		return 0
	}
	return uint64(status.Pending)
}

// waitForClock delays mining while the head block's timestamp is more than
// maxDrift ahead of the wall clock (each block is at least one second after
// its parent). It returns false when the chain is stopping.
func (c *Chain) waitForClock() bool {
	for {
		head, err := c.Client.HeaderByNumber(context.Background(), nil)
		if err != nil {
			return true
		}
		ahead := time.Until(time.Unix(int64(head.Time)+1, 0))
		if ahead <= c.maxDrift {
			return true
		}
		select {
		case <-c.stop:
			return false
		case <-time.After(ahead - c.maxDrift):
		}
	}
}
