package gateway

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
	"github.com/farebox/farebox/x402/upto"
)

// authorizeUpto verifies an upto payment locally, reserves it in the
// settlement journal (replays and holds as for exact, at the ceiling) and
// simulates its settlement at the ceiling from the relayer.
func (p *payments) authorizeUpto(ctx context.Context, pay *x402.Payment, rt *route, o *offer, body []byte, version int) (*charge, error) {
	u := p.upto
	if u == nil || rt.perToken == nil {
		return nil, refuse(o, x402.ReasonUnsupportedScheme, "Payment refused: this model takes upto payments only when priced per token and settled by farebox's own chain settler. Pay with one of the offers.")
	}
	req := o.requirement(pay.Network, upto.Scheme)
	if req == nil {
		return nil, refuse(o, upto.ReasonNetworkMismatch, "Payment refused: network "+pay.Network+" is not offered.")
	}
	if err := u.Complete(pay); err != nil {
		return nil, p.undecodable(o, err, version, "Payment refused: ")
	}
	if err := u.Verify(pay, req); err != nil {
		xe := x402.AsError(err, x402.ReasonUnexpectedVerifyError)
		return nil, refuse(o, xe.Reason, "Payment refused: "+xe.Message)
	}
	id, err := paymentID(pay)
	if err != nil {
		p.counts.refused.Add(1)
		return nil, err
	}
	pu, err := p.engine.BeginWait(ctx, settle.Purchase{Payment: pay, Requirement: req, BodyHash: sha256.Sum256(body), PaymentID: id})
	if err != nil {
		return nil, p.beginError(o, err)
	}
	if !pu.Replay() {
		if err := u.Simulate(ctx, pay, req); err != nil {
			if rerr := pu.Release(ctx); rerr != nil {
				p.log.Error("releasing a purchase the chain refused", "err", rerr)
			}
			var xe *x402.Error
			if !errors.As(err, &xe) {
				return nil, errPaymentsUnavailable(err)
			}
			return nil, refuse(o, xe.Reason, "Payment refused: "+xe.Message)
		}
	}
	return &charge{route: rt, payment: pay, req: req, offer: o, pay: journaled{pu: pu, metered: true}}, nil
}

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
