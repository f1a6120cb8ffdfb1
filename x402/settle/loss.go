package settle

import (
	"context"
	"fmt"
	"time"

	"github.com/farebox/farebox/x402"
)

// LossReporter is a journal that can tell it lost its data (store/redis:
// a Redis restarted empty, seen by its store epoch). Entries it forgot may
// still be on their way to the chain, so an authorization they carry would
// look new to Create: for Config.LossWindow after a loss, Begin asks the
// chain's pending state about every new authorization before it serves it.
type LossReporter interface {
	// LostAt is when the journal last lost its data (zero: never seen).
	LostAt() time.Time
	// CheckLoss compares the store with what this replica last saw of it.
	// Resume calls it first, at start: a replica that learns the store's
	// state only at its first purchase would take a loss before that for
	// a new store, and serve a replay of a transfer still unmined.
	CheckLoss(ctx context.Context) error
}

// PendingChecker is a Broadcaster that reads an authorization's state
// including the transactions the node has not mined yet (*evm.Settler).
type PendingChecker interface {
	// AuthorizationPending is authorizationState(from, nonce) at the
	// pending block, or true when this settler itself is sending it.
	AuthorizationPending(ctx context.Context, p *x402.Payment, req *x402.Requirement) (bool, error)
}

// defaultLossWindow is how long after a loss new authorizations are
// checked against the pending state: long past any settlement the lost
// entries could still have in flight (the followers' AwaitTimeout and
// resubmissions).
const defaultLossWindow = time.Hour

// checkAfterLoss refuses a new purchase whose authorization the chain
// already knows (mined or pending) while the journal's loss is recent:
// the journal forgot it, the chain did not. Outside that window it costs
// nothing; the simulation before the model (latest state) covers the rest.
func (e *Engine) checkAfterLoss(ctx context.Context, p *Purchase) error {
	lr, ok := e.cfg.Journal.(LossReporter)
	if !ok {
		return nil
	}
	at := lr.LostAt()
	if at.IsZero() || e.cfg.Now().Sub(at) > e.cfg.LossWindow {
		return nil
	}
	var used bool
	var err error
	switch c := e.cfg.Settler.(type) {
	case PendingChecker:
		used, err = c.AuthorizationPending(ctx, p.Payment, p.Requirement)
	case Broadcaster:
		used, err = c.AuthorizationUsed(ctx, p.Payment, p.Requirement)
	default:
		return nil // a facilitator is asked at settlement; nothing to read here
	}
	if err != nil {
		return fmt.Errorf("settle: reading the authorization after the journal's loss: %w", err)
	}
	if used {
		return ErrNonceUsed
	}
	return nil
}

// checkLoss lets a LossReporter journal read the store's state at start.
func (e *Engine) checkLoss(ctx context.Context) error {
	lr, ok := e.cfg.Journal.(LossReporter)
	if !ok {
		return nil
	}
	if err := lr.CheckLoss(ctx); err != nil {
		return fmt.Errorf("settle: reading the journal's store epoch: %w", err)
	}
	return nil
}
