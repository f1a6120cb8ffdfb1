// Package upstreamtest holds what the tests of the upstream kinds (openai,
// chat) share, the way net/http/httptest serves tests of HTTP code: sinks
// that keep or drop events, an emitter with a fixed clock and ids, the
// gateway's way of running one request, golden-file comparison, and the
// failure tests every upstream kind must pass (failures.go).
package upstreamtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/schemas"
)

// Recorder is a responses.Sink keeping every event, one JSON line each,
// and failing the test for any event that does not validate against its schema.
type Recorder struct {
	t   *testing.T
	buf bytes.Buffer
}

// NewRecorder returns an empty Recorder reporting to t.
func NewRecorder(t *testing.T) *Recorder { return &Recorder{t: t} }

// Event validates and keeps one event.
func (r *Recorder) Event(typ string, data []byte) error {
	if err := schemas.ValidateEvent(data); err != nil {
		r.t.Errorf("event %s does not validate: %v\n%s", typ, err, data)
	}
	fmt.Fprintf(&r.buf, "%s\n", data)
	return nil
}

// Bytes is every event kept so far, one per line.
func (r *Recorder) Bytes() []byte { return r.buf.Bytes() }

// String is Bytes as a string.
func (r *Recorder) String() string { return r.buf.String() }

// Discard is a responses.Sink that drops every event, for a non-streaming client.
type Discard struct{}

// Event drops the event.
func (Discard) Event(string, []byte) error { return nil }

// EmitterOptions gives an emitter a fixed clock and counting ids, so golden
// files are stable from run to run.
func EmitterOptions(model string) responses.EmitterOptions {
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

// Parse parses a Responses request body, failing the test if it is refused.
func Parse(t *testing.T, body string) *responses.Request {
	t.Helper()
	req, err := responses.Parse([]byte(body))
	if err != nil {
		t.Fatalf("parse %s: %v", body, err)
	}
	return req
}

// Run drives one request through the model and a real Emitter the way the
// gateway does, and renders the outcome: the events and the final object,
// or the HTTP error when nothing was streamed.
func Run(t *testing.T, m responses.Model, req *responses.Request, sink responses.Sink) (outcome string, final []byte) {
	t.Helper()
	em := responses.NewEmitter(req, sink, EmitterOptions(req.Model))
	err := m.Respond(context.Background(), req, em)
	if err != nil && !em.Started() {
		e := AsClientError(err)
		return fmt.Sprintf("HTTP %d type=%s code=%s retry_after=%s message=%q\n", e.Status, e.Type, e.Code, e.RetryAfter, e.Message), nil
	}
	if err != nil {
		if ferr := em.Fail(AsClientError(err), nil); ferr != nil {
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

// AsClientError is the gateway's rule: a *responses.Error as is, anything else 502.
func AsClientError(err error) *responses.Error {
	var e *responses.Error
	if errors.As(err, &e) {
		return e
	}
	return &responses.Error{Status: 502, Type: "server_error", Message: "upstream error", Cause: err}
}

// Transcript runs body through m for a streaming client and returns what a
// golden file pins (the outcome line or the events, then the indented final
// object), the events alone, and the final object (nil when the request
// failed before streaming). When there is a final object it also runs the
// request again for a non-streaming client and fails the test if that
// object differs.
func Transcript(t *testing.T, m responses.Model, body string) (transcript []byte, events string, final []byte) {
	t.Helper()
	rec := NewRecorder(t)
	outcome, final := Run(t, m, Parse(t, body), rec)
	var got bytes.Buffer
	got.WriteString(outcome)
	got.Write(rec.Bytes())
	if final != nil {
		got.WriteString("--- final response\n")
		json.Indent(&got, final, "", "  ")
		got.WriteByte('\n')
		if _, again := Run(t, m, Parse(t, body), Discard{}); !bytes.Equal(again, final) {
			t.Errorf("non-streaming object differs:\n%s\nstreamed:\n%s", again, final)
		}
	}
	return got.Bytes(), rec.String(), final
}

// Golden compares got with the file at path, or rewrites the file when
// update is set (each test package keeps its own -update flag).
func Golden(t *testing.T, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
