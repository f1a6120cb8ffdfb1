package anthropic

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/fakeanthropic"
	"github.com/farebox/farebox/internal/testkit/upstreamtest"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/schemas"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/tidwall/gjson"
)

// fakeStreams are the fake's event streams for each of its behaviours, as
// it serves them: the fuzzer's seeds.
func fakeStreams(f *testing.F) [][]byte {
	s := fakeanthropic.Start(fakeanthropic.Options{Usage: fakeanthropic.Usage{CacheReadTokens: 5, CacheWriteTokens: 3}})
	defer s.Close()
	var out [][]byte
	for _, model := range []string{"text", "call+redacted", "stop:refusal", "stop:max_tokens", "error_midstream"} {
		body := `{"model":"` + model + `","max_tokens":2048,"stream":true,"thinking":{"type":"enabled","budget_tokens":1024},
			"system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}],
			"tools":[{"name":"get_weather","input_schema":{"type":"object"}},{"name":"get_time","input_schema":{"type":"object"}}],
			"messages":[{"role":"user","content":"x"}]}`
		req, _ := http.NewRequest(http.MethodPost, s.URL()+"/messages", strings.NewReader(body))
		req.Header.Set("Anthropic-Version", apiVersion)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			f.Fatal(err)
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 {
			f.Fatalf("%s: %d %s %v", model, res.StatusCode, b, err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzStream: whatever an Anthropic server streams, the client sees
// schema-valid events and a mapped error or a valid response whose calls
// name declared tools (seeds: the fake's streams).
func FuzzStream(f *testing.F) {
	for _, seed := range fakeStreams(f) {
		f.Add(seed)
	}
	var body atomic.Pointer[[]byte]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write(*body.Load())
	}))
	f.Cleanup(srv.Close)
	m, err := New(Config{BaseURL: srv.URL, Model: "m", Timeouts: upstreamhttp.Timeouts{FirstByte: 10 * time.Second, Gap: 10 * time.Second, Total: 20 * time.Second}})
	if err != nil {
		f.Fatal(err)
	}
	req, perr := responses.Parse([]byte(upstreamtest.GoldenRequest))
	if perr != nil {
		f.Fatal(perr)
	}
	req.Stream = true
	f.Fuzz(func(t *testing.T, data []byte) {
		body.Store(&data)
		em := responses.NewEmitter(req, upstreamtest.NewRecorder(t), upstreamtest.EmitterOptions(req.Model))
		if err := m.Respond(context.Background(), req, em); err != nil {
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
		gjson.GetBytes(final, `output.#(type=="function_call")#.name`).ForEach(func(_, n gjson.Result) bool {
			if n.Str != "get_weather" && n.Str != "get_time" {
				t.Fatalf("call of undeclared tool %q reached the client", n.Str)
			}
			return true
		})
	})
}
