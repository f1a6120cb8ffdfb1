package books

import (
	"context"
	"log/slog"
	"math/big"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/farebox/farebox/x402/settle"
)

// The fields of a row. Amounts are atomic USDC units.
const (
	FCalls    = "calls"     // calls to the model (free and paid) that reached it
	FPaid     = "paid"      // calls whose charge settled (or is pending)
	FFree     = "free"      // calls of a free model
	FCharged  = "charged"   // what the paid calls' receipts charged
	FSettled  = "settled"   // transfers mined (confirmed on chain)
	FSettledN = "settled_n" // how many
	FFailed   = "failed"    // transfers that failed for good after the payer was served
	FFailedN  = "failed_n"  // how many
	FRefunded = "refunded"  // unspent deposits returned to payers (booked per payer, no model)
	FCost     = "cost"      // what the upstream cost (a resold model's seller, an API's price)
	// The relayer's gas, in wei, kept in two fields so no row overflows
	// an int64 (9.2 ETH): whole gwei, and the wei below a gwei (which may
	// add up past one); see GasWei.
	FGasGwei   = "gas_gwei"
	FGasWeiRem = "gas_wei_rem"
	prefRefuse = "refused:" // refused:<status>:<code>: calls refused, by status and code
	prefTTFT   = "ttft:"    // ttft:<bucket>: time to first token, counted in TTFTBuckets
	prefWire   = "wire:"    // wire:<name>: calls that reached the model, by the client wire they came on
	FForgiven  = "forgiven" // debts an operator forgave: failed revenue written off, never revenue
)

// TTFTBuckets are the upper bounds of the time-to-first-token buckets (the
// last one is open): quantiles are read from them.
var TTFTBuckets = []time.Duration{25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond,
	250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2500 * time.Millisecond, 5 * time.Second,
	10 * time.Second, 30 * time.Second, time.Minute}

// RefusalField is the field counting refusals of status with code.
func RefusalField(status int, code string) string {
	return prefRefuse + strconv.Itoa(status) + ":" + code
}

// WireField is the field counting the calls that came on wire (responses,
// chat, messages) and reached the model: its calls split by wire.
func WireField(wire string) string { return prefWire + wire }

func ttftField(d time.Duration) string {
	i := 0
	for i < len(TTFTBuckets) && d > TTFTBuckets[i] {
		i++
	}
	return prefTTFT + strconv.Itoa(i)
}

// Config wires the books.
type Config struct {
	Store Store // required
	// Journal is read for what is pending now and what payers owe.
	Journal settle.Journal
	// Retention is how long hourly detail is kept before it is rolled up
	// into daily rows (default 35 days).
	Retention time.Duration
	// FlushEvery bounds how long a recorded delta waits before it is
	// written (default 250 ms): the writes leave the answer's path.
	FlushEvery time.Duration
	// EthPrice, when set, is what one ETH (10^18 wei of the chain's
	// native coin) is worth in atomic USDC units: the relayer's gas is then
	// priced in USDC when the books are read, and enters the margin.
	// Unset, gas is reported in wei only, and as unpriced.
	EthPrice *big.Int
	// ReconcileAfter is how long after New the books count the journal's
	// confirmed purchases a crash may have kept out of them, when Journal
	// is an EntryLister (default 8 FlushEvery: replicas write their own
	// first); and how long after a dead replica's entry was adopted
	// (settle.EventAdopted) they count what that replica confirmed.
	ReconcileAfter time.Duration
	Logger         *slog.Logger
	Now            func() time.Time
}

// Books records deltas in the background and answers the reports.
type Books struct {
	cfg     Config
	mu      sync.Mutex
	queue   []Delta
	wake    chan struct{}
	flushed *sync.Cond
	pending int // deltas taken from the queue and not yet written
	stop    chan struct{}
	done    chan struct{}
	extra   sync.WaitGroup // the reconcile
	// reconciled is closed once the reconcile ended (or was not run).
	reconciled chan struct{}
	// deadOwners are the replicas whose confirmed purchases were counted
	// after one of their entries was adopted; guarded by mu.
	deadOwners map[string]bool
	closed     bool
	closing    sync.Once
}

// maxQueue bounds the deltas waiting for the store; beyond it they are
// dropped (and logged): the books must never hold up a paid call.
const maxQueue = 1 << 16

// New starts the books' writer.
func New(cfg Config) *Books {
	if cfg.Retention <= 0 {
		cfg.Retention = 35 * 24 * time.Hour
	}
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = 250 * time.Millisecond
	}
	if cfg.ReconcileAfter <= 0 {
		cfg.ReconcileAfter = 8 * cfg.FlushEvery
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	b := &Books{cfg: cfg, wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		reconciled: make(chan struct{}), deadOwners: map[string]bool{}}
	b.flushed = sync.NewCond(&b.mu)
	go b.run()
	if l, ok := cfg.Journal.(EntryLister); ok {
		b.extra.Add(1)
		started := cfg.Now()
		go func() { defer b.extra.Done(); defer close(b.reconciled); b.reconcileStart(l, started) }()
	} else {
		close(b.reconciled)
	}
	return b
}

// Record queues d for the store.
func (b *Books) Record(d Delta) {
	if d.At.IsZero() {
		d.At = b.cfg.Now()
	}
	b.mu.Lock()
	if b.closed || len(b.queue) >= maxQueue {
		b.mu.Unlock()
		b.cfg.Logger.Warn("books: a delta was dropped", "model", d.Model, "closed", b.closed)
		return
	}
	b.queue = append(b.queue, d)
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// Flush waits until every delta recorded before it was written (or the
// write failed), so a report reads what this process recorded.
func (b *Books) Flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
	for (len(b.queue) > 0 || b.pending > 0) && !b.closed {
		b.flushed.Wait()
	}
}

// Close writes what is queued and stops the writer.
func (b *Books) Close() {
	b.closing.Do(func() {
		// Under mu: adopted adds no reconcile once Wait below began.
		b.mu.Lock()
		close(b.stop)
		b.mu.Unlock()
	})
	b.extra.Wait()
	<-b.done
}

func (b *Books) run() {
	defer close(b.done)
	tick := time.NewTicker(b.cfg.FlushEvery)
	defer tick.Stop()
	rollup := time.NewTicker(time.Hour)
	defer rollup.Stop()
	b.rollup()
	for {
		select {
		case <-b.stop:
			b.write()
			b.mu.Lock()
			b.closed = true
			b.flushed.Broadcast()
			b.mu.Unlock()
			return
		case <-b.wake:
		case <-tick.C:
		case <-rollup.C:
			b.rollup()
		}
		b.write()
	}
}

func (b *Books) write() {
	b.mu.Lock()
	q := b.queue
	b.queue = nil
	b.pending = len(q)
	b.mu.Unlock()
	if len(q) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		if err := b.cfg.Store.Apply(ctx, q); err != nil {
			b.cfg.Logger.Error("books: writing", "deltas", len(q), "err", err)
		}
		cancel()
	}
	b.mu.Lock()
	b.pending = 0
	b.flushed.Broadcast()
	b.mu.Unlock()
}

func (b *Books) rollup() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := b.cfg.Store.Rollup(ctx, b.cfg.Now().Add(-b.cfg.Retention)); err != nil {
		b.cfg.Logger.Warn("books: rolling up old detail", "err", err)
	}
}

// Event books one step of a purchase (settle.Config.OnEvent): a mined
// transfer is settled revenue, a transfer that failed after its payer was
// served is failed revenue, under the entry's supplier when it names one;
// a finished entry given its supplier later (EventAttributed) moves that
// revenue from the model's row without a supplier to the supplier's. Each
// counts once per purchase, whichever replica or restart sees it. An
// entry adopted from a dead replica (EventAdopted) makes them count, from
// the journal, the purchases that replica confirmed before it died.
func (b *Books) Event(ev settle.Event) {
	en := ev.Entry
	switch {
	case en == nil:
		return
	case ev.Kind == settle.EventAdopted:
		b.adopted(en)
		return
	case ev.Kind == settle.EventReleased && ev.Gas == nil:
		return // released before any transaction: nothing to book
	case ev.Kind != settle.EventConfirmed && ev.Kind != settle.EventFailed && ev.Kind != settle.EventReleased &&
		ev.Kind != settle.EventAttributed:
		return
	}
	amount := en.Amount
	if en.Charge != nil {
		amount = en.Charge
	}
	if amount == nil || !amount.IsInt64() {
		amount = nil // no revenue to book; its gas still is
	}
	if ev.Kind == settle.EventConfirmed {
		for _, d := range b.confirmed(en, ev.Gas) {
			b.Record(d)
		}
		return
	}
	d := Delta{At: en.Updated, Model: en.Model, Supplier: en.Supplier, Payer: strings.ToLower(en.Payer.Hex()),
		Fields: gasFields(ev.Gas)}
	switch ev.Kind {
	case settle.EventFailed:
		d.Once = "failed:" + en.Name()
		if amount != nil {
			d.Fields[FFailed], d.Fields[FFailedN] = amount.Int64(), 1
		}
	case settle.EventReleased:
		// Released after a transaction that did not carry the transfer (a
		// revert, a refusal): no revenue, but the gas was spent. The same
		// authorization may be released again after another transaction.
		d.Once = "released:" + en.Name() + ":" + en.Tx.Hex()
	case settle.EventAttributed:
		if en.Supplier == "" || amount == nil {
			return
		}
		switch en.State {
		case settle.Confirmed:
			// Confirmed before its supplier was known (settle before the
			// model): the confirmation booked the paid call under no
			// supplier, and the gateway's row, carrying the same Once mark,
			// is skipped; the call moves with its revenue.
			d.Fields = map[string]int64{FSettled: amount.Int64(), FSettledN: 1, FCalls: 1, FPaid: 1, FCharged: amount.Int64()}
		case settle.Failed:
			d.Fields = map[string]int64{FFailed: amount.Int64(), FFailedN: 1}
		default:
			return
		}
		d.Once, d.Moved = "attributed:"+en.Name(), true
	}
	if len(d.Fields) == 0 {
		return
	}
	if d.At.IsZero() {
		d.At = b.cfg.Now()
	}
	b.Record(d)
}

// confirmed is what a mined transfer books: its revenue settled (and the
// relayer's gas, when known) and, once per purchase with the gateway's row
// of the call, the paid call itself, so a call whose row a crash lost is
// still counted once its transfer is mined.
func (b *Books) confirmed(en *settle.Entry, gas *big.Int) []Delta {
	amount := en.Transfers()
	if amount == nil || !amount.IsInt64() {
		amount = nil
	}
	payer := strings.ToLower(en.Payer.Hex())
	at := en.Updated
	if at.IsZero() {
		at = b.cfg.Now()
	}
	d := Delta{At: at, Model: en.Model, Supplier: en.Supplier, Payer: payer, Fields: gasFields(gas),
		Once: "confirmed:" + en.Name()}
	var out []Delta
	if amount != nil {
		d.Fields[FSettled], d.Fields[FSettledN] = amount.Int64(), 1
		out = append(out, paidCall(en, payer, amount.Int64()))
	}
	if len(d.Fields) > 0 {
		out = append(out, d)
	}
	return out
}

// Forgive books debts an operator forgave as written off, under the model
// (and supplier) of each failed purchase and the payer: no revenue, so the
// margin, which counts only settled transfers, is unchanged. Each item
// counts once, whichever replica forgives it.
func (b *Books) Forgive(payer string, items []settle.DebtItem) {
	for _, d := range items {
		if d.Amount == nil || !d.Amount.IsInt64() || d.Amount.Sign() <= 0 {
			continue
		}
		b.Record(Delta{Model: d.Model, Supplier: d.Supplier, Payer: strings.ToLower(payer), Once: "forgiven:" + d.Entry,
			Fields: map[string]int64{FForgiven: d.Amount.Int64()}})
	}
}

// Call is one finished call as the gateway saw it.
type Call struct {
	Model    string
	Supplier string
	Payer    string // 0x address of the paying wallet, "" when none
	Free     bool   // the model is free
	Paid     bool   // its charge settled (or is pending)
	Charged  int64  // what its receipt charged (atomic units)
	Cost     int64  // what its upstream cost, when known
	Status   int    // the HTTP status answered
	Code     string // the error code of a refusal ("" on success)
	Reached  bool   // the model was called
	Wire     string // the client wire it came on ("" when unknown)
	TTFT     time.Duration
	// Entry names the settlement journal's entry of a paid call ("" when
	// it has none): its confirmation counts the call too, once, should
	// this row be lost in a crash.
	Entry string
}

// RecordCall books one call: counted when it reached the model, a refusal
// when its status says so, its time to first token. A paid call with a
// journal entry is counted (calls, paid, charged) under the entry's Once
// mark, which its transfer's confirmation also books (Event): whichever
// is written first counts it; the rest of its row is booked as it comes.
func (b *Books) RecordCall(c Call) {
	f := map[string]int64{}
	counted := f
	if c.Paid && c.Entry != "" {
		counted = map[string]int64{}
	}
	if c.Reached {
		counted[FCalls] = 1
		if c.Free {
			f[FFree] = 1
		}
		if c.Wire != "" {
			f[WireField(c.Wire)] = 1
		}
	}
	if c.Paid {
		counted[FPaid] = 1
		counted[FCharged] = c.Charged
	}
	if c.Cost != 0 {
		f[FCost] = c.Cost
	}
	if c.Status >= 400 {
		f[RefusalField(c.Status, c.Code)] = 1
	}
	if c.TTFT > 0 {
		f[ttftField(c.TTFT)] = 1
	}
	payer := strings.ToLower(c.Payer)
	if len(counted) > 0 && c.Paid && c.Entry != "" {
		b.Record(Delta{Model: c.Model, Supplier: c.Supplier, Payer: payer, Fields: counted, Once: callOnce(c.Entry)})
	}
	if len(f) > 0 {
		b.Record(Delta{Model: c.Model, Supplier: c.Supplier, Payer: payer, Fields: f})
	}
}

// gasFields are the fields booking wei of gas (empty for none).
func gasFields(wei *big.Int) map[string]int64 {
	f := map[string]int64{}
	if wei == nil || wei.Sign() <= 0 {
		return f
	}
	q, r := new(big.Int).QuoRem(wei, gwei, new(big.Int))
	if !q.IsInt64() {
		return f // more than 9.2 billion ETH: not a fee
	}
	if q.Sign() > 0 {
		f[FGasGwei] = q.Int64()
	}
	if r.Sign() > 0 {
		f[FGasWeiRem] = r.Int64()
	}
	return f
}

var gwei = big.NewInt(1_000_000_000)

// GasWei is the gas (wei) a row's or a sum's fields hold.
func GasWei(fields map[string]int64) *big.Int {
	w := new(big.Int).Mul(big.NewInt(fields[FGasGwei]), gwei)
	return w.Add(w, big.NewInt(fields[FGasWeiRem]))
}

// Gas is gas the relayer spent on a transaction no purchase accounts for
// (a channel claim or deposit, a refund, a metered settlement), booked
// under its model when one is known ("" otherwise: it still counts in
// the totals) and its payer when one is known. once, when set, keeps it
// from counting twice (the transaction's hash).
type Gas struct {
	Model string
	Payer string
	Wei   *big.Int
	Once  string
}

// RecordGas books g.
func (b *Books) RecordGas(g Gas) {
	f := gasFields(g.Wei)
	if len(f) == 0 {
		return
	}
	d := Delta{Model: g.Model, Payer: strings.ToLower(g.Payer), Fields: f}
	if g.Once != "" {
		d.Once = "gas:" + g.Once
	}
	b.Record(d)
}
