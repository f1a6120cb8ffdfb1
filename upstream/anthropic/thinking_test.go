package anthropic

import (
	"strings"
	"testing"

	"github.com/farebox/farebox/internal/testkit/fakeanthropic"
	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// conversationTurn runs one turn of a tool conversation and returns the
// next turn's input: what was sent, the answer's items, and an output for
// each call.
func conversationTurn(t *testing.T, m *Model, input string) (string, gjson.Result) {
	t.Helper()
	body := `{"model":"claude","reasoning":{"effort":"low"},"include":["reasoning.encrypted_content"],"tools":` + weatherTools + `,"input":[` + input + `]}`
	o := run(t, m, body, responses.ProviderView{})
	if o.err != nil {
		t.Fatal(o.err)
	}
	for _, it := range o.final.Get("output").Array() {
		input += "," + it.Raw
	}
	for _, c := range o.final.Get(`output.#(type=="function_call")#.call_id`).Array() {
		input += `,{"type":"function_call_output","call_id":"` + c.Str + `","output":"done"}`
	}
	return input, o.final
}

// Three turns of tool calls with thinking: every thinking block comes back
// with the same signature byte for byte (the fake verifies each one, in
// every earlier turn), redacted_thinking is kept, and the answer ends in
// text.
func TestThreeTurnToolConversationKeepsEverySignature(t *testing.T) {
	s := newFake(t, fakeanthropic.Options{})
	m := newModel(t, s, Config{Model: "call+rounds=2+redacted", Thinking: Thinking{Mode: ThinkingEnabled}})
	input := `{"role":"user","content":"Weather and time?"}`
	var finals []gjson.Result
	for range 3 {
		var final gjson.Result
		input, final = conversationTurn(t, m, input)
		finals = append(finals, final)
	}
	for i, f := range finals[:2] {
		items := f.Get("output").Array()
		if len(items) != 4 || items[0].Get("type").Str != "reasoning" || items[1].Get("type").Str != "reasoning" {
			t.Fatalf("turn %d output %s", i+1, f.Get("output").Raw)
		}
		thought := items[0].Get("summary.0.text").Str
		if got, want := items[0].Get("encrypted_content").Str, prefixThinking+s.Sign(thought); got != want {
			t.Errorf("turn %d encrypted_content %q, want %q", i+1, got, want)
		}
		if !strings.HasPrefix(items[1].Get("encrypted_content").Str, prefixRedacted) {
			t.Errorf("turn %d redacted item %s", i+1, items[1].Raw)
		}
	}
	if text := finals[2].Get(`output.#(type=="message").content.0.text`).Str; !strings.HasPrefix(text, "Tool results:") {
		t.Errorf("third turn %s", finals[2].Get("output").Raw)
	}
	last := sent(t, s)
	if req := last.Get("thinking"); req.Get("type").Str != "enabled" || req.Get("budget_tokens").Int() != DefaultBudgets["low"] {
		t.Errorf("thinking %s", req.Raw)
	}
	var signed int
	for _, msg := range last.Get(`messages.#(role=="assistant")#`).Array() {
		blocks := msg.Get("content").Array()
		if blocks[0].Get("type").Str != "thinking" || blocks[0].Get("signature").Str != s.Sign(blocks[0].Get("thinking").Str) ||
			blocks[1].Get("type").Str != "redacted_thinking" {
			t.Errorf("assistant turn sent as %s", msg.Raw)
		}
		signed++
	}
	if signed != 2 {
		t.Errorf("%d assistant turns sent back, want 2", signed)
	}
}

// An altered signature is refused by Anthropic, and the client sees that
// refusal as its own 400, in Anthropic's words.
func TestAlteredSignatureIsRefused(t *testing.T) {
	s := newFake(t, fakeanthropic.Options{})
	m := newModel(t, s, Config{Model: "call", Thinking: Thinking{Mode: ThinkingAdaptive}})
	input, first := conversationTurn(t, m, `{"role":"user","content":"Weather?"}`)
	if req := sent(t, s); req.Get("thinking.type").Str != "adaptive" || req.Get("output_config.effort").Str != "low" {
		t.Errorf("adaptive thinking sent as %s %s", req.Get("thinking").Raw, req.Get("output_config").Raw)
	}
	enc := first.Get("output.0.encrypted_content").Str
	altered := strings.Replace(input, enc, enc[:len(enc)-2]+"AA", 1)
	if altered == input {
		t.Fatal("no signature to alter")
	}
	body := `{"model":"claude","reasoning":{"effort":"low"},"include":["reasoning.encrypted_content"],"tools":` + weatherTools + `,"input":[` + altered + `]}`
	o := run(t, m, body, responses.ProviderView{})
	e := asError(t, o.err)
	if o.started || e.Status != 400 || e.Type != "invalid_request_error" || !strings.Contains(e.Message, "Invalid `signature`") {
		t.Errorf("started %v, error %d %s %q", o.started, e.Status, e.Type, e.Message)
	}
}

// A client that did not keep the encrypted reasoning still gets an answer:
// thinking is left off for the turn Anthropic could not resume.
func TestThinkingOffWhenTheSignatureWasNotKept(t *testing.T) {
	s := newFake(t, fakeanthropic.Options{})
	m := newModel(t, s, Config{Model: "call", Thinking: Thinking{Mode: ThinkingEnabled}})
	body := `{"model":"claude","reasoning":{"effort":"high"},"tools":` + weatherTools + `,"input":[{"role":"user","content":"Weather?"},
		{"type":"reasoning","summary":[]},
		{"type":"function_call","call_id":"toolu_x","name":"get_weather","arguments":"{}"},
		{"type":"function_call_output","call_id":"toolu_x","output":"sunny"}]}`
	o := run(t, m, body, responses.ProviderView{})
	if o.err != nil {
		t.Fatal(o.err)
	}
	if sent(t, s).Get("thinking").Exists() {
		t.Errorf("thinking sent: %s", sent(t, s).Raw)
	}
}
