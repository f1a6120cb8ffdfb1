package evm

import (
	"context"
	"fmt"
	"sync"

	"github.com/farebox/farebox/x402"
)

// deployedAssets remembers tokens seen with code, so checking that the asset
// is a contract costs one eth_getCode per asset, not one per payment. A call
// to an address without code "succeeds" with no effect: without this check a
// misconfigured asset would look like a successful settlement.
type deployedAssets struct {
	seen sync.Map // common.Address -> struct{}
}

// check returns an *x402.Error when n's asset has no code, a plain error
// when the chain cannot be read.
func (d *deployedAssets) check(ctx context.Context, b Backend, n *x402.Network) error {
	if _, ok := d.seen.Load(n.Asset); ok {
		return nil
	}
	code, err := b.CodeAt(ctx, n.Asset, nil)
	if err != nil {
		return fmt.Errorf("evm: reading code of the token %s: %w", n.Asset, err)
	}
	if len(code) == 0 {
		return &x402.Error{Reason: x402.ReasonInvalidRequirements,
			Message: fmt.Sprintf("no token contract at %s on %s", n.Asset, n.CAIP2)}
	}
	d.seen.Store(n.Asset, struct{}{})
	return nil
}
