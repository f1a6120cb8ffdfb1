package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/schemas"
)

// recorder is a Sink keeping every event, each checked against its schema.
type recorder struct {
	t   *testing.T
	buf bytes.Buffer
}

func (r *recorder) Event(typ string, data []byte) error {
	if err := schemas.ValidateEvent(data); err != nil {
		r.t.Errorf("event %s does not validate: %v\n%s", typ, err, data)
	}
	fmt.Fprintf(&r.buf, "%s\n", data)
	return nil
}

type discard struct{}

func (discard) Event(string, []byte) error { return nil }

// deterministic ids and clock, so golden files are stable.
func emitterOptions(model string) responses.EmitterOptions {
	n := map[string]int{}
	return responses.EmitterOptions{
		Model: model,
		Now:   func() time.Time { return time.Unix(1750000000, 0) },
		IDs: func(prefix string) string {
			n[prefix]++
			return fmt.Sprintf("%s%04d", prefix, n[prefix])
		},
	}
}

// run drives one request through the model and a real Emitter the way the
// gateway does, and renders the outcome: the events and the final object,
// or the HTTP error when nothing was streamed.
func run(t *testing.T, m responses.Model, req *responses.Request, sink responses.Sink) (outcome string, final []byte) {
	t.Helper()
	em := responses.NewEmitter(req, sink, emitterOptions(req.Model))
	err := m.Respond(context.Background(), req, em)
	if err != nil && !em.Started() {
		e := asClientError(err)
		return fmt.Sprintf("HTTP %d type=%s code=%s retry_after=%s message=%q\n", e.Status, e.Type, e.Code, e.RetryAfter, e.Message), nil
	}
	if err != nil {
		if ferr := em.Fail(asClientError(err), nil); ferr != nil {
			t.Fatalf("Fail: %v", ferr)
		}
	} else if cerr := em.Complete(nil); cerr != nil {
		t.Fatalf("Complete: %v", cerr)
	}
	final = em.Response()
	if verr := schemas.Validate("response", final); verr != nil {
		t.Errorf("response does not validate: %v\n%s", verr, final)
	}
	return "", final
}

// asClientError is the gateway's rule: a *responses.Error as is, anything else 502.
func asClientError(err error) *responses.Error {
	var e *responses.Error
	if errors.As(err, &e) {
		return e
	}
	return &responses.Error{Status: 502, Type: "server_error", Message: "upstream error", Cause: err}
}
