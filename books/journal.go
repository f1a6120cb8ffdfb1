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

// reconcile books, from the journal, what a crash may have kept out of
// the books: every purchase confirmed before this process started (its
// settled revenue, and its call) that is young enough for its Once marks
// to be kept (Retention, less an hour of slack). The Once marks make it a
// no-op for what was written. It waits first for replicas that confirmed
// a purchase just before this start to write it themselves, with the
// transfer's gas, which the journal does not keep. Purchases confirmed
// after the start reach the books through Event.
func (b *Books) reconcile(l EntryLister, started time.Time) {
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
	since := started.Add(-b.cfg.Retention + time.Hour)
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
		if en.State != settle.Confirmed || en.Created.Before(since) || !en.Updated.Before(started) {
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
		b.cfg.Logger.Debug("books: the journal's confirmed purchases counted", "purchases", booked)
	}
}
