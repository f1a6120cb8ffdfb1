package chaintest

import (
	"context"
	"fmt"
)

// Rollback removes the latest depth blocks (anvil_rollback): their
// transactions are gone from the chain and from the pool, as after a
// reorganisation whose new branch did not carry them.
func (a *Anvil) Rollback(ctx context.Context, depth uint64) error {
	if err := a.Client.Client().CallContext(ctx, nil, "anvil_rollback", depth); err != nil {
		return fmt.Errorf("chaintest: anvil_rollback %d: %w", depth, err)
	}
	return nil
}

// Mine mines n empty blocks at once (anvil_mine), so that transactions
// already mined get deeper.
func (a *Anvil) Mine(ctx context.Context, n uint64) error {
	if err := a.Client.Client().CallContext(ctx, nil, "anvil_mine", n); err != nil {
		return fmt.Errorf("chaintest: anvil_mine %d: %w", n, err)
	}
	return nil
}

// IntervalMining makes anvil mine a block every secs seconds from now on
// (evm_setIntervalMining), whether or not a transaction waits: a test
// then awaits an outcome that needs blocks to come by themselves.
func (a *Anvil) IntervalMining(ctx context.Context, secs uint64) error {
	if err := a.Client.Client().CallContext(ctx, nil, "evm_setIntervalMining", secs); err != nil {
		return fmt.Errorf("chaintest: evm_setIntervalMining %d: %w", secs, err)
	}
	return nil
}
