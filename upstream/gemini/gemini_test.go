package gemini

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/fakegemini"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

const weatherTools = `"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}},` +
	`{"type":"function","name":"get_time","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]`

// A text answer, streamed and whole: the key in x-goog-api-key (no bearer),
// the method in the path, thoughts as a reasoning summary, and usage with
// the cached and thought tokens where farebox prices them.
func TestTextAnswerWithThoughtsAndUsage(t *testing.T) {
	s := newFake(t, fakegemini.Options{Usage: fakegemini.Usage{Prompt: 40, Cached: 30, Candidates: 9, Thoughts: 7}})
	m := newModel(t, s, Config{Model: "text"})
	body := `{"model":"gemini-2.5-flash","reasoning":{"summary":"auto"},"input":"Hi"}`
	for _, stream := range []bool{false, true} {
		o := once(t, m, body, stream)
		if o.err != nil {
			t.Fatal(o.err)
		}
		out := o.final.Get("output")
		if got := out.Get(`#(type=="message").content.0.text`).Str; got != fakegemini.DefaultText {
			t.Errorf("stream %v: text %q in %s", stream, got, out.Raw)
		}
		if got := out.Get(`#(type=="reasoning").summary.0.text`).Str; got != fakegemini.ThoughtText {
			t.Errorf("stream %v: thought %q", stream, got)
		}
		u := o.usage
		if u.InputTokens != 40 || u.CachedTokens != 30 || u.OutputTokens != 16 || u.ReasoningTokens != 7 {
			t.Errorf("stream %v: usage %+v", stream, u)
		}
		r := sent(t, s)
		method := map[bool]string{false: "text:generateContent", true: "text:streamGenerateContent"}[stream]
		if r.Path != method || r.Header.Get("X-Goog-Api-Key") != "gm-operator" || r.Header.Get("Authorization") != "" {
			t.Errorf("stream %v: path %q headers %v", stream, r.Path, r.Header)
		}
		if !gjson.GetBytes(r.Body, "generationConfig.thinkingConfig.includeThoughts").Bool() {
			t.Errorf("includeThoughts not asked: %s", r.Body)
		}
	}
}

// A three-turn tool conversation over the Responses form: each turn's
// parallel calls come with a signed reasoning item, the items go back as
// they came, and the fake (which verifies each signature) accepts the
// conversation; an altered signature is Gemini's 400, passed on as the
// client's error.
func TestToolRoundTripKeepsThoughtSignatures(t *testing.T) {
	for _, model := range []string{"call+rounds=2", "call+rounds=2+noid"} {
		for _, stream := range []bool{false, true} {
			s := newFake(t, fakegemini.Options{})
			m := newModel(t, s, Config{Model: model})
			input := `[{"role":"user","content":"Weather and time in Paris?"}]`
			var final gjson.Result
			for turn := 1; turn <= 3; turn++ {
				body := `{"model":"gemini-3-pro","include":["reasoning.encrypted_content"],` + weatherTools + `,"input":` + input + `}`
				o := once(t, m, body, stream)
				if o.err != nil {
					t.Fatalf("%s stream %v turn %d: %v", model, stream, turn, o.err)
				}
				final = o.final
				out := o.final.Get("output").Array()
				if turn == 3 {
					break
				}
				if len(out) != 3 || out[0].Get("type").Str != "reasoning" ||
					!strings.HasPrefix(out[0].Get("encrypted_content").Str, "gemini.thought:") || out[1].Get("type").Str != "function_call" {
					t.Fatalf("%s turn %d: %s", model, turn, o.final.Get("output").Raw)
				}
				for _, it := range out {
					input, _ = sjson.SetRaw(input, "-1", it.Raw)
					if it.Get("type").Str == "function_call" {
						input, _ = sjson.SetRaw(input, "-1", `{"type":"function_call_output","call_id":"`+it.Get("call_id").Str+`","output":"sunny"}`)
					}
				}
			}
			if txt := final.Get(`output.#(type=="message").content.0.text`).Str; !strings.Contains(txt, `get_time said {"output":"sunny"}`) {
				t.Errorf("%s: last turn %s", model, final.Raw)
			}
			if c := gjson.GetBytes(sent(t, s).Body, "contents.1.parts.0"); !c.Get("thoughtSignature").Exists() || !c.Get("functionCall").Exists() {
				t.Errorf("%s: the signature did not go back on the first call: %s", model, sent(t, s).Body)
			}
			altered := strings.Replace(input, "gemini.thought:", "gemini.thought:x", 1)
			o := once(t, m, `{"model":"gemini-3-pro",`+weatherTools+`,"input":`+altered+`}`, stream)
			if e := asError(t, o.err); e.Status != http.StatusBadRequest || !strings.Contains(e.Message, "thought signature") {
				t.Errorf("altered signature: %+v", e)
			}
		}
	}
}

// Safety and length stops are never a silent empty answer.
func TestFinishReasons(t *testing.T) {
	s := newFake(t, fakegemini.Options{})
	for _, tc := range []struct {
		model, status, reason, refusal string
		fails                          bool
	}{
		{model: "safety", status: "completed", refusal: "SAFETY"},
		{model: "blocked", status: "completed", refusal: "blocked the prompt (SAFETY)"},
		{model: "finish:SAFETY", status: "incomplete", reason: "content_filter"},
		{model: "finish:RECITATION", status: "incomplete", reason: "content_filter"},
		{model: "finish:MAX_TOKENS", status: "incomplete", reason: "max_output_tokens"},
		{model: "finish:MALFORMED_FUNCTION_CALL", fails: true},
		{model: "empty", fails: true},
	} {
		m := newModel(t, s, Config{Model: tc.model})
		for _, stream := range []bool{false, true} {
			o := once(t, m, `{"model":"gemini-2.5-flash","input":"Hi"}`, stream)
			if tc.fails {
				if o.err == nil || asError(t, o.err).Status != http.StatusBadGateway {
					t.Errorf("%s stream %v: %v %s", tc.model, stream, o.err, o.final.Raw)
				}
				continue
			}
			if o.err != nil {
				t.Fatalf("%s: %v", tc.model, o.err)
			}
			f := o.final
			if f.Get("status").Str != tc.status || f.Get("incomplete_details.reason").Str != tc.reason {
				t.Errorf("%s stream %v: %s", tc.model, stream, f.Raw)
			}
			if got := f.Get(`output.0.content.0.refusal`).Str; tc.refusal != "" && !strings.Contains(got, tc.refusal) {
				t.Errorf("%s stream %v: refusal %q in %s", tc.model, stream, got, f.Raw)
			}
		}
	}
}

// Gemini's errors as the client sees them: a 429 with its RetryInfo delay,
// an overloaded model a supplier failure, a 400 the client's error in
// Gemini's words, a bad key not the client's fault, a mid-stream error
// chunk a failed response.
func TestErrors(t *testing.T) {
	s := newFake(t, fakegemini.Options{})
	body := `{"model":"gemini-2.5-flash","input":"Hi"}`
	e := asError(t, once(t, newModel(t, s, Config{Model: "status:429+retry_after=7"}), body, true).err)
	if e.Status != 503 || e.Code != "rate_limit_exceeded" || e.RetryAfter != 7*time.Second {
		t.Errorf("429: %+v", e)
	}
	e = asError(t, once(t, newModel(t, s, Config{Model: "status:503"}), body, false).err)
	if e.Status != 502 || !strings.Contains(e.Message, "UNAVAILABLE") {
		t.Errorf("503: %+v", e)
	}
	e = asError(t, once(t, newModel(t, s, Config{Model: "status:400"}), body, false).err)
	if e.Status != 400 || e.Code != "INVALID_ARGUMENT" || !strings.Contains(e.Message, "fake failure 400") {
		t.Errorf("400: %+v", e)
	}
	e = asError(t, once(t, newModel(t, s, Config{Model: "text", APIKey: "wrong"}), body, false).err)
	if e.Status != 502 || strings.Contains(e.Message, "wrong") {
		t.Errorf("bad key: %+v", e)
	}
	o := once(t, newModel(t, s, Config{Model: "error_midstream"}), body, true)
	if !o.started || o.final.Get("status").Str != "failed" || !strings.Contains(o.final.Get("error.message").Str, "overloaded") {
		t.Errorf("mid-stream: %v %s", o.err, o.final.Raw)
	}
}
