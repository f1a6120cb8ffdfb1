package chat

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/fakeupstream"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/schemas"
	"github.com/tidwall/gjson"
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

const goldenRequest = `{"model":"client-model","input":"Weather in Paris?","tools":[
 {"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}},
 {"type":"function","name":"get_time","parameters":{"type":"object","properties":{"zone":{"type":"string"}}}}]}`

// wantCalls is what each tool-call fixture must come out as, whatever the
// golden file says: (call_id name arguments) per call, in order.
var wantCalls = map[string][]string{
	"parallel_calls":       {`call_w1 get_weather {"city": "Paris"}`, `call_w2 get_weather {"city": "Tokyo"}`},
	"index_zero":           {`call_o1 get_weather {"city":"Paris"}`, `call_o2 get_time {"zone":"Europe/Paris"}`},
	"missing_index":        {`call_g1 get_weather {"city":"Paris"}`, `call_g2 get_time {"zone":"UTC"}`},
	"several_in_one_chunk": {`call_s1 get_weather {"city":"Paris"}`, `call_s2 get_time {"zone":"UTC"}`},
	"args_before_name":     {`call_b1 get_weather {"city": "Paris"}`},
	"whole_call":           {`call_one get_weather {"city":"Paris"}`},
	"text_then_calls":      {`call_t1 get_weather {"city":"Paris"}`},
}

func TestFixturesGolden(t *testing.T) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	names := fakeupstream.Fixtures("chat")
	if len(names) == 0 {
		t.Fatal("no chat fixtures")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			m, err := New(Config{BaseURL: up.URL(), Model: "fixture:" + name})
			if err != nil {
				t.Fatal(err)
			}
			req := parse(t, goldenRequest)
			rec := &recorder{t: t}
			outcome, final := run(t, m, req, rec)
			var got bytes.Buffer
			got.WriteString(outcome)
			got.Write(rec.buf.Bytes())
			if final != nil {
				got.WriteString("--- final response\n")
				json.Indent(&got, final, "", "  ")
				got.WriteByte('\n')
				// Non-streaming: the same request, events ignored, gives the same object.
				if _, again := run(t, m, parse(t, goldenRequest), discard{}); !bytes.Equal(again, final) {
					t.Errorf("non-streaming object differs:\n%s\nstreamed:\n%s", again, final)
				}
				checkCalls(t, name, final)
				checkNoDone(t, rec.buf.String())
			}
			golden(t, filepath.Join("testdata", "streams", name+".txt"), got.Bytes())
		})
	}
}

func checkCalls(t *testing.T, name string, final []byte) {
	t.Helper()
	want, ok := wantCalls[name]
	if !ok {
		return
	}
	var got []string
	gjson.GetBytes(final, `output.#(type=="function_call")#`).ForEach(func(_, c gjson.Result) bool {
		got = append(got, c.Get("call_id").Str+" "+c.Get("name").Str+" "+c.Get("arguments").Str)
		return true
	})
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func checkNoDone(t *testing.T, events string) {
	t.Helper()
	if strings.Contains(events, "[DONE]") {
		t.Error("the upstream's [DONE] reached the client's events")
	}
}
