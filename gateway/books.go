package gateway

import (
	"time"

	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402/settle"
	"github.com/labstack/echo/v4"
)

// Context keys of what the books read from a finished request.
const (
	codeKey    = "farebox.code"    // the error code answered, if any
	reachedKey = "farebox.reached" // *firstToken: the model was called
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
	p.books = books.New(books.Config{Store: store, Journal: journal, Logger: p.log})
	b := p.books
	p.closers = append([]func(){func() { b.Close() }}, p.closers...)
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

// bookCall books one finished call of a known model: calls, charges,
// refusals by status and code, time to first token.
func (s *Server) bookCall(c echo.Context, rt *route, status int) {
	b := s.pay.books
	if b == nil {
		return
	}
	call := books.Call{Model: rt.name, Free: rt.free(), Status: status}
	call.Code, _ = c.Get(codeKey).(string)
	if f, ok := c.Get(reachedKey).(*firstToken); ok {
		call.Reached, call.TTFT = true, f.first
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
