package gemini

import (
	"context"
	"testing"

	"github.com/farebox/farebox/internal/testkit/fakegemini"
	"github.com/farebox/farebox/internal/testkit/upstreamtest"
	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

func newFake(t *testing.T, opts fakegemini.Options) *fakegemini.Server {
	t.Helper()
	if opts.APIKey == "" {
		opts.APIKey = "gm-operator"
	}
	s := fakegemini.Start(opts)
	t.Cleanup(s.Close)
	return s
}

func newModel(t *testing.T, s *fakegemini.Server, cfg Config) *Model {
	t.Helper()
	cfg.BaseURL = s.URL()
	if cfg.APIKey == "" {
		cfg.APIKey = "gm-operator"
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
	err     error
	started bool
	usage   responses.Usage
}

func once(t *testing.T, m *Model, body string, stream bool) outcome {
	t.Helper()
	req := upstreamtest.Parse(t, body)
	req.Stream = stream
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

// sent is the latest request the fake received.
func sent(t *testing.T, s *fakegemini.Server) fakegemini.Record {
	t.Helper()
	r, err := s.Last()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func asError(t *testing.T, err error) *responses.Error {
	t.Helper()
	if err == nil {
		t.Fatal("Respond succeeded, want an error")
	}
	return upstreamtest.AsClientError(err)
}
