package evm_test

import (
	"context"
	"testing"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
)

// With PerPayer, a payer's payments are simulated until one passes; then
// they skip the simulation while fewer than MaxUnchecked skipped ones are
// in flight, and a failure reported by end takes the vouch away. A
// contract wallet's payments (here a 65-byte signature accepted through
// EIP-1271) are simulated every time. Counted in eth_call requests to anvil.
func TestCheckPayerSimulatesOncePerPayerState(t *testing.T) {
	f := fixtures[1]
	ctx := context.Background()
	rpc, client := startCountingRPC(t, f.anvil.RPCURL)
	c := evm.NewChecker(client, true)
	c.PerPayer, c.MaxUnchecked = true, 2
	v := &x402.Verifier{Checker: c}
	calls := func() int { _, m := rpc.snapshot(); return m["eth_call"] }
	check := func(p *x402.Payment, req *x402.Requirement) (func(bool), int) {
		t.Helper()
		if _, err := v.VerifyLocal(ctx, p, []*x402.Requirement{req}); err != nil {
			t.Fatalf("local verification: %v", err)
		}
		before := calls()
		end, err := v.CheckPayer(ctx, p, req)
		if err != nil {
			t.Fatalf("check: %v", err)
		}
		return end, calls() - before
	}

	end, n := check(f.pay(10))
	if n == 0 {
		t.Fatal("a payer's first payment was not simulated")
	}
	end(false)
	end1, n1 := check(f.pay(10))
	end2, n2 := check(f.pay(10))
	if n1 != 0 || n2 != 0 {
		t.Fatalf("the vouched payer's next payments made %d and %d eth_calls, want none", n1, n2)
	}
	// Two unsimulated payments in flight (MaxUnchecked): the third is simulated.
	end3, n3 := check(f.pay(10))
	if n3 == 0 {
		t.Fatal("a payment past MaxUnchecked unsimulated in flight was not simulated")
	}
	end3(false)
	end1(false)
	if _, n := check(f.pay(10)); n != 0 {
		t.Fatalf("with a slot free again the payment made %d eth_calls, want none", n)
	}
	// A failed settlement takes the vouch away; ending twice counts once.
	end2(true)
	end2(true)
	endA, nA := check(f.pay(10))
	if nA == 0 {
		t.Fatal("the payer's payment after a failure was not simulated")
	}
	endA(false)
	if _, n := check(f.pay(10)); n != 0 {
		t.Fatalf("after a passed simulation the payment made %d eth_calls, want none", n)
	}

	// A contract wallet whose owner signs 65 bytes: every payment simulated.
	for i := range 3 {
		p, req := f.authorize(f.wallet, 10, f.walletSign)
		end, n := check(p, req)
		if n == 0 {
			t.Fatalf("the contract wallet's payment %d was not simulated", i)
		}
		end(false)
	}
}
