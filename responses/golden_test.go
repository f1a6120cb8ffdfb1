package responses

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/farebox/farebox/schemas"
	"github.com/tidwall/gjson"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*.sse from the emitter")

// step is one thing a scripted upstream does to the emitter.
type step struct {
	op   string // text | call | args | usage | incomplete
	a, b string
}

func text(s string) step          { return step{op: "text", a: s} }
func startCall(id, n string) step { return step{op: "call", a: id, b: n} }
func args(s string) step          { return step{op: "args", a: s} }

var usage = step{op: "usage"}

// goldenCase is one pinned event sequence.
type goldenCase struct {
	name   string
	req    Request
	steps  []step
	fail   *Error // nil: Complete
	extra  map[string]json.RawMessage
	status string
}

func goldenCases() []goldenCase {
	weather := []Tool{{
		Name: "get_weather", Description: "Weather for a city", HasDesc: true, Strict: true,
		Parameters: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}`),
	}, {
		Name: "get_time", Strict: true, Parameters: json.RawMessage(`{"type":"object","properties":{}}`),
	}}
	return []goldenCase{
		{name: "text", req: Request{ParallelToolCalls: true},
			steps:  []step{text("Hello"), text(", \"world\"!\n"), text("Ünïcode ✓"), usage},
			status: "completed"},
		{name: "one_call", req: Request{Tools: weather, ParallelToolCalls: true},
			steps:  []step{startCall("call_A", "get_weather"), args(`{"city":`), args(`"Paris"}`), usage},
			status: "completed"},
		{name: "parallel_calls", req: Request{Tools: weather, ParallelToolCalls: true},
			steps:  []step{startCall("call_A", "get_weather"), args(`{"city":"Paris"}`), startCall("", "get_time"), usage},
			status: "completed"},
		{name: "text_then_call", req: Request{Tools: weather, ParallelToolCalls: true},
			steps:  []step{text("Let me check."), startCall("call_A", "get_weather"), args(`{"city":"Oslo"}`), usage},
			status: "completed"},
		{name: "upstream_failure", req: Request{ParallelToolCalls: true},
			steps:  []step{text("The answer is"), text(" forty")},
			fail:   &Error{Status: 502, Type: "server_error", Code: "server_error", Message: "The upstream model stopped responding."},
			status: "failed"},
		{name: "incomplete_max_output_tokens", req: Request{ParallelToolCalls: true, MaxOutputTokens: int64p(4)},
			steps:  []step{text("One two"), text(" three four"), {op: "incomplete", a: "max_output_tokens"}, usage},
			status: "incomplete"},
		{name: "undeclared_tool_dropped", req: Request{Tools: weather, ParallelToolCalls: true},
			steps:  []step{startCall("call_X", "delete_files"), args(`{"path":"/"}`), usage},
			status: "failed"},
		{name: "tool_choice_none", req: Request{Tools: weather, ToolChoice: ToolChoice{Mode: ChoiceNone}, ParallelToolCalls: true},
			steps:  []step{text("I will not call tools."), startCall("call_A", "get_weather"), args(`{"city":"Rome"}`), usage},
			status: "completed"},
		{name: "reasoning_then_custom_call", req: Request{Tools: codexTools, ParallelToolCalls: true, Include: []string{"reasoning.encrypted_content"}},
			steps: []step{{op: "reasoning"}, {op: "summary", a: "0", b: "Patching "}, {op: "summary", a: "0", b: "the file."},
				{op: "summary", a: "1", b: "Then listing."}, {op: "encrypted", a: "gAAAA-opaque"},
				{op: "custom", a: "call_P", b: "apply_patch"}, args("*** Begin Patch\n"), args("*** End Patch\n"),
				startCall("call_L", "list_agents"), {op: "client", a: "shell_call", b: `{"call_id":"call_S","action":{"commands":["ls"],"timeout_ms":null,"max_output_length":null},"environment":null}`}, usage},
			status: "completed"},
		{name: "reasoning_without_include", req: Request{ParallelToolCalls: true},
			steps:  []step{{op: "reasoning"}, {op: "summary", a: "0", b: "Thinking."}, {op: "encrypted", a: "gAAAA-not-asked-for"}, text("Done.")},
			status: "completed"},
		{name: "receipt_in_band", req: Request{ParallelToolCalls: true},
			steps:  []step{text("Paid answer.")},
			extra:  map[string]json.RawMessage{"x402": json.RawMessage(`{"success":true,"transaction":"0xabc","network":"eip155:84532"}`)},
			status: "completed"},
	}
}

// codexTools are tools of the kinds Codex declares: a custom tool, a
// function of a namespace, and the built-in shell.
var codexTools = []Tool{
	{Kind: ToolCustom, Name: "apply_patch", Description: "Edit files.", HasDesc: true, Format: json.RawMessage(`{"type":"grammar","syntax":"lark","definition":"start: /.+/"}`)},
	{Name: "list_agents", Namespace: "multi_agent", Strict: true, Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
	{Kind: ToolShell, Name: "shell", Config: json.RawMessage(`{"type":"shell"}`)},
}

func gjsonGet(raw, path string) string { return gjson.Get(raw, path).Str }

// drive plays the script on em and ends the response.
func (gc goldenCase) drive(t *testing.T, em *Emitter) {
	t.Helper()
	for _, s := range gc.steps {
		var err error
		switch s.op {
		case "text":
			err = em.Text(s.a)
		case "call":
			err = em.StartCall(s.a, s.b)
		case "args":
			err = em.Arguments(s.a)
		case "custom":
			err = em.StartCustomCall(s.a, s.b)
		case "reasoning":
			err = em.StartReasoning()
		case "summary":
			err = em.ReasoningSummary(int(s.a[0]-'0'), s.b)
		case "encrypted":
			err = em.ReasoningEncrypted(s.a)
		case "client":
			err = em.ClientCall(s.a, gjsonGet(s.b, "call_id"), []byte(s.b))
		case "usage":
			em.SetUsage(Usage{InputTokens: 20, CachedTokens: 4, OutputTokens: 7, ReasoningTokens: 3})
		case "incomplete":
			em.Incomplete(s.a)
		}
		if err != nil {
			t.Fatalf("%s %q: %v", s.op, s.a, err)
		}
	}
	var err error
	if gc.fail != nil {
		err = em.Fail(gc.fail, gc.extra)
	} else {
		err = em.Complete(gc.extra)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// run drives an emitter over an SSE writer and returns the stream.
func (gc goldenCase) run(t *testing.T) (*Emitter, *httptest.ResponseRecorder) {
	t.Helper()
	w := httptest.NewRecorder()
	sse := NewSSEWriter(w)
	em := NewEmitter(&gc.req, sse, testOptions())
	gc.drive(t, em)
	if err := sse.Done(); err != nil {
		t.Fatal(err)
	}
	return em, w
}

func TestGoldenStreams(t *testing.T) {
	for _, gc := range goldenCases() {
		t.Run(gc.name, func(t *testing.T) {
			em, w := gc.run(t)
			body := w.Body.Bytes()
			path := filepath.Join("testdata", "golden", gc.name+".sse")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(body, want) {
				t.Fatalf("stream differs from %s (run with -update after checking):\n%s", path, body)
			}

			if got := w.Header().Get("Content-Type"); got != "text/event-stream" {
				t.Fatalf("Content-Type %q", got)
			}
			events := parseSSE(t, body)
			terminal := checkStream(t, events)
			// ONE path builds both: the non-streaming object is the terminal event's.
			if !bytes.Equal(terminal, em.Response()) {
				t.Fatalf("Response() differs from the terminal event:\n%s\n%s", em.Response(), terminal)
			}
			if err := schemas.Validate("response", em.Response()); err != nil {
				t.Fatal(err)
			}
			if em.Status() != gc.status {
				t.Fatalf("status %s, want %s", em.Status(), gc.status)
			}
		})
	}
}

// parseSSE splits a stream into its events, checking the framing of
// docs/wire.md §3 and the final [DONE].
func parseSSE(t *testing.T, body []byte) []recorded {
	t.Helper()
	s := string(body)
	if !strings.HasSuffix(s, "data: [DONE]\n\n") {
		t.Fatalf("stream does not end with [DONE]")
	}
	s = strings.TrimSuffix(s, "data: [DONE]\n\n")
	var out []recorded
	for _, frame := range strings.SplitAfter(s, "\n\n") {
		if frame == "" {
			continue
		}
		lines := strings.Split(strings.TrimSuffix(frame, "\n\n"), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "event: ") || !strings.HasPrefix(lines[1], "data: ") {
			t.Fatalf("bad frame %q", frame)
		}
		out = append(out, recorded{typ: strings.TrimPrefix(lines[0], "event: "), data: []byte(strings.TrimPrefix(lines[1], "data: "))})
	}
	return out
}

func TestGoldenFailuresCarryBothErrorShapes(t *testing.T) {
	for _, gc := range goldenCases() {
		if gc.status != "failed" {
			continue
		}
		t.Run(gc.name, func(t *testing.T) {
			_, w := gc.run(t)
			events := parseSSE(t, w.Body.Bytes())
			if n := len(events); n < 2 || events[n-2].typ != "error" || events[n-1].typ != "response.failed" {
				t.Fatalf("last events %v", events[max(0, len(events)-2):])
			}
			var ev struct {
				Code, Message string
				Error         struct{ Type, Code, Message string }
			}
			if err := json.Unmarshal(events[len(events)-2].data, &ev); err != nil {
				t.Fatal(err)
			}
			if ev.Code == "" || ev.Message == "" || ev.Error.Message != ev.Message || ev.Error.Type == "" {
				t.Fatalf("error event %s", events[len(events)-2].data)
			}
		})
	}
}

// flushCounter is a ResponseWriter that records every Write and Flush.
type flushCounter struct {
	header http.Header
	status int
	log    []string
}

func (f *flushCounter) Header() http.Header { return f.header }
func (f *flushCounter) WriteHeader(code int) {
	f.status = code
	f.log = append(f.log, "header")
}
func (f *flushCounter) Write(b []byte) (int, error) {
	if f.status == 0 {
		f.WriteHeader(200)
	}
	f.log = append(f.log, "write:"+string(b))
	return len(b), nil
}
func (f *flushCounter) Flush() { f.log = append(f.log, "flush") }

func TestSSEWriterOneWriteAndFlushPerEvent(t *testing.T) {
	w := &flushCounter{header: http.Header{"X-Request-Id": {"req_1"}}}
	sse := NewSSEWriter(w)
	if sse.Started() || w.status != 0 {
		t.Fatal("headers sent before the first event")
	}
	em := NewEmitter(&Request{}, sse, testOptions())
	em.SetUsage(Usage{})
	if w.status != 0 {
		t.Fatal("headers sent before the first output")
	}
	_ = em.Text("a")
	_ = em.Complete(nil)
	_ = sse.Done()
	_ = sse.Done()
	if w.status != 200 || w.header.Get("Content-Type") != "text/event-stream" ||
		w.header.Get("Cache-Control") != "no-cache" || w.header.Get("X-Accel-Buffering") != "no" ||
		w.header.Get("X-Request-Id") != "req_1" {
		t.Fatalf("status %d headers %v", w.status, w.header)
	}
	if w.log[0] != "header" {
		t.Fatalf("log starts with %q", w.log[0])
	}
	rest := w.log[1:]
	if len(rest)%2 != 0 {
		t.Fatalf("writes and flushes do not pair: %q", rest)
	}
	for i := 0; i < len(rest); i += 2 {
		if !strings.HasPrefix(rest[i], "write:") || rest[i+1] != "flush" {
			t.Fatalf("entry %d: %q then %q, want one write then a flush", i, rest[i], rest[i+1])
		}
		frame := strings.TrimPrefix(rest[i], "write:")
		if !strings.HasSuffix(frame, "\n\n") || strings.Count(frame, "\n") != 3 && frame != "data: [DONE]\n\n" {
			t.Fatalf("frame %q", frame)
		}
	}
	if last := rest[len(rest)-2]; last != "write:data: [DONE]\n\n" {
		t.Fatalf("last write %q (Done twice must write once)", last)
	}
	if n := strings.Count(strings.Join(rest, ""), "[DONE]"); n != 1 {
		t.Fatalf("[DONE] written %d times", n)
	}
}

func TestDiscardAndStreamBuildTheSameResponse(t *testing.T) {
	for _, gc := range goldenCases() {
		t.Run(gc.name, func(t *testing.T) {
			streamed, _ := gc.run(t)
			em := NewEmitter(&gc.req, Discard{}, testOptions())
			gc.drive(t, em)
			if !bytes.Equal(em.Response(), streamed.Response()) {
				t.Fatalf("non-streaming:\n%s\nstreaming:\n%s", em.Response(), streamed.Response())
			}
		})
	}
}

// nopStream is a ResponseWriter that keeps nothing, to measure the SSE path.
type nopStream struct{ h http.Header }

func (n nopStream) Header() http.Header       { return n.h }
func (nopStream) WriteHeader(int)             {}
func (nopStream) Write(b []byte) (int, error) { return len(b), nil }
func (nopStream) Flush()                      {}

// BenchmarkEmitterTextSSE is BenchmarkEmitterText through the SSE writer:
// 100 deltas, each framed, written and flushed.
func BenchmarkEmitterTextSSE(b *testing.B) {
	req := &Request{Tools: toolsNamed("search", "weather"), ParallelToolCalls: true}
	b.ReportAllocs()
	for b.Loop() {
		sse := NewSSEWriter(nopStream{h: http.Header{}})
		em := NewEmitter(req, sse, EmitterOptions{Model: "m", IDs: counterIDs()})
		for range 100 {
			_ = em.Text("token ")
		}
		_ = em.Complete(nil)
		_ = sse.Done()
	}
}
