// Package bookstest is the conformance suite of books.Store: every store
// of the books runs through the same checks.
package bookstest

import (
	"context"
	"testing"
	"time"

	"github.com/farebox/farebox/books"
)

// Run runs every check on fresh stores from open.
func Run(t *testing.T, open func(t *testing.T) books.Store) {
	t.Run("CountOnceAndRollUp", func(t *testing.T) { countOnceAndRollUp(t, open) })
	t.Run("MoveOnce", func(t *testing.T) { moveOnce(t, open) })
	t.Run("FieldsKeptByName", func(t *testing.T) { fieldsKeptByName(t, open) })
}

// countOnceAndRollUp: a store adds deltas into hourly rows,
// counts a delta with a Once mark at most once (a confirmation seen again
// after a restart), and rolls old hours into a day without losing a unit.
func countOnceAndRollUp(t *testing.T, open func(t *testing.T) books.Store) {
	ctx := context.Background()
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s := open(t)
	ds := []books.Delta{
		{At: day.Add(10*time.Hour + time.Minute), Model: "m|x", Payer: "0xab", Fields: map[string]int64{books.FSettled: 1000, books.FSettledN: 1}, Once: "c:1"},
		{At: day.Add(10*time.Hour + 2*time.Minute), Model: "m|x", Payer: "0xab", Fields: map[string]int64{books.FSettled: 1000, books.FSettledN: 1}, Once: "c:1"},
		{At: day.Add(11 * time.Hour), Model: "m|x", Payer: "0xab", Fields: map[string]int64{books.FSettled: 2000, books.FSettledN: 1}, Once: "c:2"},
		{At: day.Add(11 * time.Hour), Model: "free", Fields: map[string]int64{books.FCalls: 1, books.FFree: 1}},
	}
	if err := s.Apply(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, ds[:1]); err != nil { // the same confirmation, after a restart
		t.Fatal(err)
	}
	rows, err := s.Rows(ctx, day, day.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	total := func(rows []books.Row, model, field string) (n int64) {
		for _, r := range rows {
			if r.Model == model {
				n += r.Fields[field]
			}
		}
		return n
	}
	if len(rows) != 3 || total(rows, "m|x", books.FSettled) != 3000 || total(rows, "m|x", books.FSettledN) != 2 || total(rows, "free", books.FCalls) != 1 {
		t.Fatalf("rows = %+v, want 3 rows, 3000 settled in 2 transfers for m|x", rows)
	}
	if rows, _ := s.Rows(ctx, day.Add(11*time.Hour), day.Add(12*time.Hour)); total(rows, "m|x", books.FSettled) != 2000 {
		t.Errorf("the 11:00 hour holds %+v, want 2000 settled", rows)
	}
	if err := s.Rollup(ctx, day.Add(48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	rows, err = s.Rows(ctx, day, day.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !r.Day {
			t.Errorf("an hourly row survived the roll-up: %+v", r)
		}
	}
	if len(rows) != 2 || total(rows, "m|x", books.FSettled) != 3000 || total(rows, "free", books.FFree) != 1 {
		t.Errorf("after the roll-up: %+v, want 2 daily rows with the same totals", rows)
	}
}

// moveOnce: a Moved delta takes its fields from the row of the
// same hour, model and payer without a supplier and adds them to the
// supplier's, both at once and at most once per Once mark, in every store.
func moveOnce(t *testing.T, open func(t *testing.T) books.Store) {
	ctx := context.Background()
	hour := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	s := open(t)
	settled := map[string]int64{books.FSettled: 1000, books.FSettledN: 1}
	booked := books.Delta{At: hour.Add(5 * time.Minute), Model: "p", Payer: "0xab", Fields: settled, Once: "confirmed:1"}
	moved := books.Delta{At: hour.Add(5 * time.Minute), Model: "p", Supplier: "s|1", Payer: "0xab", Fields: settled,
		Once: "attributed:1", Moved: true}
	if err := s.Apply(ctx, []books.Delta{booked, moved}); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, []books.Delta{moved, booked}); err != nil { // seen again by a replica
		t.Fatal(err)
	}
	rows, err := s.Rows(ctx, hour, hour.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]int64{}
	for _, r := range rows {
		if r.Model != "p" || r.Payer != "0xab" || r.Day {
			t.Fatalf("unexpected row %+v", r)
		}
		got[r.Supplier] = r.Fields
	}
	if s := got["s|1"]; s[books.FSettled] != 1000 || s[books.FSettledN] != 1 {
		t.Errorf("the supplier's row %v, want the 1000 settled in 1 transfer", s)
	}
	if n := got[""]; n[books.FSettled] != 0 || n[books.FSettledN] != 0 {
		t.Errorf("the row without a supplier %v, want nothing left", n)
	}
}

// fieldsKeptByName: a store keeps every field by the name it was given,
// whatever it holds (the calls per wire, refusals by status and code, the
// time-to-first-token buckets: names with colons), through a roll-up too.
func fieldsKeptByName(t *testing.T, open func(t *testing.T) books.Store) {
	ctx := context.Background()
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s := open(t)
	fields := map[string]int64{books.FCalls: 3, books.WireField("responses"): 1, books.WireField("chat"): 1,
		books.WireField("messages"): 1, books.RefusalField(400, "invalid_request_error"): 2}
	ds := []books.Delta{{At: day.Add(9 * time.Hour), Model: "m", Fields: fields},
		{At: day.Add(10 * time.Hour), Model: "m", Fields: map[string]int64{books.FCalls: 1, books.WireField("chat"): 1}}}
	if err := s.Apply(ctx, ds); err != nil {
		t.Fatal(err)
	}
	sum := func() map[string]int64 {
		rows, err := s.Rows(ctx, day, day.Add(24*time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int64{}
		for _, r := range rows {
			for f, v := range r.Fields {
				out[f] += v
			}
		}
		return out
	}
	want := map[string]int64{books.FCalls: 4, books.WireField("responses"): 1, books.WireField("chat"): 2,
		books.WireField("messages"): 1, books.RefusalField(400, "invalid_request_error"): 2}
	check := func(when string) {
		got := sum()
		for f, v := range want {
			if got[f] != v {
				t.Errorf("%s: field %q = %d, want %d (all: %v)", when, f, got[f], v, got)
			}
		}
	}
	check("hourly")
	if err := s.Rollup(ctx, day.Add(48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	check("rolled up")
}
