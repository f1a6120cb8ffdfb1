package scripted

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/farebox/farebox/responses"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// With text.format json_schema the answer is JSON that the schema accepts
// (structured output clients such as generateObject parse it).
func TestStructuredOutputFollowsTheSchema(t *testing.T) {
	schema := `{"type":"object","properties":{"city":{"type":"string"},"temp":{"type":"integer","minimum":-50,"maximum":60}},"required":["city","temp"],"additionalProperties":false}`
	req, perr := responses.Parse([]byte(`{"model":"m","input":"weather?","text":{"format":{"type":"json_schema","name":"w","schema":` + schema + `,"strict":true}}}`))
	if perr != nil {
		t.Fatal(perr)
	}
	text := makePlan(req).text
	var doc any
	if err := json.Unmarshal([]byte(text), &doc); err != nil {
		t.Fatalf("answer %q is not JSON: %v", text, err)
	}
	sch, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("s.json", sch); err != nil {
		t.Fatal(err)
	}
	compiled, err := c.Compile("s.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := compiled.Validate(doc); err != nil {
		t.Errorf("answer %s does not validate: %v", text, err)
	}

	req, _ = responses.Parse([]byte(`{"model":"m","input":"hi","text":{"format":{"type":"json_object"}}}`))
	if got := makePlan(req).text; got != `{"answer":"You said: hi"}` {
		t.Errorf("json_object answer %s", got)
	}
}
