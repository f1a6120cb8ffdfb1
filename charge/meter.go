package charge

import (
	"time"

	"github.com/farebox/farebox/responses"
)

// bytesPerToken is the documented count for upstreams that report no
// usage: a token per 4 bytes (rounded up) of the request body (input) and
// of the text, call names and arguments produced (output).
const bytesPerToken = 4

// CountTokens is the documented token count of n bytes.
func CountTokens(n int) int64 { return int64((n + bytesPerToken - 1) / bytesPerToken) }

// meter is the model's output as the paid call sees it for a per-token
// price: the usage it reports and, for upstreams that report none, the
// bytes it produced.
type meter struct {
	responses.Output
	usage    responses.Usage
	reported bool
	outBytes int
}

func (m *meter) Text(delta string) error {
	m.outBytes += len(delta)
	return m.Output.Text(delta)
}

func (m *meter) Refusal(delta string) error {
	m.outBytes += len(delta)
	return m.Output.Refusal(delta)
}

func (m *meter) StartCall(callID, name string) error {
	m.outBytes += len(name)
	return m.Output.StartCall(callID, name)
}

func (m *meter) Arguments(delta string) error {
	m.outBytes += len(delta)
	return m.Output.Arguments(delta)
}

func (m *meter) StartCustomCall(callID, name string) error {
	m.outBytes += len(name)
	return m.Output.StartCustomCall(callID, name)
}

func (m *meter) ReasoningSummary(index int, delta string) error {
	m.outBytes += len(delta)
	return m.Output.ReasoningSummary(index, delta)
}

func (m *meter) ClientCall(wire, callID string, fields []byte) error {
	m.outBytes += len(fields)
	return m.Output.ClientCall(wire, callID, fields)
}

func (m *meter) SetUsage(u responses.Usage) {
	m.usage, m.reported = u, true
	m.Output.SetUsage(u)
}

// failed records, on a failure, the usage produced so far when the
// upstream reported none: the documented count, so the failed response
// says what was produced (and what a per-token price charged).
func (m *meter) failed(bodyLen int) {
	if !m.reported {
		m.Output.SetUsage(m.used(bodyLen))
	}
}

// used is the usage to charge: the upstream's report, else the documented
// count of the request body and of the output.
func (m *meter) used(bodyLen int) responses.Usage {
	if m.reported {
		return m.usage
	}
	return responses.Usage{InputTokens: CountTokens(bodyLen), OutputTokens: CountTokens(m.outBytes)}
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
