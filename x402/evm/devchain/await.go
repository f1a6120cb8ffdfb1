package devchain

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// NonceReader reads an account's mined and pending transaction counts
// (*ethclient.Client and the dev chain's client both are one).
type NonceReader interface {
	NonceAt(ctx context.Context, account common.Address, block *big.Int) (uint64, error)
	PendingNonceAt(ctx context.Context, account common.Address) (uint64, error)
}

// AwaitMined waits until every transaction from has sent is mined. farebox
// answers a paid call once its transfer is broadcast, before its block, so
// a test that reads balances after an answer waits for the relayer first.
func AwaitMined(ctx context.Context, c NonceReader, from common.Address) error {
	for {
		mined, err := c.NonceAt(ctx, from, nil)
		if err != nil {
			return err
		}
		sent, err := c.PendingNonceAt(ctx, from)
		if err != nil {
			return err
		}
		if mined >= sent {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("devchain: transactions %d..%d of %s not mined: %w", mined, sent, from.Hex(), ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
