package evm_test

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
)

// SimulateCall tells a call that would revert (the relayer holds no
// dollars to transfer) from one that would succeed, sending nothing.
func TestSimulateCallFindsReverts(t *testing.T) {
	eachChain(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		tok := contracts.NewFareboxUSDv2()
		asset := f.net.Asset
		if err := f.settler.SimulateCall(ctx, asset, tok.PackTransfer(common.HexToAddress("0x1"), big.NewInt(1))); !errors.Is(err, evm.ErrCallReverted) {
			t.Fatalf("simulating a reverting transfer: %v", err)
		}
		if err := f.settler.SimulateCall(ctx, asset, tok.PackApprove(common.HexToAddress("0x1"), big.NewInt(1))); err != nil {
			t.Fatalf("simulating an approve: %v", err)
		}
	})
}
