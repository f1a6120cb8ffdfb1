package responses

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// FuzzParse checks that Parse never panics, always answers with exactly one
// of a request or an OpenAI-shaped 400, and that every request it accepts
// holds the invariants the emitter and the upstreams rely on. The seed
// corpus lives in testdata/fuzz/FuzzParse (plus testdata/parse), so plain
// `go test` runs it.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "parse", "*.json"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := Parse(body)
		if (r == nil) == (err == nil) {
			t.Fatalf("Parse returned request %v and error %v", r, err)
		}
		if err != nil {
			if err.Status != 400 || err.Type != "invalid_request_error" || err.Message == "" {
				t.Fatalf("malformed error %+v", err)
			}
			return
		}
		checkRequestInvariants(t, r)
	})
}

// checkRequestInvariants fails t when an accepted request breaks a promise
// Parse makes about it.
func checkRequestInvariants(t *testing.T, r *Request) {
	t.Helper()
	if r.Model == "" || len(r.Input) == 0 {
		t.Fatalf("accepted without model or input: %+v", r)
	}
	names := map[string]bool{}
	for _, tool := range r.Tools {
		if !validName(tool.Name) || names[tool.Name] {
			t.Fatalf("tool name %q invalid or duplicated", tool.Name)
		}
		names[tool.Name] = true
		switch tool.Kind {
		case "", ToolFunction:
			if !gjson.ValidBytes(tool.Parameters) || !gjson.ParseBytes(tool.Parameters).IsObject() {
				t.Fatalf("tool %q parameters not an object: %s", tool.Name, tool.Parameters)
			}
		case ToolCustom:
			if tool.Format != nil && !gjson.ParseBytes(tool.Format).IsObject() {
				t.Fatalf("custom tool %q format not an object: %s", tool.Name, tool.Format)
			}
		default:
			if !gjson.ValidBytes(tool.Config) || !gjson.ParseBytes(tool.Config).IsObject() {
				t.Fatalf("tool %q config not an object: %s", tool.Name, tool.Config)
			}
		}
	}
	for _, echo := range [][]byte{ToolsJSON(r.Tools), r.ToolChoiceJSON(), r.Text, r.Reasoning} {
		if echo != nil && (!gjson.ValidBytes(echo) || strings.ContainsAny(string(echo), "\n\r")) {
			t.Fatalf("echo is not one-line JSON: %q", echo)
		}
	}
	switch c := r.ToolChoice; c.Mode {
	case ChoiceAuto, ChoiceNone:
	case ChoiceRequired:
		if len(r.Tools) == 0 {
			t.Fatal("tool_choice required without tools")
		}
	case ChoiceFunction:
		if !names[c.Name] {
			t.Fatalf("forced tool %q not declared", c.Name)
		}
	case ChoiceAllowed:
		if len(c.Allowed) == 0 {
			t.Fatal("empty allowed_tools")
		}
		for _, n := range c.Allowed {
			if !names[n] {
				t.Fatalf("allowed tool %q not declared", n)
			}
		}
	default:
		t.Fatalf("tool_choice mode %q", c.Mode)
	}
	calls := map[string]int{} // call_id -> outputs seen after it
	for _, it := range r.Input {
		switch it.Type {
		case ItemFunctionCall:
			if _, dup := calls[it.CallID]; dup || it.CallID == "" || it.Name == "" {
				t.Fatalf("bad function_call %+v", it)
			}
			calls[it.CallID] = 0
		case ItemFunctionCallOutput:
			n, ok := calls[it.CallID]
			if !ok || n != 0 {
				t.Fatalf("output %q without its call, or twice", it.CallID)
			}
			calls[it.CallID] = 1
		case ItemMessage:
			switch it.Role {
			case "user", "assistant", "system", "developer":
			default:
				t.Fatalf("role %q", it.Role)
			}
		case ItemReasoning:
			if !gjson.ValidBytes(it.Summary) {
				t.Fatalf("summary %q", it.Summary)
			}
		default:
			t.Fatalf("item type %q", it.Type)
		}
	}
	for id, n := range calls {
		if n != 1 {
			t.Fatalf("call %q has no output", id)
		}
	}
	if len(r.Metadata) > maxMetadataPairs {
		t.Fatalf("%d metadata pairs", len(r.Metadata))
	}
	if v := r.Temperature; v != nil && (*v < 0 || *v > 2) {
		t.Fatalf("temperature %v", *v)
	}
	if v := r.MaxOutputTokens; v != nil && *v < 16 {
		t.Fatalf("max_output_tokens %v", *v)
	}
	if r.Store {
		t.Fatal("store kept")
	}
}
