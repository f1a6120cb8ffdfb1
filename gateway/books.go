package gateway

import (
	"context"
	"math/big"
	"strings"
	"time"

	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/pool"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
	"github.com/labstack/echo/v4"
)

// Context keys of what the books read from a finished request.
const (
	codeKey    = "farebox.code"    // the error code answered, if any
	reachedKey = "farebox.reached" // *firstToken: the model was called
	usageKey   = "farebox.usage"   // responses.Usage: what the model's answer used
)

// booksPrefix namespaces the books' keys in Redis.
const booksPrefix = "farebox:books:"

// onEvent is the settlement engine's listener: the metrics' counts, and
// the books, which turn mined and failed transfers into revenue.
func (p *payments) onEvent(ev settle.Event) {
	p.counts.event(ev)
	if p.books != nil {
		p.books.Event(ev)
	}
}

// startBooks starts the books on store beside journal; they are closed
// right after the engine (whose last events they take) and before the
// journal (whose store they share).
func (p *payments) startBooks(store books.Store, journal settle.Journal) {
	p.books = books.New(books.Config{Store: store, Journal: journal, Logger: p.log, EthPrice: p.ethPrice})
	b := p.books
	p.closers = append([]func(){func() { b.Close() }}, p.closers...)
	if p.chain != nil {
		// The relayer's transactions that are no batch of transfers (channel
		// deposits, claims and refunds, metered settlements): booked under
		// the model their context names, else under none.
		p.chain.OnCallGas(func(g settle.CallGas) {
			b.RecordGas(books.Gas{Model: g.Label, Wei: g.Wei, Once: g.Tx.Hex()})
		})
	}
}

// gasFor labels ctx with rt's model for the relayer's calls made under it
// (a deposit, a metered settlement), so their gas is booked under it.
func gasFor(ctx context.Context, rt *route) context.Context {
	return settle.WithGasLabel(ctx, rt.name)
}

// costSampleEvery is how often a resold model's upstream payments are
// booked as its cost.
var costSampleEvery = 10 * time.Second

// startCostSampler books, every costSampleEvery and once at close, what
// each resold model's (or pooled x402 supplier's) wallet paid its upstream
// since the last sample, as that model's (and supplier's) cost.
func (s *Server) startCostSampler() {
	type sold struct {
		name, supplier string
		r              reseller
		last           *big.Int
	}
	var rs []*sold
	add := func(name, supplier string, m responses.Model) {
		if r, ok := m.(reseller); ok {
			_, paid := r.Spent()
			rs = append(rs, &sold{name: name, supplier: supplier, r: r, last: new(big.Int).Set(paid)})
		}
	}
	for _, name := range s.order {
		add(name, "", s.routes[name].model)
		if p, ok := s.routes[name].model.(*pool.Pool); ok {
			for _, sup := range p.Suppliers() {
				add(name, sup.Name, sup.Model)
			}
		}
	}
	b := s.pay.books
	if len(rs) == 0 || b == nil {
		return
	}
	sample := func() {
		for _, x := range rs {
			_, paid := x.r.Spent()
			d := new(big.Int).Sub(paid, x.last)
			if d.Sign() > 0 && d.IsInt64() {
				b.Record(books.Delta{Model: x.name, Supplier: x.supplier, Fields: map[string]int64{books.FCost: d.Int64()}})
				x.last.Set(paid)
			}
		}
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(costSampleEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				sample()
				return
			case <-tick.C:
				sample()
			}
		}
	}()
	s.pay.closers = append([]func(){func() { close(stop); <-done }}, s.pay.closers...)
}

// attribute names, in ch's purchase, the supplier of a pooled model that
// served the call, so the books count what it settles (mined before, while
// or after the model ran) under that supplier. A payment whose scheme
// keeps no journal entry (batch-settlement vouchers) has nothing to name.
func (s *Server) attribute(c echo.Context, ch *charge) {
	sup, _ := c.Get(supplierKey).(string)
	if ch == nil || sup == "" {
		return
	}
	if h, ok := ch.pay.(x402.ServedHold); ok {
		if err := h.Served(c.Request().Context(), sup); err != nil {
			s.log.Warn("books: naming the supplier of a purchase failed; its revenue stays on the model", "supplier", sup, "err", err)
		}
	}
}

// bookRefund books a deposit returned to its payer (not revenue: the
// payer had not spent it).
func (s *Server) bookRefund(payer string, amount *big.Int) {
	if s.pay.books != nil && amount.IsInt64() {
		s.pay.books.Record(books.Delta{Payer: strings.ToLower(payer), Fields: map[string]int64{books.FRefunded: amount.Int64()}})
	}
}

// firstToken is the model's output with the time of its first item
// stamped: the time to first token of the books.
type firstToken struct {
	responses.Output
	start time.Time
	first time.Duration
}

func (f *firstToken) stamp() {
	if f.first == 0 {
		f.first = max(time.Since(f.start), time.Nanosecond)
	}
}

func (f *firstToken) Text(delta string) error { f.stamp(); return f.Output.Text(delta) }
func (f *firstToken) StartCall(callID, name string) error {
	f.stamp()
	return f.Output.StartCall(callID, name)
}
func (f *firstToken) StartCustomCall(callID, name string) error {
	f.stamp()
	return f.Output.StartCustomCall(callID, name)
}
func (f *firstToken) StartReasoning() error { f.stamp(); return f.Output.StartReasoning() }
func (f *firstToken) ClientCall(wire, callID string, fields []byte) error {
	f.stamp()
	return f.Output.ClientCall(wire, callID, fields)
}

// timeFirst wraps out to time its first item and marks the request as
// having reached the model.
func timeFirst(c echo.Context, out responses.Output) *firstToken {
	f := &firstToken{Output: out, start: time.Now()}
	c.Set(reachedKey, f)
	return f
}

// bookCall books one finished call: calls, charges, refusals by status
// and code, time to first token. A call of no served model (a malformed
// body, an unknown name) is booked under no model: its refusal counts in
// the totals, and client-chosen names never become rows.
func (s *Server) bookCall(c echo.Context, rt *route, status int) {
	b := s.pay.books
	if b == nil {
		return
	}
	code, _ := c.Get(codeKey).(string)
	if rt == nil {
		if status >= 400 {
			b.RecordCall(books.Call{Status: status, Code: code})
		}
		return
	}
	call := books.Call{Model: rt.name, Free: rt.free(), Status: status, Code: code}
	if f, ok := c.Get(reachedKey).(*firstToken); ok {
		call.Reached, call.TTFT = true, f.first
		call.Supplier, _ = c.Get(supplierKey).(string)
		if uc := rt.costs[call.Supplier]; uc != nil {
			u, _ := c.Get(usageKey).(responses.Usage)
			if cost := uc.of(u); cost.IsInt64() {
				call.Cost = cost.Int64()
			}
		}
	}
	if ch, ok := c.Get(chargeKey).(*charge); ok {
		if ch.receipt != nil && ch.receipt.Payer != "" {
			call.Payer = ch.receipt.Payer
		} else if ch.payment != nil {
			call.Payer = ch.payment.Authorization.From.Hex()
		}
		if ch.outcome == settled && ch.charged().IsInt64() {
			call.Paid, call.Charged = true, ch.charged().Int64()
		}
	}
	b.RecordCall(call)
}
