package responses

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/schemas"
)

// recorder is a Sink that keeps copies of every event.
type recorder struct {
	events []recorded
	failAt int // Event returns an error from this event on (0 = never)
}

type recorded struct {
	typ  string
	data []byte
}

var errGone = errors.New("client went away")

func (r *recorder) Event(typ string, data []byte) error {
	r.events = append(r.events, recorded{typ, bytes.Clone(data)})
	if r.failAt > 0 && len(r.events) >= r.failAt {
		return errGone
	}
	return nil
}

func (r *recorder) types() []string {
	out := make([]string, len(r.events))
	for i, ev := range r.events {
		out[i] = ev.typ
	}
	return out
}

// counterIDs gives deterministic ids: resp_1, msg_1, fc_1, fc_2, ...
func counterIDs() func(string) string {
	n := map[string]int{}
	return func(prefix string) string {
		n[prefix]++
		return fmt.Sprintf("%s%d", prefix, n[prefix])
	}
}

var fixedClock = func() time.Time { return time.Unix(1749761642, 0) }

func testOptions() EmitterOptions {
	return EmitterOptions{Model: "farebox-scripted", Now: fixedClock, IDs: counterIDs()}
}

func toolsNamed(names ...string) []Tool {
	out := make([]Tool, len(names))
	for i, n := range names {
		out[i] = Tool{Name: n, Parameters: json.RawMessage(`{"type":"object","properties":{}}`), Strict: true}
	}
	return out
}

func int64p(n int64) *int64 { return &n }

// wireEvent is the part of an event the stream rules look at.
type wireEvent struct {
	Type           string          `json:"type"`
	SequenceNumber *int64          `json:"sequence_number"`
	OutputIndex    *int            `json:"output_index"`
	ItemID         string          `json:"item_id"`
	Delta          string          `json:"delta"`
	Text           string          `json:"text"`
	Arguments      string          `json:"arguments"`
	Name           string          `json:"name"`
	Item           json.RawMessage `json:"item"`
	Response       json.RawMessage `json:"response"`
}

type wireItem struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Status    string `json:"status"`
	Content   []struct {
		Text string `json:"text"`
	} `json:"content"`
}

// checkStream asserts the ordering rules of docs/wire.md §3 on one event stream
// and validates every event against schemas/. It returns the terminal
// event's response object.
func checkStream(t *testing.T, events []recorded) json.RawMessage {
	t.Helper()
	var (
		open     *wireItem
		openIdx  = -1
		nItems   = 0
		acc      strings.Builder
		done     []json.RawMessage
		terminal json.RawMessage
		callIDs  = map[string]bool{}
	)
	for i, ev := range events {
		if err := schemas.ValidateEvent(ev.data); err != nil {
			t.Fatalf("event %d %s: %v\n%s", i, ev.typ, err, ev.data)
		}
		if bytes.ContainsAny(ev.data, "\r\n") {
			t.Fatalf("event %d is not one line: %q", i, ev.data)
		}
		var w wireEvent
		if err := json.Unmarshal(ev.data, &w); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if w.Type != ev.typ {
			t.Fatalf("event %d: sink type %q, JSON type %q", i, ev.typ, w.Type)
		}
		if w.SequenceNumber == nil || *w.SequenceNumber != int64(i) {
			t.Fatalf("event %d (%s): sequence_number %v", i, w.Type, w.SequenceNumber)
		}
		if terminal != nil {
			t.Fatalf("event %d (%s) after the terminal event", i, w.Type)
		}
		var top map[string]json.RawMessage
		_ = json.Unmarshal(ev.data, &top)
		if _, has := top["error"]; has && w.Type != "error" {
			t.Fatalf("event %d (%s) has a top-level error key", i, w.Type)
		}
		switch {
		case i == 0 && w.Type != "response.created", i == 1 && w.Type != "response.in_progress":
			t.Fatalf("event %d is %s", i, w.Type)
		}
		switch w.Type {
		case "response.output_item.added":
			if open != nil {
				t.Fatalf("event %d: item %s added while %s is open", i, w.ItemID, open.ID)
			}
			if *w.OutputIndex != nItems {
				t.Fatalf("event %d: output_index %d, want %d", i, *w.OutputIndex, nItems)
			}
			open = new(wireItem)
			_ = json.Unmarshal(w.Item, open)
			openIdx = nItems
			nItems++
			acc.Reset()
			if open.Type == "function_call" {
				if callIDs[open.CallID] {
					t.Fatalf("event %d: call_id %s repeated", i, open.CallID)
				}
				callIDs[open.CallID] = true
			}
		case "response.content_part.added", "response.content_part.done",
			"response.output_text.delta", "response.output_text.done",
			"response.function_call_arguments.delta", "response.function_call_arguments.done":
			if open == nil || w.ItemID != open.ID || *w.OutputIndex != openIdx {
				t.Fatalf("event %d (%s) for %s/%v, open item %+v", i, w.Type, w.ItemID, w.OutputIndex, open)
			}
			switch w.Type {
			case "response.output_text.delta", "response.function_call_arguments.delta":
				acc.WriteString(w.Delta)
			case "response.output_text.done":
				if w.Text != acc.String() {
					t.Fatalf("event %d: done text %q, deltas %q", i, w.Text, acc.String())
				}
			case "response.function_call_arguments.done":
				if want := acc.String(); w.Arguments != want && !(want == "" && w.Arguments == "{}") {
					t.Fatalf("event %d: done arguments %q, deltas %q", i, w.Arguments, want)
				}
				if w.Name != open.Name {
					t.Fatalf("event %d: name %q, item name %q", i, w.Name, open.Name)
				}
			}
		case "response.output_item.done":
			if open == nil || *w.OutputIndex != openIdx {
				t.Fatalf("event %d: item done without the open item", i)
			}
			open = nil
			done = append(done, w.Item)
		case "response.completed", "response.incomplete", "response.failed":
			if open != nil {
				t.Fatalf("event %d: terminal event while %s is open", i, open.ID)
			}
			terminal = w.Response
			var r struct{ Output []json.RawMessage }
			_ = json.Unmarshal(w.Response, &r)
			if len(r.Output) != len(done) {
				t.Fatalf("terminal output has %d items, %d were done", len(r.Output), len(done))
			}
			for k := range done {
				if !bytes.Equal(r.Output[k], done[k]) {
					t.Fatalf("terminal output[%d] = %s, item done = %s", k, r.Output[k], done[k])
				}
			}
		}
	}
	if terminal == nil {
		t.Fatalf("no terminal event in %d events", len(events))
	}
	return terminal
}

func TestEmitterHoldsBackTheStartUntilOutput(t *testing.T) {
	rec := &recorder{}
	req := &Request{Tools: toolsNamed("search"), ParallelToolCalls: true}
	em := NewEmitter(req, rec, testOptions())
	em.SetUsage(Usage{InputTokens: 3})
	if err := em.StartCall("call_x", "undeclared"); err != nil {
		t.Fatal(err)
	}
	if err := em.Arguments(`{"q":1}`); err != nil {
		t.Fatal(err)
	}
	if em.Started() || len(rec.events) != 0 {
		t.Fatalf("started=%v with %d events before any output", em.Started(), len(rec.events))
	}
	if err := em.Text("hi"); err != nil {
		t.Fatal(err)
	}
	if !em.Started() {
		t.Fatal("not started after the first text")
	}
	want := []string{"response.created", "response.in_progress", "response.output_item.added",
		"response.content_part.added", "response.output_text.delta"}
	if got := rec.types(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("events %v, want %v", got, want)
	}
}

func TestEmitterTerminalEventExactlyOnce(t *testing.T) {
	for _, first := range []string{"complete", "fail"} {
		t.Run(first, func(t *testing.T) {
			rec := &recorder{}
			em := NewEmitter(&Request{}, rec, testOptions())
			_ = em.Text("x")
			var err error
			if first == "complete" {
				err = em.Complete(nil)
			} else {
				err = em.Fail(&Error{Type: "server_error", Message: "upstream broke"}, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			n := len(rec.events)
			resp := bytes.Clone(em.Response())
			for name, again := range map[string]func() error{
				"Complete":  func() error { return em.Complete(nil) },
				"Fail":      func() error { return em.Fail(nil, nil) },
				"Text":      func() error { return em.Text("more") },
				"StartCall": func() error { return em.StartCall("", "f") },
				"Arguments": func() error { return em.Arguments("{}") },
			} {
				if err := again(); !errors.Is(err, ErrFinished) {
					t.Errorf("%s after the end: %v, want ErrFinished", name, err)
				}
			}
			if len(rec.events) != n || !bytes.Equal(resp, em.Response()) {
				t.Fatal("a call after the terminal event changed the stream or the response")
			}
			checkStream(t, rec.events)
		})
	}
}

func TestEmitterArgumentsWithoutCall(t *testing.T) {
	em := NewEmitter(&Request{}, &recorder{}, testOptions())
	if err := em.Arguments("{}"); !errors.Is(err, ErrNoOpenCall) {
		t.Fatalf("got %v", err)
	}
	_ = em.Text("x")
	if err := em.Arguments("{}"); !errors.Is(err, ErrNoOpenCall) {
		t.Fatalf("arguments into a message: %v", err)
	}
}

// call is one scripted function call.
type call struct{ id, name, args string }

func TestEmitterDenyAllOnTheWayOut(t *testing.T) {
	three := toolsNamed("search", "weather", "clock")
	tests := []struct {
		name     string
		req      Request
		calls    []call
		text     string
		wantOut  []string // names of the calls that leave
		dropped  int
		status   string
		errMatch string
	}{
		{"declared tools pass", Request{Tools: three, ParallelToolCalls: true}, []call{{"c1", "search", `{}`}, {"c2", "clock", ``}}, "", []string{"search", "clock"}, 0, "completed", ""},
		{"undeclared alone fails", Request{Tools: three}, []call{{"c1", "rm_rf", `{"p":"/"}`}}, "", nil, 1, "failed", "did not declare: rm_rf"},
		{"undeclared next to a declared one", Request{Tools: three, ParallelToolCalls: true}, []call{{"c1", "rm_rf", `{}`}, {"c2", "search", `{}`}}, "", []string{"search"}, 1, "completed", ""},
		{"no tools at all", Request{}, []call{{"c1", "search", `{}`}}, "", nil, 1, "failed", "did not declare: search"},
		{"tool_choice none keeps the text", Request{Tools: three, ToolChoice: ToolChoice{Mode: ChoiceNone}}, []call{{"c1", "search", `{}`}}, "hello", nil, 1, "completed", ""},
		{"tool_choice none, call only", Request{Tools: three, ToolChoice: ToolChoice{Mode: ChoiceNone}}, []call{{"c1", "search", `{}`}}, "", nil, 1, "failed", `tool_choice is "none"`},
		{"allowed_tools is a hard subset", Request{Tools: three, ParallelToolCalls: true, ToolChoice: ToolChoice{Mode: ChoiceAllowed, AllowedMode: ChoiceAuto, Allowed: []string{"clock"}}},
			[]call{{"c1", "search", `{}`}, {"c2", "clock", `{}`}}, "", []string{"clock"}, 1, "completed", ""},
		{"outside allowed_tools alone", Request{Tools: three, ToolChoice: ToolChoice{Mode: ChoiceAllowed, Allowed: []string{"clock"}}},
			[]call{{"c1", "search", `{}`}}, "", nil, 1, "failed", "allowed_tools"},
		{"forced function only", Request{Tools: three, ToolChoice: ToolChoice{Mode: ChoiceFunction, Name: "weather"}},
			[]call{{"c1", "search", `{}`}}, "", nil, 1, "failed", "forces weather"},
		{"parallel_tool_calls false keeps the first call", Request{Tools: three},
			[]call{{"c1", "search", `{}`}, {"c2", "clock", `{}`}}, "", []string{"search"}, 1, "completed", ""},
		{"max_tool_calls caps", Request{Tools: three, ParallelToolCalls: true, MaxToolCalls: int64p(2)},
			[]call{{"c1", "search", `{}`}, {"c2", "weather", `{}`}, {"c3", "clock", `{}`}}, "", []string{"search", "weather"}, 1, "completed", ""},
		{"max_tool_calls 0", Request{Tools: three, MaxToolCalls: int64p(0)}, []call{{"c1", "search", `{}`}}, "", nil, 1, "failed", "max_tool_calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			em := NewEmitter(&tt.req, rec, testOptions())
			if tt.text != "" {
				if err := em.Text(tt.text); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range tt.calls {
				if err := em.StartCall(c.id, c.name); err != nil {
					t.Fatal(err)
				}
				if err := em.Arguments(c.args); err != nil {
					t.Fatal(err)
				}
			}
			denied := em.Denied()
			if (denied != nil) != (tt.status == "failed") {
				t.Fatalf("Denied() = %v before Complete, want status %s", denied, tt.status)
			}
			if denied != nil && em.Started() {
				t.Fatal("a response with nothing to send has started")
			}
			if err := em.Complete(nil); err != nil {
				t.Fatal(err)
			}
			if got := em.Status(); got != tt.status {
				t.Fatalf("status %s, want %s", got, tt.status)
			}
			if got := em.Dropped(); got != tt.dropped {
				t.Fatalf("dropped %d, want %d", got, tt.dropped)
			}
			terminal := checkStream(t, rec.events)
			if !bytes.Equal(terminal, em.Response()) {
				t.Fatalf("terminal response != Response()")
			}
			var r struct {
				Output []wireItem
				Error  *struct{ Code, Message string }
			}
			if err := json.Unmarshal(em.Response(), &r); err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, it := range r.Output {
				if it.Type == "function_call" {
					names = append(names, it.Name)
				}
			}
			if strings.Join(names, ",") != strings.Join(tt.wantOut, ",") {
				t.Fatalf("calls that left: %v, want %v", names, tt.wantOut)
			}
			var announced []string
			for _, ev := range rec.events {
				if ev.typ == "response.output_item.added" {
					var w struct{ Item wireItem }
					_ = json.Unmarshal(ev.data, &w)
					if w.Item.Type == "function_call" {
						announced = append(announced, w.Item.Name)
					}
				}
			}
			if strings.Join(announced, ",") != strings.Join(tt.wantOut, ",") {
				t.Fatalf("calls announced in the stream: %v, want %v", announced, tt.wantOut)
			}
			if tt.errMatch != "" && (r.Error == nil || !strings.Contains(r.Error.Message, tt.errMatch)) {
				t.Fatalf("error %+v, want a message with %q", r.Error, tt.errMatch)
			}
		})
	}
}

func TestEmitterCallIDsAreUniqueAndPresent(t *testing.T) {
	rec := &recorder{}
	em := NewEmitter(&Request{Tools: toolsNamed("a", "b"), ParallelToolCalls: true}, rec, testOptions())
	for _, c := range []call{{"", "a", ""}, {"call_same", "b", ""}, {"call_same", "a", ""}} {
		_ = em.StartCall(c.id, c.name)
	}
	_ = em.Complete(nil)
	checkStream(t, rec.events) // fails on a repeated call_id
	var r struct{ Output []wireItem }
	_ = json.Unmarshal(em.Response(), &r)
	got := []string{r.Output[0].CallID, r.Output[1].CallID, r.Output[2].CallID}
	if got[0] != "call_1" || got[1] != "call_same" || got[2] != "call_2" {
		t.Fatalf("call ids %v", got)
	}
	for _, it := range r.Output {
		if it.Arguments != "{}" {
			t.Fatalf("empty arguments sent as %q", it.Arguments)
		}
	}
}

func TestEmitterEchoesTheRequest(t *testing.T) {
	instr := "be brief"
	user := "u-1"
	temp := 0.25
	req := &Request{
		Instructions: &instr, User: &user, Temperature: &temp, MaxOutputTokens: int64p(64), MaxToolCalls: int64p(3),
		Tools:      toolsNamed("search"),
		ToolChoice: ToolChoice{Mode: ChoiceFunction, Name: "search"},
		Metadata:   []MetadataPair{{"z", "last"}, {"a", "first"}},
		Text:       json.RawMessage("{\n  \"format\": {\"type\": \"text\"}, \"verbosity\": \"low\"\n}"),
		Reasoning:  json.RawMessage(`{"effort":"low"}`),
		Truncation: "auto", ServiceTier: "flex", Store: true,
	}
	em := NewEmitter(req, Discard{}, testOptions())
	_ = em.Text("ok")
	em.SetUsage(Usage{InputTokens: 10, CachedTokens: 2, CacheWriteTokens: 3, OutputTokens: 5, ReasoningTokens: 1})
	if err := em.Complete(map[string]json.RawMessage{"x402": json.RawMessage(`{"success": true}`), "status": json.RawMessage(`"hijack"`)}); err != nil {
		t.Fatal(err)
	}
	resp := em.Response()
	if err := schemas.Validate("response", resp); err != nil {
		t.Fatalf("%v\n%s", err, resp)
	}
	for _, want := range []string{
		`"instructions":"be brief"`, `"user":"u-1"`, `"temperature":0.25`, `"max_output_tokens":64`,
		`"max_tool_calls":3`, `"tool_choice":{"type":"function","name":"search"}`,
		`"metadata":{"z":"last","a":"first"}`, `"text":{"format":{"type":"text"},"verbosity":"low"}`,
		`"reasoning":{"effort":"low"}`, `"truncation":"auto"`, `"service_tier":"flex"`, `"store":false`,
		`"top_p":1`, `"top_logprobs":0`, `"parallel_tool_calls":false`, `"completed_at":1749761642`,
		`"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":2,"cache_write_tokens":3},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":1},"total_tokens":15}`,
		`"x402":{"success":true}}`, `"status":"completed"`,
	} {
		if !bytes.Contains(resp, []byte(want)) {
			t.Errorf("response lacks %s:\n%s", want, resp)
		}
	}
	if bytes.Contains(resp, []byte("hijack")) {
		t.Errorf("an extra field shadowed a response key:\n%s", resp)
	}
}

func TestEmitterKeepsBuildingAfterTheClientLeft(t *testing.T) {
	rec := &recorder{failAt: 4}
	em := NewEmitter(&Request{}, rec, testOptions())
	var errs int
	for _, d := range []string{"a", "b", "c", "d"} {
		if err := em.Text(d); err != nil {
			errs++
		}
	}
	if errs == 0 {
		t.Fatal("sink errors were not reported")
	}
	if err := em.Complete(nil); !errors.Is(err, errGone) {
		t.Fatalf("Complete: %v", err)
	}
	if len(rec.events) != 4 {
		t.Fatalf("%d events written to a broken sink", len(rec.events))
	}
	if !bytes.Contains(em.Response(), []byte(`"text":"abcd"`)) || em.Status() != "completed" {
		t.Fatalf("response after the client left: %s", em.Response())
	}
}

func TestEmitterRandomIDs(t *testing.T) {
	em := NewEmitter(nil, nil, EmitterOptions{Model: "m"})
	_ = em.StartCall("", "x") // dropped: nil request declares nothing
	_ = em.Text("t")
	_ = em.Complete(nil)
	if err := schemas.Validate("response", em.Response()); err != nil {
		t.Fatal(err)
	}
	other := NewEmitter(nil, nil, EmitterOptions{})
	if em.ID() == other.ID() || !strings.HasPrefix(em.ID(), "resp_") || len(em.ID()) != len("resp_")+32 {
		t.Fatalf("ids %s %s", em.ID(), other.ID())
	}
}

// BenchmarkEmitterText is one streamed answer of 100 small deltas.
func BenchmarkEmitterText(b *testing.B) {
	req := &Request{Tools: toolsNamed("search", "weather"), ParallelToolCalls: true}
	b.ReportAllocs()
	for b.Loop() {
		em := NewEmitter(req, Discard{}, EmitterOptions{Model: "m", IDs: counterIDs()})
		for range 100 {
			_ = em.Text("token ")
		}
		em.SetUsage(Usage{InputTokens: 10, OutputTokens: 100})
		_ = em.Complete(nil)
	}
}

// BenchmarkEmitterCalls is a short text and two calls with 10 argument deltas each.
func BenchmarkEmitterCalls(b *testing.B) {
	req := &Request{Tools: toolsNamed("search", "weather"), ParallelToolCalls: true}
	b.ReportAllocs()
	for b.Loop() {
		em := NewEmitter(req, Discard{}, EmitterOptions{Model: "m", IDs: counterIDs()})
		_ = em.Text("Let me check.")
		for _, name := range []string{"search", "weather"} {
			_ = em.StartCall("", name)
			for range 10 {
				_ = em.Arguments(`{"k":"v"`)
			}
		}
		_ = em.Complete(nil)
	}
}
