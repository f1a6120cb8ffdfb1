package books

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/settle"
)

// TestEventsBookMinedAndFailedOnce: a confirmation is settled revenue of
// the entry's model and payer, counted once even when the engine reports
// it again (a resume after a restart); an upto charge counts, not its
// ceiling; a failure after serving is failed revenue; other steps are not
// revenue. Calls add calls, charges, refusals and time to first token; a
// paid call is counted once with its purchase's confirmation, and a
// confirmation whose call the gateway did not book counts that call.
func TestEventsBookMinedAndFailedOnce(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)
	b := New(Config{Store: NewMemoryStore(), Now: func() time.Time { return now }})
	defer b.Close()
	payer := common.HexToAddress("0xAbC0000000000000000000000000000000000001")
	entry := func(nonce byte, amount int64) *settle.Entry {
		return &settle.Entry{ChainID: "1", Payer: payer, Nonce: common.Hash{nonce}, Amount: big.NewInt(amount), Model: "m",
			Updated: now}
	}
	mined := entry(1, 1000)
	b.Event(settle.Event{Kind: settle.EventConfirmed, Entry: mined})
	b.Event(settle.Event{Kind: settle.EventConfirmed, Entry: mined}) // seen again after a restart
	upto := entry(2, 10_000)
	upto.Charge = big.NewInt(2500)
	b.Event(settle.Event{Kind: settle.EventConfirmed, Entry: upto})
	b.Event(settle.Event{Kind: settle.EventBroadcast, Entry: entry(3, 7000)})
	b.Event(settle.Event{Kind: settle.EventFailed, Entry: entry(4, 1000)})
	// The gateway's row of the mined purchase's call: counted once with
	// its confirmation; upto's call is counted by its confirmation alone.
	b.RecordCall(Call{Model: "m", Payer: payer.Hex(), Reached: true, Paid: true, Charged: 1000, Status: 200, TTFT: 30 * time.Millisecond,
		Entry: mined.Name()})
	b.RecordCall(Call{Model: "m", Reached: true, Status: 200, TTFT: 3 * time.Second})
	b.RecordCall(Call{Model: "m", Status: 402, Code: "payment_required"})

	sum, err := b.Summary(context.Background(), now.Add(-time.Hour), now.Add(time.Hour), "")
	if err != nil {
		t.Fatal(err)
	}
	f := sum.Models["m"]
	if f == nil {
		t.Fatalf("no entry for m: %+v", sum.Models)
	}
	if f.Settled != "0.0035" || f.SettledCalls != 2 || f.Failed != "0.001" || f.FailedCalls != 1 {
		t.Errorf("settled %s in %d, failed %s in %d; want 0.0035 in 2, 0.001 in 1", f.Settled, f.SettledCalls, f.Failed, f.FailedCalls)
	}
	if f.Calls != 3 || f.PaidCalls != 2 || f.Charged != "0.0035" || f.Refusals["402:payment_required"] != 1 || f.Margin != "0.0035" {
		t.Errorf("figures %+v", f)
	}
	if f.TTFTP50ms == nil || *f.TTFTP50ms != 50 || f.TTFTP95ms == nil || *f.TTFTP95ms != 5000 {
		t.Errorf("time to first token p50 %v p95 %v, want the buckets of 30 ms and 3 s (50 ms, 5 s)", f.TTFTP50ms, f.TTFTP95ms)
	}
	payers, err := b.Payers(context.Background(), now.Add(-time.Hour), now.Add(time.Hour), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(payers) != 1 || payers[0].Payer != "0xabc0000000000000000000000000000000000001" || payers[0].Settled != "0.0035" {
		t.Errorf("payers %+v", payers)
	}
}

// TestSuppliersBookedApart: a pooled model's calls are broken down by the
// supplier that served them (calls, charges, what each cost), the model's
// cost is theirs summed, and its margin is settled less that cost.
func TestSuppliersBookedApart(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)
	b := New(Config{Store: NewMemoryStore(), Now: func() time.Time { return now }})
	defer b.Close()
	payer := common.HexToAddress("0xAbC0000000000000000000000000000000000002")
	for i := range 3 {
		sup, cost := "cheap", int64(100)
		if i == 2 {
			sup, cost = "dear", 400
		}
		en := &settle.Entry{ChainID: "1", Payer: payer, Nonce: common.Hash{byte(i + 1)}, Amount: big.NewInt(1000), Model: "p", Updated: now}
		b.RecordCall(Call{Model: "p", Supplier: sup, Payer: payer.Hex(), Reached: true, Paid: true, Charged: 1000, Cost: cost, Status: 200,
			Entry: en.Name()})
		b.Event(settle.Event{Kind: settle.EventConfirmed, Entry: en})
	}
	sum, err := b.Summary(context.Background(), now.Add(-time.Hour), now.Add(time.Hour), "")
	if err != nil {
		t.Fatal(err)
	}
	f := sum.Models["p"]
	if f == nil || f.Settled != "0.003" || f.Cost != "0.0006" || f.Margin != "0.0024" || f.Calls != 3 {
		t.Fatalf("model figures %+v, want settled 0.003, cost 0.0006, margin 0.0024 in 3 calls", f)
	}
	cheap, dear := f.Suppliers["cheap"], f.Suppliers["dear"]
	if cheap == nil || dear == nil || len(f.Suppliers) != 2 {
		t.Fatalf("suppliers %+v, want cheap and dear", f.Suppliers)
	}
	if cheap.Calls != 2 || cheap.PaidCalls != 2 || cheap.Charged != "0.002" || cheap.Cost != "0.0002" ||
		dear.Calls != 1 || dear.Charged != "0.001" || dear.Cost != "0.0004" {
		t.Errorf("cheap %+v dear %+v", cheap, dear)
	}
	var csv strings.Builder
	if err := b.ExportCSV(context.Background(), &csv, now.Add(-time.Hour), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csv.String(), ",p,dear,0xabc0000000000000000000000000000000000002,1,1,0,0.001,0,0,0,0,0,0.0004,") {
		t.Errorf("export has no line of supplier dear's call and cost:\n%s", csv.String())
	}
}

// TestAttributionMovesSettledToTheSupplier: a transfer mined before its
// supplier was known is booked on the model, then moved to the supplier
// when the engine attributes it, once however often that is reported and
// in whichever order; a confirmation that names its supplier books it
// there at once. Each supplier's settled and margin, plus what names no
// supplier, is the model's.
func TestAttributionMovesSettledToTheSupplier(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)
	b := New(Config{Store: NewMemoryStore(), Now: func() time.Time { return now }})
	defer b.Close()
	payer := common.HexToAddress("0xAbC0000000000000000000000000000000000003")
	entry := func(nonce byte, supplier string, state settle.State) *settle.Entry {
		return &settle.Entry{ChainID: "1", Payer: payer, Nonce: common.Hash{nonce}, Amount: big.NewInt(1000), Model: "p",
			Supplier: supplier, State: state, Updated: now.Add(-20 * time.Minute)}
	}
	// Mined first, attributed later (twice: a replica reports it again).
	b.Event(settle.Event{Kind: settle.EventConfirmed, Entry: entry(1, "", settle.Confirmed)})
	b.Event(settle.Event{Kind: settle.EventAttributed, Entry: entry(1, "cheap", settle.Confirmed)})
	b.Event(settle.Event{Kind: settle.EventAttributed, Entry: entry(1, "cheap", settle.Confirmed)})
	// Attributed before its confirmation was booked.
	b.Event(settle.Event{Kind: settle.EventAttributed, Entry: entry(2, "dear", settle.Confirmed)})
	b.Event(settle.Event{Kind: settle.EventConfirmed, Entry: entry(2, "", settle.Confirmed)})
	// Named before it was mined.
	b.Event(settle.Event{Kind: settle.EventConfirmed, Entry: entry(3, "cheap", settle.Confirmed)})
	// Mined for a call no supplier answered: stays on the model.
	b.Event(settle.Event{Kind: settle.EventConfirmed, Entry: entry(4, "", settle.Confirmed)})
	// Failed after it was served, attributed later: the failure moves too.
	b.Event(settle.Event{Kind: settle.EventFailed, Entry: entry(5, "", settle.Failed)})
	b.Event(settle.Event{Kind: settle.EventAttributed, Entry: entry(5, "dear", settle.Failed)})
	b.RecordCall(Call{Model: "p", Supplier: "cheap", Reached: true, Cost: 300, Status: 200})

	sum, err := b.Summary(context.Background(), now.Add(-time.Hour), now.Add(time.Hour), "")
	if err != nil {
		t.Fatal(err)
	}
	f := sum.Models["p"]
	if f == nil || f.Settled != "0.004" || f.SettledCalls != 4 || f.Margin != "0.0037" {
		t.Fatalf("model figures %+v, want 0.004 settled in 4, margin 0.0037", f)
	}
	cheap, dear := f.Suppliers["cheap"], f.Suppliers["dear"]
	if cheap == nil || dear == nil || len(f.Suppliers) != 2 {
		t.Fatalf("suppliers %+v, want cheap and dear", f.Suppliers)
	}
	if cheap.Settled != "0.002" || cheap.SettledCalls != 2 || cheap.Margin != "0.0017" ||
		dear.Settled != "0.001" || dear.SettledCalls != 1 || dear.Margin != "0.001" {
		t.Errorf("cheap %+v dear %+v; want 0.002 in 2 (margin 0.0017) and 0.001 in 1", cheap, dear)
	}
	if f.Failed != "0.001" || f.FailedCalls != 1 {
		t.Errorf("the model failed %s in %d, want 0.001 in 1", f.Failed, f.FailedCalls)
	}
	rows, err := b.Rows(context.Background(), now.Add(-time.Hour), now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		want := map[string]int64{"": 0, "dear": 1000}[r.Supplier]
		if r.Supplier != "cheap" && (r.Fields[FFailed] != want || r.Fields[FFailedN] != want/1000) {
			t.Errorf("row of supplier %q failed %d in %d, want %d", r.Supplier, r.Fields[FFailed], r.Fields[FFailedN], want)
		}
	}
}

// TestForgivenIsWrittenOffNotRevenue: a forgiven debt is booked once under
// its model and payer (forgiving the same item again adds nothing), stays
// out of settled and margin, and shows in the summary, the payers and the
// export.
func TestForgivenIsWrittenOffNotRevenue(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)
	b := New(Config{Store: NewMemoryStore(), Now: func() time.Time { return now }})
	defer b.Close()
	payer := common.HexToAddress("0xAbC0000000000000000000000000000000000003")
	b.Event(settle.Event{Kind: settle.EventConfirmed, Entry: &settle.Entry{ChainID: "1", Payer: payer, Nonce: common.Hash{1},
		Amount: big.NewInt(1000), Model: "m", Updated: now}})
	b.Event(settle.Event{Kind: settle.EventFailed, Entry: &settle.Entry{ChainID: "1", Payer: payer, Nonce: common.Hash{2},
		Amount: big.NewInt(2000), Model: "m", Updated: now}})
	debt := settle.DebtItem{Entry: "1:0x2", Amount: big.NewInt(2000), Reason: "insufficient_funds", At: now, Model: "m"}
	b.Forgive(payer.Hex(), []settle.DebtItem{debt})
	b.Forgive(payer.Hex(), []settle.DebtItem{debt}) // a second operator's click on the same debt
	sum, err := b.Summary(context.Background(), now.Add(-time.Hour), now.Add(time.Hour), "")
	if err != nil {
		t.Fatal(err)
	}
	if f := sum.Models["m"]; f == nil || f.Forgiven != "0.002" || f.Failed != "0.002" || f.Settled != "0.001" || f.Margin != "0.001" ||
		sum.Totals.Forgiven != "0.002" {
		t.Fatalf("figures %+v, totals forgiven %s; want 0.002 forgiven and failed, 0.001 settled and margin", f, sum.Totals.Forgiven)
	}
	payers, err := b.Payers(context.Background(), now.Add(-time.Hour), now.Add(time.Hour), 10)
	if err != nil || len(payers) != 1 || payers[0].Forgiven != "0.002" || payers[0].Settled != "0.001" {
		t.Fatalf("payers %+v, %v", payers, err)
	}
	var csv strings.Builder
	if err := b.ExportCSV(context.Background(), &csv, now.Add(-time.Hour), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if !strings.HasSuffix(lines[0], ",forgiven_usdc") || len(lines) != 2 || !strings.HasSuffix(lines[1], ",0.002") {
		t.Errorf("export:\n%s\nwant the forgiven column with 0.002", csv.String())
	}
}

// TestCallsCountedPerWire: the calls that reached the model are split by
// the client wire they came on, per model and in the totals; a refused
// call counts on no wire, and the wires add up to the calls.
func TestCallsCountedPerWire(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 30, 0, 0, time.UTC)
	b := New(Config{Store: NewMemoryStore(), Now: func() time.Time { return now }})
	defer b.Close()
	for _, w := range []string{"responses", "chat", "chat", "messages"} {
		b.RecordCall(Call{Model: "m", Wire: w, Reached: true, Status: 200})
	}
	b.RecordCall(Call{Model: "m", Wire: "chat", Status: 402, Code: "payment_required"})
	b.RecordCall(Call{Model: "n", Wire: "messages", Reached: true, Status: 200})
	sum, err := b.Summary(context.Background(), now.Add(-time.Hour), now.Add(time.Hour), "")
	if err != nil {
		t.Fatal(err)
	}
	f := sum.Models["m"]
	if f == nil || f.Calls != 4 || f.Wires["responses"] != 1 || f.Wires["chat"] != 2 || f.Wires["messages"] != 1 || len(f.Wires) != 3 {
		t.Fatalf("m: %+v, want 4 calls: 1 responses, 2 chat, 1 messages", f)
	}
	if w := sum.Totals.Wires; w["messages"] != 2 || w["chat"] != 2 || w["responses"] != 1 {
		t.Errorf("totals' wires %v", w)
	}
	if w := b.NoFigures().Wires; w == nil || len(w) != 0 {
		t.Errorf("no figures' wires %v, want an empty map (an object in JSON)", w)
	}
}
