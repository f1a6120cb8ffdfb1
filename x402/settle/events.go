package settle

import "math/big"

// EventKind names a step in a purchase's life, for metrics and logs.
type EventKind int

// The events an Engine reports (Config.OnEvent) and counts (Engine.Count).
const (
	// EventReserved: Begin claimed a new authorization.
	EventReserved EventKind = iota
	// EventReplayed: Begin found the same purchase already paid.
	EventReplayed
	// EventRefused: Begin refused (Event.Err says why).
	EventRefused
	// EventReleased: a purchase ended without moving money.
	EventReleased
	// EventSettling: the transfer's transaction was signed and journaled.
	EventSettling
	// EventBroadcast: the node accepted the transaction.
	EventBroadcast
	// EventResubmitted: an unmined, unused authorization was sent again.
	EventResubmitted
	// EventConfirmed: the transfer is mined and succeeded.
	EventConfirmed
	// EventFailed: a transfer failed for good (Event.Err says why); when it
	// had been answered with a receipt, the payer is now in debt.
	EventFailed
	// EventUnresolved: the engine cannot tell what became of a transfer (a
	// remote facilitator gave no answer); the entry stays for an operator.
	EventUnresolved
	// EventAttributed: a finished entry was given the supplier that served
	// it (Purchase.Served after the transfer was mined or failed): the
	// books move its amount, booked without a supplier, to that supplier.
	EventAttributed
	// EventAdopted: Adopt took over an entry of another instance, idle for
	// StaleAfter (Entry.Owner names that replica, presumed dead): what it
	// confirmed before dying may be missing from the books, whose writes
	// died with it.
	EventAdopted
	numEvents
)

var eventNames = [numEvents]string{"reserved", "replayed", "refused", "released", "settling",
	"broadcast", "resubmitted", "confirmed", "failed", "unresolved", "attributed", "adopted"}

// String is the event's metric label.
func (k EventKind) String() string {
	if k < 0 || k >= numEvents {
		return "unknown"
	}
	return eventNames[k]
}

// Event is one step of one purchase.
type Event struct {
	Kind  EventKind
	Entry *Entry // a copy of the entry after the step; nil when there is none
	Err   error  // the refusal or failure, for EventRefused and EventFailed
	// Gas is the relayer's fee (wei) for the transactions that carried or
	// tried to carry this transfer (its share of each batch, reverted ones
	// included), on the EventConfirmed, EventFailed or EventReleased that
	// ends a purchase; nil when the settler does not tell (see FeeAwaiter).
	Gas *big.Int
}

// Count is how many events of kind the engine has seen since it started.
func (e *Engine) Count(kind EventKind) int64 {
	if kind < 0 || kind >= numEvents {
		return 0
	}
	return e.counts[kind].Load()
}

func (e *Engine) emit(kind EventKind, en *Entry, err error) {
	if en != nil && e.cfg.OnEvent != nil {
		en = en.Clone()
	}
	e.emitOwn(kind, en, err)
}

// emitOwn is emit with an entry nobody else holds (a fresh snapshot): it
// is handed over without another copy.
func (e *Engine) emitOwn(kind EventKind, en *Entry, err error) {
	e.counts[kind].Add(1)
	if e.cfg.OnEvent != nil {
		e.cfg.OnEvent(Event{Kind: kind, Entry: en, Err: err})
	}
}

// emitFlight is emit with f's entry as it is now, copied only when
// someone listens.
func (e *Engine) emitFlight(kind EventKind, f *flight, err error) {
	var en *Entry
	if e.cfg.OnEvent != nil {
		en = f.snapshot()
	}
	e.emitOwn(kind, en, err)
}

// emitEnd is emitOwn for the step that ends f's purchase, with the gas its
// transactions cost.
func (e *Engine) emitEnd(kind EventKind, f *flight, en *Entry, err error) {
	e.counts[kind].Add(1)
	if e.cfg.OnEvent != nil {
		e.cfg.OnEvent(Event{Kind: kind, Entry: en, Err: err, Gas: f.gasSpent()})
	}
}
