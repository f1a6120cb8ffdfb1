// Package books keeps farebox's accounts: what each model earned and cost,
// per supplier, per payer and per hour, aggregated from the settlement
// engine's journal events and the gateway's calls into counters kept in the
// journal's own store (bbolt or Redis), so a restart or another replica
// tells the same story. Hourly detail older than the retention is rolled
// up into daily rows, so the books stay small.
package books

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Key names one row of the books: a period and the dimensions counted.
type Key struct {
	Start    time.Time // the period's start (UTC)
	Day      bool      // a daily roll-up; else an hour
	Model    string
	Supplier string // the upstream that answered, "" when the model has one
	Payer    string // lowercase 0x address, "" for free or unpaid calls
}

// End is when the row's period ends.
func (k Key) End() time.Time {
	if k.Day {
		return k.Start.Add(24 * time.Hour)
	}
	return k.Start.Add(time.Hour)
}

// String encodes k as the stores name it: each part query-escaped, so
// no model name can forge another row's key.
func (k Key) String() string {
	res := "h"
	if k.Day {
		res = "d"
	}
	return res + "|" + strconv.FormatInt(k.Start.Unix(), 10) + "|" + url.QueryEscape(k.Model) + "|" +
		url.QueryEscape(k.Supplier) + "|" + url.QueryEscape(k.Payer)
}

// ParseKey reads a key written by Key.String.
func ParseKey(s string) (Key, error) {
	parts := strings.Split(s, "|")
	if len(parts) != 5 || (parts[0] != "h" && parts[0] != "d") {
		return Key{}, fmt.Errorf("books: malformed row key %q", s)
	}
	sec, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return Key{}, fmt.Errorf("books: malformed row key %q", s)
	}
	k := Key{Start: time.Unix(sec, 0).UTC(), Day: parts[0] == "d"}
	for i, dst := range []*string{&k.Model, &k.Supplier, &k.Payer} {
		if *dst, err = url.QueryUnescape(parts[2+i]); err != nil {
			return Key{}, fmt.Errorf("books: malformed row key %q", s)
		}
	}
	return k, nil
}

// Row is one row of the books: counters by field name (see the F*
// constants), amounts in atomic USDC units.
type Row struct {
	Key
	Fields map[string]int64
}

// Delta adds Fields to the hourly row of At and the given dimensions.
type Delta struct {
	At       time.Time
	Model    string
	Supplier string
	Payer    string
	Fields   map[string]int64
	// Once, when set, makes the delta count at most once per store (a
	// purchase's confirmation seen again after a restart or by a replica).
	Once string
	// Moved: the Fields are moved, not added: taken from the row of the
	// same hour, model and payer without a supplier, where they were booked
	// before the supplier was known, and added to this one, both at once.
	Moved bool
}

// Row is the hourly row the delta adds to; every store keys it the same.
func (d *Delta) Row() Key {
	return Key{Start: d.At.UTC().Truncate(time.Hour), Model: d.Model, Supplier: d.Supplier, Payer: d.Payer}
}

// Source is the row a Moved delta takes its fields from.
func (d *Delta) Source() Key {
	k := d.Row()
	k.Supplier = ""
	return k
}

// Negated is fields with every value's sign turned: what a Moved delta
// takes from its Source row.
func Negated(fields map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(fields))
	for f, v := range fields {
		out[f] = -v
	}
	return out
}

// Store keeps the books' rows. Implementations: MemoryStore here, and one
// per storage technology under store/ (the journal's bbolt file, Redis
// shared by replicas).
type Store interface {
	// Apply adds each delta to its hourly row, skipping a delta whose Once
	// was applied before.
	Apply(ctx context.Context, ds []Delta) error
	// Rows returns the rows whose period overlaps [from, to).
	Rows(ctx context.Context, from, to time.Time) ([]Row, error)
	// Rollup merges the hourly rows that start before cutoff into daily
	// rows, and forgets Once marks older than cutoff.
	Rollup(ctx context.Context, cutoff time.Time) error
}

// MemoryStore is the in-process Store, lost on exit (the gateway uses it
// when the journal is in memory too).
type MemoryStore struct {
	mu   sync.Mutex
	rows map[Key]map[string]int64
	once map[string]time.Time
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{rows: map[Key]map[string]int64{}, once: map[string]time.Time{}}
}

// Apply adds the deltas.
func (m *MemoryStore) Apply(_ context.Context, ds []Delta) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range ds {
		d := &ds[i]
		if d.Once != "" {
			if _, seen := m.once[d.Once]; seen {
				continue
			}
			m.once[d.Once] = d.At
		}
		if d.Moved {
			addInto(m.rows, d.Source(), Negated(d.Fields))
		}
		addInto(m.rows, d.Row(), d.Fields)
	}
	return nil
}

func addInto(rows map[Key]map[string]int64, k Key, fields map[string]int64) {
	r := rows[k]
	if r == nil {
		r = make(map[string]int64, len(fields))
		rows[k] = r
	}
	for f, v := range fields {
		r[f] += v
	}
}

// Rows returns the rows overlapping [from, to).
func (m *MemoryStore) Rows(_ context.Context, from, to time.Time) ([]Row, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Row
	for k, f := range m.rows {
		if Overlaps(k, from, to) {
			out = append(out, Row{Key: k, Fields: maps.Clone(f)})
		}
	}
	SortRows(out)
	return out, nil
}

// Rollup merges old hourly rows into daily ones.
func (m *MemoryStore) Rollup(_ context.Context, cutoff time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, f := range m.rows {
		if !k.Day && k.Start.Before(cutoff) {
			delete(m.rows, k)
			addInto(m.rows, DayOf(k), f)
		}
	}
	for id, at := range m.once {
		if at.Before(cutoff) {
			delete(m.once, id)
		}
	}
	return nil
}

// DayOf is the daily row an hourly row rolls into.
func DayOf(k Key) Key {
	d := k
	d.Day = true
	d.Start = time.Date(k.Start.Year(), k.Start.Month(), k.Start.Day(), 0, 0, 0, 0, time.UTC)
	return d
}

// Overlaps says whether k's period overlaps [from, to), as Store.Rows
// selects rows.
func Overlaps(k Key, from, to time.Time) bool {
	return k.End().After(from) && k.Start.Before(to)
}

// SortRows orders rows by period, then dimensions, so reports and exports
// are stable.
func SortRows(rows []Row) {
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i].Key, rows[j].Key
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		return a.String() < b.String()
	})
}
