package gateway

import (
	"context"
	"math/big"
	"strings"
	"time"

	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/charge"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/pool"
	"github.com/farebox/farebox/x402/settle"
	"github.com/labstack/echo/v4"
)

// codeKey holds, on a finished request, the error code answered, if any
// (the books read it; the call itself is its *charge.Sale under chargeKey).
const codeKey = "farebox.code"

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
				// The last sample counts, at their signed maximum, the
				// upto charges still awaiting the chain's proof.
				now, cancel := context.WithCancel(context.Background())
				cancel()
				for _, x := range rs {
					if p, ok := x.r.(costProver); ok {
						p.Settle(now)
					}
				}
				sample()
				return
			case <-tick.C:
				sample()
			}
		}
	}()
	s.pay.closers = append([]func(){func() { close(stop); <-done }}, s.pay.closers...)
}

// costProver is a resold model whose cost may wait on the chain's proof
// of an upto charge (upstream/resell): Settle books what is still awaited.
type costProver interface{ Settle(ctx context.Context) }

// bookRefund books a deposit returned to its payer (not revenue: the
// payer had not spent it).
func (s *Server) bookRefund(payer string, amount *big.Int) {
	if s.pay.books != nil && amount.IsInt64() {
		s.pay.books.Record(books.Delta{Payer: strings.ToLower(payer), Fields: map[string]int64{books.FRefunded: amount.Int64()}})
	}
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
	sale, ok := c.Get(chargeKey).(*charge.Sale)
	if !ok {
		b.RecordCall(call)
		return
	}
	if sale.Reached {
		call.Reached, call.TTFT, call.Wire = true, sale.TTFT, wireOf(c)
		call.Supplier = sale.Supplier
		if uc := rt.costs[call.Supplier]; uc != nil {
			if cost := uc.of(sale.Usage); cost.IsInt64() {
				call.Cost = cost.Int64()
			}
		}
	}
	call.Payer = sale.Payer()
	if charged := sale.Charged(); charged != nil && charged.IsInt64() {
		call.Paid, call.Charged, call.Entry = true, charged.Int64(), sale.Entry()
	}
	b.RecordCall(call)
}
