package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/schemas"
	"github.com/tidwall/gjson"
)

// recorder is a Sink that keeps every event and checks it against the
// embedded event schemas; onEvent (optional) runs after each one.
type recorder struct {
	t       *testing.T
	events  []gjson.Result
	onEvent func(typ string)
}

func (r *recorder) Event(typ string, data []byte) error {
	if err := schemas.ValidateEvent(data); err != nil {
		r.t.Errorf("event %s does not validate: %v\n%s", typ, err, data)
	}
	r.events = append(r.events, gjson.ParseBytes(append([]byte(nil), data...)))
	if r.onEvent != nil {
		r.onEvent(typ)
	}
	return nil
}

func (r *recorder) ofType(typ string) []gjson.Result {
	var out []gjson.Result
	for _, e := range r.events {
		if e.Get("type").Str == typ {
			out = append(out, e)
		}
	}
	return out
}

// respond runs the model on body through a real Emitter and returns the
// recorded events and the final response object, validated.
func respond(t *testing.T, m *Model, body string) (*recorder, gjson.Result) {
	t.Helper()
	req := parse(t, body)
	rec := &recorder{t: t}
	em := responses.NewEmitter(req, rec, responses.EmitterOptions{Model: req.Model})
	if err := m.Respond(context.Background(), req, em); err != nil {
		t.Fatalf("Respond: %v", err)
	}
	if err := em.Complete(nil); err != nil {
		t.Fatalf("Complete: %v", err)
	}
	final := em.Response()
	if err := schemas.Validate("response", final); err != nil {
		t.Errorf("response does not validate: %v\n%s", err, final)
	}
	return rec, gjson.ParseBytes(final)
}

func TestRespondStreamsTextInSmallDeltas(t *testing.T) {
	const msg = "Hello, wörld ☃ — ça va?"
	rec, resp := respond(t, New(Options{ChunkSize: 4}), `{"model":"farebox-scripted","input":"`+msg+`"}`)
	want := "You said: " + msg
	var joined strings.Builder
	deltas := rec.ofType("response.output_text.delta")
	for _, d := range deltas {
		s := d.Get("delta").Str
		if !utf8.ValidString(s) || utf8.RuneCountInString(s) > 4 || s == "" {
			t.Errorf("delta %q is not 1 to 4 whole runes", s)
		}
		joined.WriteString(s)
	}
	if joined.String() != want {
		t.Errorf("deltas join to %q, want %q", joined.String(), want)
	}
	if n := utf8.RuneCountInString(want); len(deltas) != (n+3)/4 {
		t.Errorf("%d deltas for %d runes, want %d", len(deltas), n, (n+3)/4)
	}
	if got := resp.Get("status").Str; got != "completed" {
		t.Errorf("status = %s", got)
	}
	if got := resp.Get("output.0.content.0.text").Str; got != want {
		t.Errorf("output text = %q, want %q", got, want)
	}
	if got, want := resp.Get("usage.output_tokens").Int(), int64((len(want)+3)/4); got != want {
		t.Errorf("output_tokens = %d, want %d", got, want)
	}
	if got, want := resp.Get("usage.input_tokens").Int(), int64((len("user")+len(msg)+3)/4); got != want {
		t.Errorf("input_tokens = %d, want %d", got, want)
	}
}

func TestRespondStreamsParallelCallsOneAfterAnother(t *testing.T) {
	body := `{"model":"m","tools":` + threeTools + `,"input":"get_weather, then search"}`
	rec, resp := respond(t, New(Options{ChunkSize: 5}), body)
	req := parse(t, body)
	p := makePlan(req)

	// The item each event belongs to must be the one opened last: calls
	// are never interleaved.
	open := ""
	for _, e := range rec.events {
		switch typ := e.Get("type").Str; typ {
		case "response.output_item.added":
			if open != "" {
				t.Errorf("item %s added while %s is open", e.Get("item.id").Str, open)
			}
			open = e.Get("item.id").Str
		case "response.function_call_arguments.delta", "response.function_call_arguments.done":
			if id := e.Get("item_id").Str; id != open {
				t.Errorf("%s for %s while %s is open", typ, id, open)
			}
		case "response.output_item.done":
			open = ""
		}
	}
	if n := len(rec.ofType("response.function_call_arguments.delta")); n < 4 {
		t.Errorf("%d argument deltas, want several per call", n)
	}

	out := resp.Get("output").Array()
	if len(out) != 2 {
		t.Fatalf("output has %d items, want 2: %s", len(out), resp.Get("output").Raw)
	}
	for i, it := range out {
		if it.Get("type").Str != "function_call" || it.Get("name").Str != p.calls[i].Name ||
			it.Get("call_id").Str != p.calls[i].ID || it.Get("arguments").Str != p.calls[i].Arguments {
			t.Errorf("output[%d] = %s, want the call %+v", i, it.Raw, p.calls[i])
		}
		sch := compileSchema(t, string(toolByName(req, p.calls[i].Name).Parameters))
		var args any
		if err := json.Unmarshal([]byte(it.Get("arguments").Str), &args); err != nil {
			t.Fatalf("arguments are not JSON: %v", err)
		}
		if err := sch.Validate(args); err != nil {
			t.Errorf("arguments of %s do not validate: %v", p.calls[i].Name, err)
		}
	}
	if got := []string{out[0].Get("name").Str, out[1].Get("name").Str}; got[0] != "get_weather" || got[1] != "search" {
		t.Errorf("calls in order %q, want the order of the message", got)
	}
}

func TestRespondCompletesAToolRoundTrip(t *testing.T) {
	m := New(Options{})
	first := `{"role":"user","content":[{"type":"input_text","text":"get_weather in Paris"}]}`
	tools := `,"tools":` + threeTools
	_, resp := respond(t, m, `{"model":"m"`+tools+`,"input":[`+first+`]}`)
	call := resp.Get("output.0")
	if call.Get("type").Str != "function_call" {
		t.Fatalf("first turn: %s, want a function_call", resp.Get("output").Raw)
	}
	callItem, _ := json.Marshal(map[string]string{"type": "function_call", "call_id": call.Get("call_id").Str,
		"name": call.Get("name").Str, "arguments": call.Get("arguments").Str})
	output := `{"type":"function_call_output","call_id":` + call.Get("call_id").Raw +
		`,"output":[{"type":"input_text","text":"Sunny"},{"type":"input_image","image_url":"https://example.com/sky.png"}]}`
	_, resp = respond(t, m, `{"model":"m"`+tools+`,"input":[`+first+`,`+string(callItem)+`,`+output+`]}`)
	if got, want := resp.Get("output.0.content.0.text").Str, "get_weather returned: Sunny [image]"; got != want {
		t.Errorf("second turn says %q, want %q", got, want)
	}
}

func TestRespondCutsTextAtMaxOutputTokens(t *testing.T) {
	long := strings.Repeat("ab ", 100)
	rec, resp := respond(t, New(Options{ChunkSize: 8}), `{"model":"m","max_output_tokens":16,"input":"`+long+`"}`)
	if got := resp.Get("status").Str; got != "incomplete" {
		t.Errorf("status = %s, want incomplete", got)
	}
	if got := resp.Get("incomplete_details.reason").Str; got != "max_output_tokens" {
		t.Errorf("incomplete_details.reason = %q", got)
	}
	if got := resp.Get("output.0.content.0.text").Str; got != ("You said: " + long)[:64] {
		t.Errorf("text = %q, want the first 64 bytes", got)
	}
	if got := resp.Get("usage.output_tokens").Int(); got != 16 {
		t.Errorf("output_tokens = %d, want 16", got)
	}
	if len(rec.ofType("response.incomplete")) != 1 {
		t.Errorf("no response.incomplete event")
	}
}

func TestRespondReturnsWhenContextEnds(t *testing.T) {
	body := `{"model":"m","input":"a message long enough for several deltas"}`

	t.Run("before the first delta", func(t *testing.T) {
		req := parse(t, body)
		rec := &recorder{t: t}
		em := responses.NewEmitter(req, rec, responses.EmitterOptions{})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := New(Options{}).Respond(ctx, req, em); !errors.Is(err, context.Canceled) {
			t.Errorf("Respond = %v, want context.Canceled", err)
		}
		if em.Started() || len(rec.events) != 0 {
			t.Errorf("%d events sent after cancellation", len(rec.events))
		}
	})

	t.Run("during a pace wait", func(t *testing.T) {
		req := parse(t, body)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		rec := &recorder{t: t, onEvent: func(typ string) {
			if typ == "response.output_text.delta" {
				cancel() // the client goes away after the first delta
			}
		}}
		em := responses.NewEmitter(req, rec, responses.EmitterOptions{})
		// A pace of an hour: Respond only returns in time if the wait
		// watches ctx (the test would hit the go test timeout otherwise).
		if err := New(Options{Pace: time.Hour, ChunkSize: 2}).Respond(ctx, req, em); !errors.Is(err, context.Canceled) {
			t.Errorf("Respond = %v, want context.Canceled", err)
		}
		if n := len(rec.ofType("response.output_text.delta")); n != 1 {
			t.Errorf("%d deltas, want 1 before the cancellation", n)
		}
	})

	t.Run("deadline between calls", func(t *testing.T) {
		req := parse(t, `{"model":"m","tools":`+threeTools+`,"input":"search and get_weather"}`)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		rec := &recorder{t: t, onEvent: func(typ string) {
			if typ == "response.output_item.added" {
				cancel()
			}
		}}
		em := responses.NewEmitter(req, rec, responses.EmitterOptions{})
		if err := New(Options{}).Respond(ctx, req, em); !errors.Is(err, context.Canceled) {
			t.Errorf("Respond = %v, want context.Canceled", err)
		}
		if n := len(rec.ofType("response.output_item.added")); n != 1 {
			t.Errorf("%d items opened, want 1", n)
		}
	})
}

func TestRespondPacesDeltasWithoutLosingAny(t *testing.T) {
	rec, resp := respond(t, New(Options{Pace: time.Millisecond, ChunkSize: 3}), `{"model":"m","input":"paced"}`)
	if got := resp.Get("output.0.content.0.text").Str; got != "You said: paced" {
		t.Errorf("text = %q", got)
	}
	if n := len(rec.ofType("response.output_text.delta")); n != 5 {
		t.Errorf("%d deltas, want 5", n)
	}
}

func TestModelIsSafeForConcurrentUse(t *testing.T) {
	m := New(Options{ChunkSize: 2})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			body := `{"model":"m","tools":` + threeTools + `,"input":"search"}`
			if i%2 == 0 {
				body = `{"model":"m","input":"hello"}`
			}
			req, perr := responses.Parse([]byte(body))
			if perr != nil {
				t.Error(perr.Message)
				return
			}
			em := responses.NewEmitter(req, responses.Discard{}, responses.EmitterOptions{})
			if err := m.Respond(context.Background(), req, em); err != nil {
				t.Error(err)
			}
			if err := em.Complete(nil); err != nil {
				t.Error(err)
			}
			if st := gjson.GetBytes(em.Response(), "status").Str; st != "completed" {
				t.Errorf("status %s", st)
			}
		})
	}
	wg.Wait()
}

func TestCustomToolIsCalledWithFreeformInputAndItsOutputQuoted(t *testing.T) {
	body := `{"model":"m","input":"apply_patch: add hello.txt","tools":[{"type":"custom","name":"apply_patch","format":{"type":"text"}},{"type":"shell"}]}`
	req, perr := responses.Parse([]byte(body))
	if perr != nil {
		t.Fatal(perr)
	}
	em := responses.NewEmitter(req, nil, responses.EmitterOptions{})
	if err := New(Options{}).Respond(context.Background(), req, em); err != nil {
		t.Fatal(err)
	}
	if err := em.Complete(nil); err != nil {
		t.Fatal(err)
	}
	out := gjson.GetBytes(em.Response(), "output")
	if got := out.Get("#").Int(); got != 1 {
		t.Fatalf("%d items: %s", got, out.Raw)
	}
	if got, want := out.Get("0.type").Str, "custom_tool_call"; got != want {
		t.Fatalf("type %q, want %q", got, want)
	}
	if got, want := out.Get("0.input").Str, "apply_patch: add hello.txt"; got != want {
		t.Fatalf("input %q, want %q", got, want)
	}
	callID := out.Get("0.call_id").Str
	follow := `{"model":"m","input":[{"role":"user","content":"x"},{"type":"custom_tool_call","call_id":"` + callID + `","name":"apply_patch","input":"p"},{"type":"custom_tool_call_output","call_id":"` + callID + `","output":"Done!"}],"tools":[{"type":"custom","name":"apply_patch"}]}`
	req, perr = responses.Parse([]byte(follow))
	if perr != nil {
		t.Fatal(perr)
	}
	em = responses.NewEmitter(req, nil, responses.EmitterOptions{})
	if err := New(Options{}).Respond(context.Background(), req, em); err != nil {
		t.Fatal(err)
	}
	_ = em.Complete(nil)
	if got, want := gjson.GetBytes(em.Response(), "output.0.content.0.text").Str, "apply_patch returned: Done!"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
