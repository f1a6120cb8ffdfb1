package settle

import (
	"context"
	"errors"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
)

// flight is an entry in motion: every state change goes through move, a
// journal compare-and-swap from the state last seen, so a Resume on another
// replica and this process never both win a transition.
type flight struct {
	e        *Engine
	mu       sync.Mutex
	entry    *Entry
	key      string // entry's KeyName, "" until name is first called
	pay      *x402.Payment
	req      *x402.Requirement
	finished bool
	resumed  bool          // taken over from a previous run: its recorded transaction may have been replaced
	gas      *big.Int      // the relayer's fees for its transactions so far (wei), guarded by mu
	gasOf    []common.Hash // the transactions counted in gas
}

// addGas counts fee (which f then owns), what transaction tx cost this
// transfer, once per tx.
func (f *flight) addGas(tx common.Hash, fee *big.Int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, h := range f.gasOf {
		if h == tx {
			return
		}
	}
	f.gasOf = append(f.gasOf, tx)
	if f.gas == nil {
		f.gas = fee
		return
	}
	f.gas.Add(f.gas, fee)
}

// gasSpent is the fees counted (nil when none), handed to the event that
// ends the purchase: nothing adds to them after it.
func (f *flight) gasSpent() *big.Int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.gas
}

func (f *flight) snapshot() *Entry {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.entry.Clone()
}

// name is the entry's KeyName (the key never changes in flight).
func (f *flight) name() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.key == "" {
		f.key = f.entry.Name()
	}
	return f.key
}

// tx is the transaction the entry last recorded.
func (f *flight) tx() common.Hash {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.entry.Tx
}

// state is the entry's state as last recorded.
func (f *flight) state() State {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.entry.State
}

// move records the entry in state `to` after edit, if the journal still
// holds the state this flight last saw.
func (f *flight) move(ctx context.Context, to State, edit func(*Entry)) error {
	return f.moveWith(ctx, f.e.cfg.Journal.Update, to, edit)
}

// moveSoon is move for a step past the write-ahead one: with a SoonJournal
// it does not wait for the disk.
func (f *flight) moveSoon(ctx context.Context, to State, edit func(*Entry)) error {
	if sj, ok := f.e.cfg.Journal.(SoonJournal); ok {
		return f.moveWith(ctx, sj.UpdateSoon, to, edit)
	}
	return f.move(ctx, to, edit)
}

// touch records that f is still followed (Updated is now, the state
// unchanged), so replicas sharing the journal do not adopt it.
func (f *flight) touch(ctx context.Context) error {
	update := f.e.cfg.Journal.Update
	if sj, ok := f.e.cfg.Journal.(SoonJournal); ok {
		update = sj.UpdateSoon
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.finished {
		return ErrStateChanged
	}
	next := f.entry.next()
	next.Updated = f.e.cfg.Now()
	if err := update(ctx, next, f.entry.State); err != nil {
		return err
	}
	f.entry = next
	return nil
}

func (f *flight) moveWith(ctx context.Context, update func(context.Context, *Entry, State) error, to State, edit func(*Entry)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.finished {
		return ErrStateChanged
	}
	next := f.entry.next()
	next.State, next.Updated = to, f.e.cfg.Now()
	if edit != nil {
		edit(next)
	}
	if err := update(ctx, next, f.entry.State); err != nil {
		return err
	}
	f.entry = next
	f.finished = to.Finished()
	return nil
}

// signed records that the transfer now rides in transaction tx: Reserved
// becomes Settling; a later state keeps its state (a fee bump or a
// resubmission after the receipt was given) and its receipt names tx.
func (f *flight) signed(ctx context.Context, tx common.Hash) error {
	f.mu.Lock()
	to := f.entry.State
	f.mu.Unlock()
	if to == Reserved {
		to = Settling
	}
	return f.move(ctx, to, func(n *Entry) {
		n.Tx = tx
		if n.Receipt != nil {
			n.Receipt.Transaction = tx.Hex()
		}
	})
}

// drop deletes the entry if it is still in the state last seen.
func (f *flight) drop(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.finished {
		return ErrStateChanged
	}
	if err := f.e.cfg.Journal.Delete(ctx, f.entry.Key(), f.entry.State); err != nil {
		return err
	}
	f.finished = true
	return nil
}

// beat keeps f's entry fresh in a journal shared by replicas while this
// one follows it (every StaleAfter/3), so Adopt elsewhere takes only the
// purchases of a replica that stopped, not those of a live one whose
// transfer waits for a block; it returns the function that stops it.
func (e *Engine) beat(f *flight) func() {
	if e.cfg.Instance == "" {
		return func() {}
	}
	ctx, cancel := context.WithCancel(e.life)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(max(e.cfg.StaleAfter/3, time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			err := f.touch(ctx)
			switch {
			case err == nil:
			case errors.Is(err, ErrStateChanged) || errors.Is(err, ErrNotFound):
				return // finished, here or by another replica
			case ctx.Err() == nil:
				e.cfg.Logger.Warn("settle: refreshing a followed entry", "entry", f.name(), "err", err)
			}
		}
	}()
	return func() { cancel(); <-done }
}
