package anthropic

import (
	"context"
	"testing"

	"github.com/farebox/farebox/internal/testkit/fakeanthropic"
	"github.com/farebox/farebox/internal/testkit/upstreamtest"
	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// newFake starts a fake Anthropic server for the test.
func newFake(t *testing.T, opts fakeanthropic.Options) *fakeanthropic.Server {
	t.Helper()
	s := fakeanthropic.Start(opts)
	t.Cleanup(s.Close)
	return s
}

// newModel builds a Model against the fake.
func newModel(t *testing.T, s *fakeanthropic.Server, cfg Config) *Model {
	t.Helper()
	cfg.BaseURL = s.URL()
	if cfg.APIKey == "" {
		cfg.APIKey = "sk-ant-operator"
	}
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// usageTap is an Output that keeps the last usage a model reported.
type usageTap struct {
	responses.Output
	usage responses.Usage
}

func (u *usageTap) SetUsage(v responses.Usage) {
	u.usage = v
	u.Output.SetUsage(v)
}

// outcome is one request's end as the gateway sees it.
type outcome struct {
	final   gjson.Result // the response object; empty when nothing was streamed
	err     error        // what Respond returned
	started bool         // whether output began before err
	usage   responses.Usage
}

// run sends body through m once streamed and once not, the way the
// gateway does, and fails the test when the two final objects differ.
func run(t *testing.T, m *Model, body string, provider responses.ProviderView) outcome {
	t.Helper()
	streamed := once(t, m, body, provider, true)
	whole := once(t, m, body, provider, false)
	if streamed.final.Raw != whole.final.Raw {
		t.Errorf("streamed and whole answers differ:\n%s\n%s", streamed.final.Raw, whole.final.Raw)
	}
	return streamed
}

func once(t *testing.T, m *Model, body string, provider responses.ProviderView, stream bool) outcome {
	t.Helper()
	req := upstreamtest.Parse(t, body)
	req.Stream, req.Provider = stream, provider
	var sink responses.Sink = upstreamtest.Discard{}
	if stream {
		sink = upstreamtest.NewRecorder(t)
	}
	em := responses.NewEmitter(req, sink, upstreamtest.EmitterOptions(req.Model))
	tap := &usageTap{Output: em}
	err := m.Respond(context.Background(), req, tap)
	o := outcome{err: err, started: em.Started(), usage: tap.usage}
	if err != nil && !em.Started() {
		return o
	}
	if err != nil {
		if ferr := em.Fail(upstreamtest.AsClientError(err), nil); ferr != nil {
			t.Fatal(ferr)
		}
	} else if cerr := em.Complete(nil); cerr != nil {
		t.Fatal(cerr)
	}
	o.final = gjson.ParseBytes(em.Response())
	return o
}

// sent is the body of the latest request the fake received.
func sent(t *testing.T, s *fakeanthropic.Server) gjson.Result {
	t.Helper()
	r, err := s.Last()
	if err != nil {
		t.Fatal(err)
	}
	return gjson.ParseBytes(r.Body)
}

// asError is err as the client's error, failing the test when it is not one.
func asError(t *testing.T, err error) *responses.Error {
	t.Helper()
	if err == nil {
		t.Fatal("Respond succeeded, want an error")
	}
	return upstreamtest.AsClientError(err)
}
