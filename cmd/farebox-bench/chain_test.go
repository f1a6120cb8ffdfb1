package main

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402/payer"
)

// TestChainJudgeAndGas checks the real-settlement arms' referee against a
// real anvil: balances that did not move by price x served calls are a
// mismatch, balances that did are ok, and the gas reader sums exactly the
// gas payer's mined transactions.
func TestChainJudgeAndGas(t *testing.T) {
	a := chaintest.StartAnvil(t)
	ctx := context.Background()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	s := payer.NewSigner(key)
	start, err := a.Client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The USDC owner mints twice: its transactions are the "settlements" the gas reader must find.
	owner := crypto.PubkeyToAddress(a.OwnerKey.PublicKey)
	for range 2 {
		if err := a.Fund(ctx, s.Address(), 5*chainPrice); err != nil {
			t.Fatal(err)
		}
	}
	ca := &chainArm{anvil: a, gasPayer: owner, payTo: common.HexToAddress("0x00000000000000000000000000000000000b3c4d"), startBlock: start,
		before: map[common.Address]*big.Int{}, judgeWithin: 2 * time.Second}
	ca.arm = &arm{name: "judged", pay: &payPool{signers: []*payer.Signer{s}, paid: map[common.Address]int{}}}
	for _, who := range []common.Address{s.Address(), ca.payTo} {
		if ca.before[who], err = usdcBalance(ctx, a, who); err != nil {
			t.Fatal(err)
		}
	}
	if _, verdict, err := ca.judge(ctx); err != nil || !strings.HasPrefix(verdict, "ok") {
		t.Fatalf("nothing served, nothing moved: verdict %q, %v", verdict, err)
	}
	ca.pay.served(s.Address())
	settled, verdict, err := ca.judge(ctx)
	if err != nil || settled != 1 || !strings.HasPrefix(verdict, "MISMATCH") {
		t.Fatalf("one call served, no USDC moved: settled %d, verdict %q, %v", settled, verdict, err)
	}
	txs, reverted, gas, err := ca.gas(ctx)
	if err != nil || txs != 2 || reverted != 0 || gas < 2*21000 {
		t.Fatalf("gas of two mints: %d txs, %d reverted, %d gas, %v", txs, reverted, gas, err)
	}
}
