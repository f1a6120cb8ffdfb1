package schemas

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every event and final response object in the repository's golden
// streams (the emitter's, and each upstream kind's mapping of its
// fixtures) validates against OpenAI's spec, and a stream's only non-JSON
// data is the [DONE] deviation after the terminal event.
func TestConformanceGoldenStreams(t *testing.T) {
	sse, _ := filepath.Glob("../responses/testdata/golden/*.sse")
	txt, _ := filepath.Glob("../upstream/*/testdata/streams/*.txt")
	if len(sse) == 0 || len(txt) == 0 {
		t.Fatalf("golden streams not found (%d .sse, %d .txt)", len(sse), len(txt))
	}
	for _, f := range append(sse, txt...) {
		t.Run(f, func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			head, final, _ := bytes.Cut(raw, []byte("--- final response\n"))
			terminal, done := false, false
			sc := bufio.NewScanner(bytes.NewReader(head))
			sc.Buffer(nil, 1<<22)
			for sc.Scan() {
				line := strings.TrimPrefix(sc.Text(), "data: ")
				switch {
				case line == "[DONE]":
					if !terminal || done {
						t.Errorf("[DONE] (deviation %s) not once after the terminal event", DeviationDone)
					}
					done = true
				case strings.HasPrefix(line, "{"):
					if terminal {
						t.Errorf("an event after the terminal one: %.200s", line)
					}
					if err := ValidateOpenAIEvent([]byte(line)); err != nil {
						t.Errorf("%v\n%.300s", err, line)
					}
					for _, typ := range []string{`"response.completed"`, `"response.incomplete"`, `"response.failed"`} {
						terminal = terminal || strings.HasPrefix(line, `{"type":`+typ)
					}
				}
			}
			if len(bytes.TrimSpace(final)) > 0 {
				if err := ValidateOpenAI("Response", final); err != nil {
					t.Errorf("final response: %v", err)
				}
			}
		})
	}
}

// What the spec does not allow fails unless a deviation names it: an
// unknown field, a code outside ResponseErrorCode, usage without
// cache_write_tokens, a misspelt event.
func TestConformanceUnnamedDeviationsFail(t *testing.T) {
	usage := `{"input_tokens":1,"input_tokens_details":{"cached_tokens":0,"cache_write_tokens":0},"output_tokens":1,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":2}`
	resp := `{"id":"resp_1","object":"response","created_at":1,"status":"failed","error":{"code":"server_error","message":"m"},"incomplete_details":null,"instructions":null,"model":"m","tools":[],"output":[],"parallel_tool_calls":true,"metadata":{},"tool_choice":"auto","temperature":1,"top_p":1,"usage":` + usage + `}`
	if err := ValidateOpenAI("Response", []byte(resp)); err != nil {
		t.Fatalf("the baseline does not validate: %v", err)
	}
	for name, doc := range map[string]string{
		"an unknown field":          strings.Replace(resp, `"model":"m"`, `"model":"m","farebox_extra":1`, 1),
		"upstream_error code":       strings.Replace(resp, `"code":"server_error"`, `"code":"upstream_error"`, 1),
		"usage without cache_write": strings.Replace(resp, `,"cache_write_tokens":0`, ``, 1),
		"an output item field":      strings.Replace(resp, `"output":[]`, `"output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[],"extra":true}]`, 1),
	} {
		if err := ValidateOpenAI("Response", []byte(doc)); err == nil {
			t.Errorf("%s validated", name)
		}
	}
	if err := ValidateOpenAIEvent([]byte(`{"type":"response.output_text.deltas","sequence_number":1}`)); err == nil {
		t.Error("an event type the spec lacks validated")
	}
	if err := ValidateOpenAI("Model", []byte(`{"id":"m","object":"model","created":1,"owned_by":"x","cost":1}`)); err == nil {
		t.Error("a model field no deviation names validated")
	}
}

// A deviation whose target the spec lacks, or already admits, stops the
// suite: a refreshed spec that fixed or dropped something must retire the
// deviation, not hide behind it.
func TestConformanceStaleDeviationsFail(t *testing.T) {
	for _, d := range Deviations {
		if d.Patch == nil {
			continue
		}
		if _, err := compileOpenAI(openAPIDoc, []Deviation{d, d}); err == nil {
			t.Errorf("deviation %s applied twice without complaint", d.Name)
		}
	}
	gone := Deviation{Name: "gone", Patch: nullable("NoSuchComponent", "x")}
	if _, err := compileOpenAI(openAPIDoc, []Deviation{gone}); err == nil {
		t.Error("a deviation on a missing component compiled")
	}
	if _, err := compileOpenAI(openAPIDoc, Deviations); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, d := range Deviations {
		if d.Name == "" || d.Reason == "" || names[d.Name] {
			t.Errorf("deviation %q: every deviation has a unique name and a reason", d.Name)
		}
		names[d.Name] = true
	}
}

// The vendored document names the commit it was cut from.
func TestConformanceSourceIsRecorded(t *testing.T) {
	if c := SourceCommit(); len(c) != 40 {
		t.Errorf("x-farebox-source.commit = %q, want a 40-digit commit", c)
	}
}
