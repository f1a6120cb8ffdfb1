package responses

import (
	"bytes"
	"testing"
)

// FuzzTools fuzzes the tools array and tool_choice of an otherwise valid
// request: Parse never panics, and what it accepts is canonical, i.e. a
// request rebuilt from the echoes (ToolsJSON, ToolChoiceJSON) parses to the
// same tools and choice, so the echo and the upstream see one policy.
func FuzzTools(f *testing.F) {
	for _, seed := range [][2]string{
		{`[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]`, `"auto"`},
		{`[{"type":"function","function":{"name":"chat_style","description":"d","parameters":{"type":"object"},"strict":true}}]`, `{"type":"function","function":{"name":"chat_style"}}`},
		{`[{"type":"function","name":"a","description":null,"strict":false},{"type":"function","name":"b"}]`, `{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"b"}]}`},
		{`[{"type":"function","name":"x","parameters":{"a" : [1, 2.50, "\u00e9\ud83d\ude00"], "b":{}}}]`, `"required"`},
		{`[{"type":"web_search"}]`, `"none"`},
		{`[{"type":"custom","name":"c"}]`, `{"type":"function","name":"missing"}`},
		{`[{"type":"namespace","name":"ns","description":"d","tools":[{"type":"function","name":"a"}]},{"type":"custom","name":"p","format":{"type":"grammar","syntax":"lark","definition":"x"}}]`, `{"type":"custom","name":"p"}`},
		{`[{"type":"shell"},{"type":"computer_use_preview","display_width":1024,"display_height":768,"environment":"linux"},{"type":"local_shell"},{"type":"apply_patch"}]`, `{"type":"allowed_tools","mode":"auto","tools":[{"type":"shell"},{"type":"apply_patch"}]}`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, tools, choice string) {
		r, err := Parse(requestWith(tools, choice))
		if err != nil {
			if err.Status != 400 || err.Message == "" {
				t.Fatalf("malformed error %+v", err)
			}
			return
		}
		checkRequestInvariants(t, r)
		again, err := Parse(requestWith(string(ToolsJSON(r.Tools)), string(r.ToolChoiceJSON())))
		if err != nil {
			t.Fatalf("the echo of accepted tools is refused: %v\ntools %s\nchoice %s", err, ToolsJSON(r.Tools), r.ToolChoiceJSON())
		}
		if len(again.Tools) != len(r.Tools) {
			t.Fatalf("%d tools, then %d", len(r.Tools), len(again.Tools))
		}
		for i, a := range r.Tools {
			b := again.Tools[i]
			if a.Name != b.Name || a.Description != b.Description || a.HasDesc != b.HasDesc || a.Strict != b.Strict || !bytes.Equal(a.Parameters, b.Parameters) {
				t.Fatalf("tool %d changed on a round trip: %+v -> %+v", i, a, b)
			}
		}
		if !bytes.Equal(r.ToolChoiceJSON(), again.ToolChoiceJSON()) {
			t.Fatalf("tool_choice %s became %s", r.ToolChoiceJSON(), again.ToolChoiceJSON())
		}
	})
}

// requestWith is a minimal valid request around the fuzzed parts; an empty
// part is left out.
func requestWith(tools, choice string) []byte {
	b := []byte(`{"model":"m","input":"hi"`)
	if tools != "" {
		b = append(append(b, `,"tools":`...), tools...)
	}
	if choice != "" {
		b = append(append(b, `,"tool_choice":`...), choice...)
	}
	return append(b, '}')
}
