package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/testenv"
)

// TestSettlerArmSettlesAndTheChainAgrees runs the settler arm at smoke size
// on its own anvil: every settlement lands in a batch, none reverts, the
// balances agree, and the figures it reports are the chain's.
func TestSettlerArmSettlesAndTheChainAgrees(t *testing.T) {
	testenv.SkipShort(t, "anvil")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	res, err := runSettlerArm(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Verdict, "ok") {
		t.Fatalf("verdict %q", res.Verdict)
	}
	if res.Settlements != 300 || res.Reverted != 0 {
		t.Fatalf("%d settlements, %d reverted; want 300 and 0", res.Settlements, res.Reverted)
	}
	if res.SettlementsPerTx <= 1 || res.Transactions < 1 || res.Blocks < 1 {
		t.Fatalf("%.1f settlements in each of %d transactions over %d blocks: want batches", res.SettlementsPerTx, res.Transactions, res.Blocks)
	}
	// A FiatToken transfer inside a batch costs 40-50k gas; outside that
	// range the gas was not read from the relayer's receipts.
	if res.GasPerSettlement < 35_000 || res.GasPerSettlement > 80_000 {
		t.Fatalf("gas per settlement %.0f", res.GasPerSettlement)
	}
	if res.PerSec <= 0 || res.PerSec > float64(res.Settlements) {
		t.Fatalf("settlements/s %.0f for %d settlements over at least one 2 s block", res.PerSec, res.Settlements)
	}
	var md strings.Builder
	(&Report{Settler: res, SettlerThroughput: res.PerSec}).writeSettlerTable(&md)
	if !strings.Contains(md.String(), "Chain settler throughput") || !strings.Contains(md.String(), res.Verdict) {
		t.Fatalf("report section:\n%s", md.String())
	}
}
