package settle

import (
	"context"
	"errors"

	"github.com/farebox/farebox/x402"
)

// A pooled model's supplier is known only once the model ran, long after
// the purchase's entry was created, and its transfer may be mined before,
// while or after the model runs (settle before, exact alongside the model,
// upto after the answer). Served names the supplier in the entry whichever
// came first, so the books count the revenue under it.

var _ x402.ServedHold = Hold{}

// Served tells the purchase which supplier served its answer (see
// Purchase.Served).
func (h Hold) Served(ctx context.Context, supplier string) error { return h.pu.Served(ctx, supplier) }

// Served records supplier as the upstream that served this purchase:
//   - not settled yet: the entry's first move carries it (the confirmation
//     too);
//   - in flight: it is written now, keeping the state, as a compare-and-swap
//     under the flight's lock, so the confirmation tracker's next move
//     carries it and no state transition is lost to this write;
//   - finished already (mined before the model answered): the final entry
//     gets it, and EventAttributed tells the books to move the amount they
//     booked without a supplier to this one.
//
// A replay (its first request named the supplier), an empty supplier, a
// purchase released or an entry that names a supplier already change
// nothing. Like the rest of a Purchase, it is for the request's goroutine.
func (p *Purchase) Served(ctx context.Context, supplier string) error {
	if supplier == "" || p.replay {
		return nil
	}
	en := p.entry.Clone()
	en.Supplier = supplier
	p.entry = en // a flight holds the entry it started from, never this one
	if p.f == nil {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	done, err := p.f.label(ctx, supplier)
	switch {
	case done:
		return nil
	case err != nil && !errors.Is(err, ErrStateChanged):
		return err
	}
	return p.engine.attribute(ctx, en.Key(), supplier)
}

// label writes supplier into the flight's entry in its current state;
// false when the flight is finished (its final entry is the journal's) or
// another engine moved the entry (ErrStateChanged).
func (f *flight) label(ctx context.Context, supplier string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.finished {
		return false, nil
	}
	if f.entry.Supplier != "" {
		return true, nil
	}
	next := f.entry.next()
	next.Supplier = supplier
	switch err := f.e.updateSoon(ctx, next, f.entry.State); {
	case errors.Is(err, ErrNotFound):
		return true, nil // released: nothing to attribute
	case err != nil:
		return false, err
	}
	f.entry = next
	return true, nil
}

// maxAttributeTries bounds the compare-and-swap retries of attribute
// against an entry that other engines keep moving.
const maxAttributeTries = 5

// attribute names supplier in the journal's entry of k, whatever engine
// moves it, unless it names one already; on a finished entry it reports
// EventAttributed with the final entry (its Updated unchanged: the books'
// row of the confirmation is the one the amount moves from).
func (e *Engine) attribute(ctx context.Context, k x402.Key, supplier string) error {
	for range maxAttributeTries {
		cur, err := e.cfg.Journal.Get(ctx, k)
		switch {
		case errors.Is(err, ErrNotFound):
			return nil // released: nothing was paid
		case err != nil:
			return err
		case cur.Supplier != "" || cur.State == Reserved:
			return nil // named already, or another purchase of the same authorization
		}
		next := cur.Clone()
		next.Supplier = supplier
		err = e.updateSoon(ctx, next, cur.State)
		switch {
		case errors.Is(err, ErrStateChanged):
			continue
		case errors.Is(err, ErrNotFound):
			return nil
		case err != nil:
			return err
		}
		if next.State.Finished() {
			e.emitOwn(EventAttributed, next, nil)
		}
		return nil
	}
	return ErrStateChanged
}

// updateSoon is the journal's UpdateSoon when it has one, else Update: a
// supplier's name is no step of the write-ahead, and a crash that loses it
// loses only the books' breakdown.
func (e *Engine) updateSoon(ctx context.Context, en *Entry, from State) error {
	if sj, ok := e.cfg.Journal.(SoonJournal); ok {
		return sj.UpdateSoon(ctx, en, from)
	}
	return e.cfg.Journal.Update(ctx, en, from)
}
