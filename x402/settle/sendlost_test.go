package settle_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// lossySettler is the chain settler whose first Broadcast fails as a node
// that stopped answering makes it fail: after signing, the send timed out
// (the transaction never reached the node), or before signing, a header
// read hit its deadline. Later broadcasts (the follower's) go through.
type lossySettler struct {
	*devSettler
	signed bool // the first failure comes after signing
	calls  atomic.Int64
}

func (s *lossySettler) Broadcast(ctx context.Context, p *x402.Payment, req *x402.Requirement, onSigned func(common.Hash) error) (*x402.Receipt, error) {
	if s.calls.Add(1) > 1 {
		return s.devSettler.Broadcast(ctx, p, req, onSigned)
	}
	rc := &x402.Receipt{Payer: p.Authorization.From.Hex(), Network: req.Network.CAIP2}
	if !s.signed {
		rc.ErrorReason = x402.ReasonUnexpectedSettleError
		return rc, fmt.Errorf("evm: reading latest header: %w", context.DeadlineExceeded)
	}
	lost := common.HexToHash("0x5e4d")
	if err := onSigned(lost); err != nil {
		return rc, err
	}
	rc.ErrorReason, rc.Transaction = x402.ReasonSettlementPending, lost.Hex()
	return rc, fmt.Errorf("%w: sending %s: %w", x402.ErrSettlementPending, lost.Hex(), context.DeadlineExceeded)
}

// A send that timed out after signing leaves a settlement the client is
// answered pending for: its entry is journaled broadcast, the same
// authorization with another body is refused, and the follower sends it
// again once the lost transaction is nowhere, so it is paid once. Before,
// the entry stayed settling and was released, and another body could buy
// a run with the same authorization.
func TestASendLostAfterSigningIsFollowedNeverReleased(t *testing.T) {
	ctx := context.Background()
	s := &lossySettler{devSettler: settler, signed: true}
	j := settle.NewMemoryJournal(100)
	e, ev := newEngine(t, settle.Config{Journal: j, Settler: s, AwaitTimeout: 300 * time.Millisecond, RetryInterval: 20 * time.Millisecond})
	b := newBuyer(t, 2*price)
	pay := b.pay(t)
	p, err := e.Begin(ctx, b.purchase(pay, "lost send"))
	if err != nil {
		t.Fatal(err)
	}
	p.Running()
	rc, err := p.Settle(ctx)
	if !errors.Is(err, x402.ErrSettlementPending) || rc == nil || rc.ErrorReason != x402.ReasonSettlementPending {
		t.Fatalf("Settle = %+v, %v; want pending", rc, err)
	}
	if _, err := e.Begin(ctx, b.purchase(pay, "another body")); !errors.Is(err, settle.ErrNonceUsed) {
		t.Fatalf("the same authorization with another body: %v, want %v", err, settle.ErrNonceUsed)
	}
	ev.await(t, settle.EventConfirmed, p.Entry().Name())
	if n := s.calls.Load(); n != 2 {
		t.Fatalf("%d broadcasts, want the lost one and the follower's", n)
	}
	en, err := j.Get(ctx, pay.Key(chain.Network))
	if err != nil || en.State != settle.Confirmed || en.Receipt == nil || !en.Receipt.Success {
		t.Fatalf("entry %+v, %v; want confirmed", en, err)
	}
	if from, to := b.balancesAfter(t, en.Receipt.Transaction); from != price || to != price {
		t.Fatalf("payer paid %d, payee got %d; want %d once", from, to, price)
	}
}

// A broadcast that failed before signing (a deadline on a chain read) sent
// nothing: the purchase is released, and its error is an
// unexpected_settle_error that no caller can take for a pending
// settlement (before, it wrapped the deadline, which the server answers as
// pending: served while released).
func TestAFailureBeforeSigningIsReleasedNotPending(t *testing.T) {
	ctx := context.Background()
	j := settle.NewMemoryJournal(100)
	e, ev := newEngine(t, settle.Config{Journal: j, Settler: &lossySettler{devSettler: settler}})
	b := newBuyer(t, price)
	pay := b.pay(t)
	p, err := e.Begin(ctx, b.purchase(pay, "not sent"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Settle(ctx)
	var xe *x402.Error
	if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, x402.ErrSettlementPending) ||
		!errors.As(err, &xe) || xe.Reason != x402.ReasonUnexpectedSettleError {
		t.Fatalf("Settle error %v; want an unexpected_settle_error that is neither a deadline nor pending", err)
	}
	ev.await(t, settle.EventReleased, p.Entry().Name())
	if _, err := j.Get(ctx, pay.Key(chain.Network)); !errors.Is(err, settle.ErrNotFound) {
		t.Fatalf("the entry: %v, want it released", err)
	}
}
