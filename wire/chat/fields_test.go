package chat

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/schemas"
)

// specFields lists the top-level properties of the vendored spec's
// CreateChatCompletionRequest, through its allOf and $refs.
func specFields(t *testing.T) []string {
	t.Helper()
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(schemas.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(raw json.RawMessage)
	walk = func(raw json.RawMessage) {
		var s struct {
			Ref        string                     `json:"$ref"`
			AllOf      []json.RawMessage          `json:"allOf"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatal(err)
		}
		if s.Ref != "" {
			walk(doc.Components.Schemas[strings.TrimPrefix(s.Ref, "#/components/schemas/")])
		}
		for _, a := range s.AllOf {
			walk(a)
		}
		for k := range s.Properties {
			seen[k] = true
		}
	}
	root, ok := doc.Components.Schemas["CreateChatCompletionRequest"]
	if !ok {
		t.Fatal("the vendored spec has no CreateChatCompletionRequest")
	}
	walk(root)
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestEveryChatRequestFieldOfTheSpecIsClassified(t *testing.T) {
	spec := specFields(t)
	inSpec := map[string]bool{}
	for _, k := range spec {
		inSpec[k] = true
		if _, ok := Fields[k]; !ok {
			t.Errorf("the spec's CreateChatCompletionRequest.%s is not classified in Fields", k)
		}
	}
	for k := range Fields {
		if !inSpec[k] {
			t.Errorf("Fields classifies %s, which the spec no longer has", k)
		}
	}
}

// TestClassesMatchDecode holds Fields to what Decode does: a refused field
// with a real value is a 400 naming it, a dropped one is accepted.
func TestClassesMatchDecode(t *testing.T) {
	samples := map[string]string{
		"n": "2", "logprobs": "true", "top_logprobs": "2", "logit_bias": `{"50256":-100}`,
		"stop": `"\n"`, "audio": `{"voice":"alloy","format":"mp3"}`, "modalities": `["audio"]`,
		"functions": `[{"name":"f"}]`, "function_call": `"auto"`,
		"store": "true", "seed": "1", "prediction": `{"type":"content","content":"x"}`,
	}
	for key, class := range Fields {
		if class != Refused && class != Dropped {
			continue
		}
		v, ok := samples[key]
		if !ok {
			t.Errorf("no sample for %s field %s", class, key)
			continue
		}
		body := `{"model":"m","messages":[{"role":"user","content":"hi"}],"` + key + `":` + v + `}`
		_, err := Decode([]byte(body), responses.HostedDrop)
		switch {
		case class == Refused && (err == nil || err.Param != key):
			t.Errorf("refused %s: got %v", key, err)
		case class == Dropped && err != nil:
			t.Errorf("dropped %s: got %v", key, err)
		}
	}
}
