package pool

import (
	"time"

	"github.com/farebox/farebox/responses"
)

// guard is what one attempt writes to: it passes output straight through
// (nothing is held back, so streaming is not slowed) and remembers whether
// any reached the client's emitter, since from then on the call cannot
// move to another supplier. Usage and an incomplete status write nothing
// by themselves: they are held until the attempt succeeds or output
// begins, so a failed attempt leaves no trace in the answer.
type guard struct {
	responses.Output
	first   func() // called once, at the first output
	started bool
	ttft    time.Duration

	usage      *responses.Usage
	incomplete *string
}

func (g *guard) begin() {
	if g.started {
		return
	}
	g.started = true
	if g.first != nil {
		g.first()
	}
	g.flush()
}

// flush passes on what was held.
func (g *guard) flush() {
	if g.usage != nil {
		g.Output.SetUsage(*g.usage)
		g.usage = nil
	}
	if g.incomplete != nil {
		g.Output.Incomplete(*g.incomplete)
		g.incomplete = nil
	}
}

func (g *guard) Text(delta string) error { g.begin(); return g.Output.Text(delta) }

func (g *guard) StartCall(callID, name string) error {
	g.begin()
	return g.Output.StartCall(callID, name)
}

func (g *guard) Arguments(delta string) error { g.begin(); return g.Output.Arguments(delta) }

func (g *guard) StartCustomCall(callID, name string) error {
	g.begin()
	return g.Output.StartCustomCall(callID, name)
}

func (g *guard) StartReasoning() error { g.begin(); return g.Output.StartReasoning() }

func (g *guard) ReasoningSummary(index int, delta string) error {
	g.begin()
	return g.Output.ReasoningSummary(index, delta)
}

func (g *guard) ReasoningEncrypted(content string) error {
	g.begin()
	return g.Output.ReasoningEncrypted(content)
}

func (g *guard) ClientCall(wire, callID string, fields []byte) error {
	g.begin()
	return g.Output.ClientCall(wire, callID, fields)
}

func (g *guard) SetUsage(u responses.Usage) {
	if g.started {
		g.Output.SetUsage(u)
		return
	}
	g.usage = &u
}

func (g *guard) Incomplete(reason string) {
	if g.started {
		g.Output.Incomplete(reason)
		return
	}
	g.incomplete = &reason
}
