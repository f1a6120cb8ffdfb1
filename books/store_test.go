package books

import (
	"context"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/groupcommit"
	"github.com/farebox/farebox/internal/testkit/redistest"
	"github.com/redis/go-redis/v9"
	bolt "go.etcd.io/bbolt"
	"path/filepath"
)

// stores are the three stores, each fresh.
func stores(t *testing.T) map[string]func(t *testing.T) Store {
	return map[string]func(t *testing.T) Store{
		"memory": func(t *testing.T) Store { return NewMemoryStore() },
		"bolt": func(t *testing.T) Store {
			db, err := bolt.Open(filepath.Join(t.TempDir(), "books.db"), 0o600, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			s, err := NewBoltStore(groupcommit.New(db))
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		"redis": func(t *testing.T) Store {
			if testing.Short() {
				t.Skip("redis-server: not in -short")
			}
			rdb := redis.NewClient(&redis.Options{Addr: redistest.Start(t)})
			t.Cleanup(func() { rdb.Close() })
			return NewRedisStore(rdb, "test:books:")
		},
	}
}

// TestStoresCountOnceAndRollUp: every store adds deltas into hourly rows,
// counts a delta with a Once mark at most once (a confirmation seen again
// after a restart), and rolls old hours into a day without losing a unit.
func TestStoresCountOnceAndRollUp(t *testing.T) {
	ctx := context.Background()
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			ds := []Delta{
				{At: day.Add(10*time.Hour + time.Minute), Model: "m|x", Payer: "0xab", Fields: map[string]int64{FSettled: 1000, FSettledN: 1}, Once: "c:1"},
				{At: day.Add(10*time.Hour + 2*time.Minute), Model: "m|x", Payer: "0xab", Fields: map[string]int64{FSettled: 1000, FSettledN: 1}, Once: "c:1"},
				{At: day.Add(11 * time.Hour), Model: "m|x", Payer: "0xab", Fields: map[string]int64{FSettled: 2000, FSettledN: 1}, Once: "c:2"},
				{At: day.Add(11 * time.Hour), Model: "free", Fields: map[string]int64{FCalls: 1, FFree: 1}},
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
			total := func(rows []Row, model, field string) (n int64) {
				for _, r := range rows {
					if r.Model == model {
						n += r.Fields[field]
					}
				}
				return n
			}
			if len(rows) != 3 || total(rows, "m|x", FSettled) != 3000 || total(rows, "m|x", FSettledN) != 2 || total(rows, "free", FCalls) != 1 {
				t.Fatalf("rows = %+v, want 3 rows, 3000 settled in 2 transfers for m|x", rows)
			}
			if rows, _ := s.Rows(ctx, day.Add(11*time.Hour), day.Add(12*time.Hour)); total(rows, "m|x", FSettled) != 2000 {
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
			if len(rows) != 2 || total(rows, "m|x", FSettled) != 3000 || total(rows, "free", FFree) != 1 {
				t.Errorf("after the roll-up: %+v, want 2 daily rows with the same totals", rows)
			}
		})
	}
}

// TestStoresMoveOnce: a Moved delta takes its fields from the row of the
// same hour, model and payer without a supplier and adds them to the
// supplier's, both at once and at most once per Once mark, in every store.
func TestStoresMoveOnce(t *testing.T) {
	ctx := context.Background()
	hour := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			settled := map[string]int64{FSettled: 1000, FSettledN: 1}
			booked := Delta{At: hour.Add(5 * time.Minute), Model: "p", Payer: "0xab", Fields: settled, Once: "confirmed:1"}
			moved := Delta{At: hour.Add(5 * time.Minute), Model: "p", Supplier: "s|1", Payer: "0xab", Fields: settled,
				Once: "attributed:1", Moved: true}
			if err := s.Apply(ctx, []Delta{booked, moved}); err != nil {
				t.Fatal(err)
			}
			if err := s.Apply(ctx, []Delta{moved, booked}); err != nil { // seen again by a replica
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
			if s := got["s|1"]; s[FSettled] != 1000 || s[FSettledN] != 1 {
				t.Errorf("the supplier's row %v, want the 1000 settled in 1 transfer", s)
			}
			if n := got[""]; n[FSettled] != 0 || n[FSettledN] != 0 {
				t.Errorf("the row without a supplier %v, want nothing left", n)
			}
		})
	}
}
