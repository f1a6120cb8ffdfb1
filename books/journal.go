package books

import (
	"context"
	"errors"
	"time"

	"github.com/farebox/farebox/x402/settle"
)

// EntryLister is a journal that can list its entries (store/bolt,
// store/redis, settle.MemoryJournal). The books read it on start: a
// process killed between a purchase's journal step and the books' next
// write (FlushEvery) lost that delta, and the journal still holds the
// fact.
type EntryLister interface {
	// Entries calls fn with every entry (a copy), in no order, until fn
	// returns an error, which Entries returns.
	Entries(ctx context.Context, fn func(*settle.Entry) error) error
}

// errEnough stops a listing early: the books were closed.
var errEnough = errors.New("books: listing stopped")

// callOnce is the Once mark of a paid call: the gateway's row of the call
// and the journal's confirmation of its purchase carry the same one, so a
// call counts once whichever is written first, by whichever replica.
func callOnce(entry string) string { return "call:" + entry }

// paidCall is the delta counting en's purchase as one paid call of its
// model, charged what the transfer moved.
func paidCall(en *settle.Entry, payer string, amount int64) Delta {
	at := en.Created
	if at.IsZero() {
		at = en.Updated
	}
	return Delta{At: at, Model: en.Model, Supplier: en.Supplier, Payer: payer, Once: callOnce(en.Name()),
		Fields: map[string]int64{FCalls: 1, FPaid: 1, FCharged: amount}}
}

// reconcileStart books, from the journal, what a crash may have kept out
// of the books: every purchase confirmed before this process started (its
// settled revenue, and its call) that is young enough for its Once marks
// to be kept (Retention, less an hour of slack). The Once marks make it a
// no-op for what was written. Purchases confirmed after the start reach
// the books through Event.
func (b *Books) reconcileStart(l EntryLister, started time.Time) {
	since := started.Add(-b.cfg.Retention + time.Hour)
	b.reconcile(l, "books: the journal's confirmed purchases counted", func(en *settle.Entry) bool {
		return !en.Created.Before(since) && en.Updated.Before(started)
	})
}

// reconcileOwner is reconcileStart for the purchases a replica presumed
// dead (its entries adopted) confirmed before adopted: the books' writes
// of its last events died with it, and it will not start again to count
// them. Its purchases confirmed after, by their adopters, reach the books
// through those adopters' events.
func (b *Books) reconcileOwner(l EntryLister, owner string, adopted time.Time) {
	since := adopted.Add(-b.cfg.Retention + time.Hour)
	b.reconcile(l, "books: the confirmed purchases of an adopted replica counted", func(en *settle.Entry) bool {
		return en.Owner == owner && !en.Created.Before(since) && en.Updated.Before(adopted)
	})
}

// adopted starts, once per replica, reconcileOwner for the replica whose
// entry en another replica adopted (settle.EventAdopted).
func (b *Books) adopted(en *settle.Entry) {
	l, ok := b.cfg.Journal.(EntryLister)
	if !ok || en.Owner == "" {
		return
	}
	at := b.cfg.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case <-b.stop:
		return
	default:
	}
	if b.deadOwners[en.Owner] {
		return
	}
	if len(b.deadOwners) >= maxDeadOwners {
		clear(b.deadOwners) // a farm of short-lived replicas: a second count changes nothing
	}
	b.deadOwners[en.Owner] = true
	b.extra.Add(1)
	go func() { defer b.extra.Done(); b.reconcileOwner(l, en.Owner, at) }()
}

// maxDeadOwners bounds the replicas remembered as counted by adopted.
const maxDeadOwners = 4096

// reconcile books every confirmed purchase of the journal that keep
// accepts. It waits first for replicas that confirmed a purchase just
// before to write it themselves, with the transfer's gas, which the
// journal does not keep.
func (b *Books) reconcile(l EntryLister, done string, keep func(*settle.Entry) bool) {
	wait := time.NewTimer(b.cfg.ReconcileAfter)
	defer wait.Stop()
	select {
	case <-b.stop:
		return
	case <-wait.C:
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-b.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	var batch []Delta
	booked := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := b.cfg.Store.Apply(ctx, batch)
		batch = batch[:0]
		return err
	}
	err := l.Entries(ctx, func(en *settle.Entry) error {
		if ctx.Err() != nil {
			return errEnough
		}
		if en.State != settle.Confirmed || !keep(en) {
			return nil
		}
		batch = append(batch, b.confirmed(en, nil)...)
		booked++
		if len(batch) >= 512 {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	switch {
	case errors.Is(err, errEnough) || ctx.Err() != nil:
	case err != nil:
		b.cfg.Logger.Error("books: counting the journal's confirmed purchases", "err", err)
	default:
		b.cfg.Logger.Debug(done, "purchases", booked)
	}
}
