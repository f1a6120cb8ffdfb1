package evm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/x402/evm"
)

// TestSettleGivesUpOnAStuckTransactionWhenItsContextEnds turns anvil's
// automine off, so the settlement transaction really sits in the pool, and
// checks that Settle returns a failure at its context's deadline instead of
// hanging.
func TestSettleGivesUpOnAStuckTransactionWhenItsContextEnds(t *testing.T) {
	f := fixtures[1]
	a := f.anvil
	ctx := context.Background()
	// A relayer of its own, so the shared settler's nonce stays in step.
	s, err := evm.NewSettler(ctx, a.Client, a.WalletOwnerKey)
	if err != nil {
		t.Fatal(err)
	}
	s.PollInterval = 20 * time.Millisecond
	rpc := a.Client.Client()
	if err := rpc.CallContext(ctx, nil, "evm_setAutomine", false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rpc.CallContext(ctx, nil, "evm_setAutomine", true)
		rpc.CallContext(ctx, nil, "evm_mine")
	})
	p, req := f.pay(3)
	sctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	rc, err := s.Settle(sctx, p, req)
	if !errors.Is(err, evm.ErrNotMined) || rc.Success || rc.ErrorReason == "" {
		t.Fatalf("settle = %+v, %v; want a failure wrapping ErrNotMined", rc, err)
	}
	// Readiness reports the stuck relayer transaction until it is mined.
	if err := s.Ready(ctx); err == nil || !strings.Contains(err.Error(), rc.Transaction) {
		t.Errorf("Ready with a stuck transaction = %v, want an error naming %s", err, rc.Transaction)
	}
	if err := rpc.CallContext(ctx, nil, "evm_setAutomine", true); err != nil {
		t.Fatal(err)
	}
	if err := rpc.CallContext(ctx, nil, "evm_mine"); err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(ctx); err != nil {
		t.Errorf("Ready once the transaction is mined: %v", err)
	}
}
