package upstreamtest

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/schemas"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/tidwall/gjson"
)

// FuzzStream fuzzes what an upstream of kind ("chat" or "responses") sends
// on a 200 text/event-stream answer, seeded with the fakeupstream fixtures
// of that kind. Whatever the bytes, the model must not panic or hang, every
// event the client sees validates against its schema, a failure is a
// *responses.Error, and an answer that completes is a valid response object
// whose function calls name a declared tool and carry non-empty arguments
// (passed on as the model sent them: like OpenAI, farebox does not promise
// the model wrote valid JSON).
func FuzzStream(f *testing.F, kind string, newModel NewModel) {
	for _, seed := range fixtureStreams(f, kind) {
		f.Add(seed)
	}
	var body atomic.Pointer[[]byte]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(*body.Load())
	}))
	f.Cleanup(srv.Close)
	// Generous timers: a hang still ends the call with a mapped 504, never the fuzzer.
	m, err := newModel(srv.URL, "", "", upstreamhttp.Timeouts{FirstByte: 10 * time.Second, Gap: 10 * time.Second, Total: 20 * time.Second})
	if err != nil {
		f.Fatal(err)
	}
	req, perr := responses.Parse([]byte(GoldenRequest))
	if perr != nil {
		f.Fatal(perr)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		body.Store(&data)
		rec := NewRecorder(t)
		em := responses.NewEmitter(req, rec, EmitterOptions(req.Model))
		err := m.Respond(context.Background(), req, em)
		if err != nil {
			var e *responses.Error
			if !errors.As(err, &e) || e.Status < 400 || e.Message == "" {
				t.Fatalf("Respond failed with %v (%T), not a client error", err, err)
			}
			if em.Started() {
				if ferr := em.Fail(e, nil); ferr != nil {
					t.Fatalf("Fail: %v", ferr)
				}
			}
			return
		}
		if cerr := em.Complete(nil); cerr != nil {
			t.Fatalf("Complete: %v", cerr)
		}
		final := em.Response()
		if verr := schemas.Validate("response", final); verr != nil {
			t.Fatalf("response does not validate: %v\n%s", verr, final)
		}
		gjson.GetBytes(final, `output.#(type=="function_call")#`).ForEach(func(_, c gjson.Result) bool {
			if n := c.Get("name").Str; n != "get_weather" && n != "get_time" {
				t.Fatalf("call of undeclared tool %q reached the client", n)
			}
			if c.Get("arguments").Str == "" {
				t.Fatalf("call %s has empty arguments", c.Raw)
			}
			return true
		})
	})
}

// fixtureStreams reads the fakeupstream fixtures of kind as served: the
// "#" note lines dropped, an "#!abort" frame ending the stream early.
func fixtureStreams(f *testing.F, kind string) [][]byte {
	_, here, _, _ := runtime.Caller(0)
	names, err := filepath.Glob(filepath.Join(filepath.Dir(here), "..", "fakeupstream", "fixtures", "*."+kind+".sse"))
	if err != nil || len(names) == 0 {
		f.Fatalf("no %s fixtures (%v)", kind, err)
	}
	var out [][]byte
	for _, name := range names {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		var b bytes.Buffer
		for _, line := range bytes.SplitAfter(raw, []byte("\n")) {
			if bytes.HasPrefix(line, []byte("#!abort")) {
				break
			}
			if !bytes.HasPrefix(line, []byte("#")) {
				b.Write(line)
			}
		}
		out = append(out, b.Bytes())
	}
	return out
}
