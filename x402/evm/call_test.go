package evm_test

import (
	"context"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// TestCallSharesTheRelayerNonces: a call that would revert is refused
// before anything is sent or journaled; one whose journal fails is not
// sent; a good call is journaled, mined and awaited, and settlements sent
// around it on the same relayer still land (one nonce sequence).
func TestCallSharesTheRelayerNonces(t *testing.T) {
	eachChain(t, func(t *testing.T, f *fixture) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		tok := contracts.NewFareboxUSDv2() // ERC-20 transfer
		to := f.net.Asset
		nonce := func() uint64 {
			n, err := f.backend.PendingNonceAt(ctx, f.settler.Relayer())
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := nonce()
		journaled := 0
		_, err := f.settler.Call(ctx, to, tok.PackTransfer(common.Address{1}, new(big.Int).Lsh(big.NewInt(1), 120)), func(common.Hash) error { journaled++; return nil })
		if !errors.Is(err, evm.ErrCallReverted) || journaled != 0 {
			t.Fatalf("a transfer of tokens the relayer lacks: %v (journaled %d), want ErrCallReverted before journaling", err, journaled)
		}
		refused := errors.New("journal down")
		if _, err := f.settler.Call(ctx, to, tok.PackTransfer(common.Address{1}, big.NewInt(0)), func(common.Hash) error { return refused }); !errors.Is(err, refused) {
			t.Fatalf("journal failure: %v", err)
		}
		if n := nonce(); n != before {
			t.Fatalf("relayer nonce moved from %d to %d with nothing sent", before, n)
		}
		p2, req2 := f.pay(2)
		p3, req3 := f.pay(3)
		if _, err := f.settler.Settle(ctx, p2, req2); err != nil {
			t.Fatal(err)
		}
		var signed common.Hash
		tx, err := f.settler.Call(ctx, to, tok.PackTransfer(common.Address{1}, big.NewInt(0)), func(h common.Hash) error { signed = h; return nil })
		if err != nil || tx != signed {
			t.Fatalf("call: %s %v (journaled %s)", tx, err, signed)
		}
		if _, err := f.settler.Settle(ctx, p3, req3); err != nil {
			t.Fatalf("a settlement after the call: %v", err)
		}
		r, err := f.settler.AwaitCall(ctx, tx)
		if err != nil || r.TxHash != tx {
			t.Fatalf("await: %+v %v", r, err)
		}
	})
}
