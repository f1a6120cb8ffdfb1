package books

import (
	"bytes"
	"context"
	"encoding/csv"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/settle"
)

func wei(s string) *big.Int {
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return n
}

// gasBooks books the same purchases into books priced at price (nil:
// unpriced): a confirmation carrying gas (seen twice), a release after a
// reverted transaction, a claim of no model, and a cost.
func gasBooks(t *testing.T, price *big.Int) (*Books, time.Time) {
	now := time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)
	b := New(Config{Store: NewMemoryStore(), Now: func() time.Time { return now }, EthPrice: price})
	t.Cleanup(b.Close)
	payer := common.HexToAddress("0xAbC0000000000000000000000000000000000001")
	entry := func(nonce byte, tx byte) *settle.Entry {
		return &settle.Entry{ChainID: "1", Payer: payer, Nonce: common.Hash{nonce}, Amount: big.NewInt(1_000_000),
			Model: "m", Updated: now, Tx: common.Hash{tx}}
	}
	mined := entry(1, 1)
	b.Event(settle.Event{Kind: settle.EventConfirmed, Entry: mined, Gas: wei("43000000000000")})
	b.Event(settle.Event{Kind: settle.EventConfirmed, Entry: mined, Gas: wei("43000000000000")}) // a resume sees it again
	b.Event(settle.Event{Kind: settle.EventReleased, Entry: entry(2, 2), Gas: wei("21000000000007")})
	b.Event(settle.Event{Kind: settle.EventReleased, Entry: entry(3, 3)}) // released before any transaction: nothing
	b.RecordGas(Gas{Wei: wei("100000000000000"), Once: "0xclaim"})
	b.RecordGas(Gas{Wei: wei("100000000000000"), Once: "0xclaim"}) // the same transaction
	b.Record(Delta{Model: "m", Fields: map[string]int64{FCost: 200_000}})
	return b, now
}

// TestGasIsBookedInWeiAndPricedOnlyWhenAPriceIsStated: the relayer's gas
// of a purchase (its confirmation's share, a released purchase's reverted
// transaction) counts once under its model and payer, a claim's under no
// model in the totals; without an ETH price gas is "0" USDC, marked
// unpriced and out of the margin; with one it is priced and enters it.
func TestGasIsBookedInWeiAndPricedOnlyWhenAPriceIsStated(t *testing.T) {
	ctx := context.Background()
	t.Run("unpriced", func(t *testing.T) {
		b, now := gasBooks(t, nil)
		sum, err := b.Summary(ctx, now.Add(-time.Hour), now.Add(time.Hour), "")
		if err != nil {
			t.Fatal(err)
		}
		m := sum.Models["m"]
		if got, want := m.GasWei, "64000000000007"; got != want {
			t.Errorf("model gas_wei %s, want %s", got, want)
		}
		if got, want := m.GasETH, "0.000064000000000007"; got != want {
			t.Errorf("model gas_eth %s, want %s", got, want)
		}
		if m.Gas != "0" || m.GasPriced || sum.GasPriced || sum.EthPriceUSDC != "" {
			t.Errorf("unpriced gas reads %s USDC, priced %v/%v (%q)", m.Gas, m.GasPriced, sum.GasPriced, sum.EthPriceUSDC)
		}
		if got, want := m.Margin, "0.8"; got != want {
			t.Errorf("margin %s, want %s (settled 1 less cost 0.2, gas unpriced)", got, want)
		}
		if got, want := sum.Totals.GasWei, "164000000000007"; got != want {
			t.Errorf("totals gas_wei %s, want %s (the claim of no model included)", got, want)
		}
		payers, err := b.Payers(ctx, now.Add(-time.Hour), now.Add(time.Hour), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(payers) != 1 || payers[0].GasWei != "64000000000007" || payers[0].GasETH != "0.000064000000000007" {
			t.Errorf("payers %+v", payers)
		}
	})
	t.Run("priced", func(t *testing.T) {
		b, now := gasBooks(t, big.NewInt(3000_000_000)) // 3000 USDC per ETH
		sum, err := b.Summary(ctx, now.Add(-time.Hour), now.Add(time.Hour), "")
		if err != nil {
			t.Fatal(err)
		}
		m := sum.Models["m"]
		// 64000000000007 wei at 3000 USDC/ETH = 0.192000000000021 USDC: 0.192 rounded.
		if m.Gas != "0.192" || !m.GasPriced || !sum.GasPriced || sum.EthPriceUSDC != "3000" {
			t.Errorf("priced gas %s USDC (priced %v, price %q), want 0.192 at 3000", m.Gas, m.GasPriced, sum.EthPriceUSDC)
		}
		if got, want := m.Margin, "0.608"; got != want {
			t.Errorf("margin %s, want %s (1 settled - 0.2 cost - 0.192 gas)", got, want)
		}
		if got, want := sum.Totals.Gas, "0.492"; got != want {
			t.Errorf("totals gas %s, want %s", got, want)
		}
		if len(sum.Series) != 1 || sum.Series[0].Gas != "0.192" || sum.Series[0].Margin != "0.608" {
			t.Errorf("series %+v", sum.Series)
		}
		var out bytes.Buffer
		if err := b.ExportCSV(ctx, &out, now.Add(-time.Hour), now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(&out).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		col := map[string]int{}
		for i, h := range recs[0] {
			col[h] = i
		}
		var sumWei big.Int
		for _, r := range recs[1:] {
			sumWei.Add(&sumWei, wei(r[col["gas_wei"]]))
		}
		if sumWei.String() != "164000000000007" {
			t.Errorf("the export's gas_wei adds up to %s, want 164000000000007: %v", sumWei.String(), recs)
		}
	})
}

// TestGasBeyondAnInt64OfWeiAddsUpExactly: a row holds gas in whole gwei
// and the wei below, so months of an expensive chain (past 9.2 ETH, an
// int64 of wei) still add up to the wei.
func TestGasBeyondAnInt64OfWeiAddsUpExactly(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)
	b := New(Config{Store: NewMemoryStore(), Now: func() time.Time { return now }})
	defer b.Close()
	for range 3 {
		b.RecordGas(Gas{Model: "m", Wei: wei("5000000000000000001")}) // 5 ETH and a wei
	}
	sum, err := b.Summary(context.Background(), now.Add(-time.Hour), now.Add(time.Hour), "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sum.Totals.GasWei, "15000000000000000003"; got != want {
		t.Errorf("gas_wei %s, want %s", got, want)
	}
	if got, want := sum.Totals.GasETH, "15.000000000000000003"; got != want {
		t.Errorf("gas_eth %s, want %s", got, want)
	}
}
