package gateway

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

var _ settle.PendingChecker = schemeChain{}

// schemeChain is the chain settler as the settlement engine sees it: a
// payment of a journaled scheme in the registry (upto) is settled by its
// scheme, any other (exact) by the batching settler.
type schemeChain struct {
	chainSettler
	schemes *x402.Schemes
}

func (c schemeChain) scheme(p *x402.Payment) x402.JournaledScheme {
	s, _ := c.schemes.Lookup(p.Scheme).(x402.JournaledScheme)
	return s
}

// Broadcast sends the settlement of p for req.Amount (a metered scheme: the charge).
func (c schemeChain) Broadcast(ctx context.Context, p *x402.Payment, req *x402.Requirement, onSigned func(common.Hash) error) (*x402.Receipt, error) {
	if s := c.scheme(p); s != nil {
		return s.Broadcast(ctx, p, req, onSigned)
	}
	return c.chainSettler.Broadcast(ctx, p, req, onSigned)
}

// Await waits for the settlement transaction of p.
func (c schemeChain) Await(ctx context.Context, tx common.Hash, p *x402.Payment) error {
	if s := c.scheme(p); s != nil {
		return s.Await(ctx, tx, p)
	}
	return c.chainSettler.Await(ctx, tx, p)
}

// AwaitFee is Await with the relayer's fee share of a batched transfer.
// A scheme's settlement is a relayer call, whose fee the OnCallGas hook
// books: none is reported here, so it is not booked twice.
func (c schemeChain) AwaitFee(ctx context.Context, tx common.Hash, p *x402.Payment) (*big.Int, error) {
	if s := c.scheme(p); s != nil {
		return nil, s.Await(ctx, tx, p)
	}
	return c.chainSettler.AwaitFee(ctx, tx, p)
}

// AuthorizationUsed asks p's scheme whether its nonce is spent on chain.
func (c schemeChain) AuthorizationUsed(ctx context.Context, p *x402.Payment, req *x402.Requirement) (bool, error) {
	if s := c.scheme(p); s != nil {
		return s.AuthorizationUsed(ctx, p, req)
	}
	return c.chainSettler.AuthorizationUsed(ctx, p, req)
}

// complete completes a journaled payment of another scheme on Resume
// (settle.Config.Complete) through its scheme.
func (c schemeChain) complete(pay *x402.Payment) error {
	s := c.scheme(pay)
	if s == nil {
		return fmt.Errorf("no settlement for a journaled %q payment", pay.Scheme)
	}
	return s.Complete(pay)
}

// AuthorizationPending is what the engine asks about a new authorization
// after its journal lost its data: the chain's pending state, which sees a
// transfer another replica already sent but the chain has not mined (the
// latest state would call it unused and the replay would be served). A
// scheme's own nonces, and a chain settler that cannot read the pending
// state, answer from the latest state.
func (c schemeChain) AuthorizationPending(ctx context.Context, p *x402.Payment, req *x402.Requirement) (bool, error) {
	if s := c.scheme(p); s != nil {
		return s.AuthorizationUsed(ctx, p, req)
	}
	if pc, ok := c.chainSettler.(settle.PendingChecker); ok {
		return pc.AuthorizationPending(ctx, p, req)
	}
	return c.chainSettler.AuthorizationUsed(ctx, p, req)
}
