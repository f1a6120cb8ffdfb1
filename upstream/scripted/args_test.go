package scripted

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// argumentSchemas are tool parameter schemas of the kinds clients send,
// each paired with what the generated arguments must contain beyond
// validating.
var argumentSchemas = []struct {
	name   string
	schema string
	want   []string // substrings of the generated arguments
}{
	{"weather with enum", `{"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string","enum":["fahrenheit","celsius"]}},"required":["city"],"additionalProperties":false}`,
		[]string{`"city":"Paris"`, `"unit":"fahrenheit"`}},
	{"empty object", `{"type":"object","properties":{}}`, []string{`{}`}},
	{"codex exec_command: a short command, integers for numbers", `{"type":"object","properties":{"cmd":{"type":"string"},"workdir":{"type":"string"},"shell":{"type":"string"},"yield_time_ms":{"type":"number"},"max_output_tokens":{"type":"number"},"sandbox_permissions":{"type":"string","enum":["use_default","require_escalated"]}},"required":["cmd"]}`,
		[]string{`"cmd":"ls"`, `"workdir":"."`, `"shell":"sh"`, `"yield_time_ms":1000`, `"max_output_tokens":1000`, `"sandbox_permissions":"use_default"`}},
	{"shell command list", `{"type":"object","properties":{"command":{"type":"array","items":{"type":"string"}},"timeout_ms":{"type":"integer"}},"required":["command"]}`,
		[]string{`"command":["ls"]`, `"timeout_ms":10000`}},
	{"a number with no hint is an integer", `{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}`, []string{`"x":1`}},
	{"no type at the root", `{"properties":{"q":{"type":"string"}}}`, []string{`"q":"weather in Paris"`}},
	{"strict nullable via type list", `{"type":"object","properties":{"note":{"type":["string","null"]},"n":{"type":["null","integer"]}},"required":["note","n"],"additionalProperties":false}`,
		[]string{`"note":"example"`, `"n":3`}},
	{"strict nullable via anyOf", `{"type":"object","properties":{"when":{"anyOf":[{"type":"null"},{"type":"string","format":"date"}]}},"required":["when"],"additionalProperties":false}`,
		[]string{`"when":"2025-01-15"`}},
	{"string formats", `{"type":"object","properties":{"a":{"type":"string","format":"email"},"b":{"type":"string","format":"uri"},"c":{"type":"string","format":"date-time"},"d":{"type":"string","format":"uuid"},"e":{"type":"string","format":"ipv4"}},"required":["a","b","c","d","e"]}`,
		[]string{`ada@example.com`}},
	{"string lengths", `{"type":"object","properties":{"code":{"type":"string","minLength":12},"short":{"type":"string","maxLength":2},"exact":{"type":"string","minLength":3,"maxLength":3}},"required":["code","short","exact"]}`,
		[]string{`"short":"ex"`, `"exact":"exa"`}},
	{"patterns", `{"type":"object","properties":{"zip":{"type":"string","pattern":"^[0-9]{5}$"},"sku":{"type":"string","pattern":"^[A-Z]{3}-\\d{4}$"},"hex":{"type":"string","pattern":"^#[0-9a-f]{6}$","minLength":7},"long":{"type":"string","pattern":"^a+$","minLength":5},"alt":{"type":"string","pattern":"^(red|green)$"}},"required":["zip","sku","hex","long","alt"]}`,
		[]string{`"zip":"00000"`, `"alt":"red"`}},
	{"integer bounds and multipleOf", `{"type":"object","properties":{"count":{"type":"integer","minimum":5,"maximum":10},"even":{"type":"integer","multipleOf":2,"exclusiveMinimum":10},"neg":{"type":"integer","maximum":-3},"tight":{"type":"integer","exclusiveMinimum":0,"exclusiveMaximum":2}},"required":["count","even","neg","tight"]}`,
		[]string{`"count":5`, `"even":12`, `"neg":-3`, `"tight":1`}},
	{"number bounds", `{"type":"object","properties":{"lat":{"type":"number","minimum":-90,"maximum":90},"price":{"type":"number","multipleOf":0.01,"minimum":0.015},"fee":{"type":"number","multipleOf":0.01,"minimum":2.005},"ratio":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},"t":{"type":"number","maximum":0.5}},"required":["lat","price","fee","ratio","t"]}`,
		[]string{`"lat":48.8566`, `"price":1`, `"fee":2.01`, `"ratio":0.5`, `"t":0.5`}},
	{"draft-4 exclusive booleans", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"x":{"type":"integer","minimum":1,"exclusiveMinimum":true}},"required":["x"]}`,
		[]string{`"x":2`}},
	{"arrays", `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"minItems":3,"uniqueItems":true},"ids":{"type":"array","items":{"type":"integer"},"uniqueItems":true,"minItems":2},"none":{"type":"array","maxItems":0},"cities":{"type":"array","items":{"type":"string"}}},"required":["tags","ids","none"]}`,
		[]string{`"none":[]`, `"cities":["Paris"]`}},
	{"tuples", `{"type":"object","properties":{"point":{"type":"array","prefixItems":[{"type":"number"},{"type":"string"}],"items":false,"minItems":2}},"required":["point"]}`,
		[]string{`"point":[1,"example"]`}},
	{"nested objects", `{"type":"object","properties":{"user":{"type":"object","properties":{"name":{"type":"string"},"address":{"type":"object","properties":{"city":{"type":"string"},"geo":{"type":"object","properties":{"lat":{"type":"number"},"deep":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}}}}}}}}`,
		[]string{`"name":"Ada Lovelace"`, `"city":"Paris"`}},
	{"refs to $defs and definitions", `{"type":"object","$defs":{"Item":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"$ref":"#/definitions/Qty"}},"required":["sku","qty"],"additionalProperties":false}},"definitions":{"Qty":{"type":"integer","minimum":1,"maximum":99}},"properties":{"items":{"type":"array","items":{"$ref":"#/$defs/Item"},"minItems":1}},"required":["items"]}`,
		[]string{`"qty":1`}},
	{"recursive tree", `{"$defs":{"Node":{"type":"object","properties":{"label":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"required":["label"]}},"$ref":"#/$defs/Node"}`,
		[]string{`"label":"example"`}},
	{"oneOf tagged union", `{"type":"object","properties":{"shape":{"oneOf":[{"type":"object","properties":{"kind":{"const":"circle"},"r":{"type":"number","exclusiveMinimum":0}},"required":["kind","r"]},{"type":"object","properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]}]}},"required":["shape"]}`,
		[]string{`"kind":"circle"`}},
	{"allOf merged", `{"allOf":[{"type":"object","properties":{"id":{"type":"string","format":"uuid"}},"required":["id"]},{"properties":{"count":{"type":"integer","minimum":3}},"required":["count"]}]}`,
		[]string{`"count":3`}},
	{"const, booleans, null", `{"type":"object","properties":{"v":{"const":2},"flag":{"type":"boolean"},"nothing":{"type":"null"},"mixed":{"enum":[[1,2],{"a":1}]}},"required":["v","flag","nothing","mixed"]}`,
		[]string{`"v":2`, `"flag":true`, `"nothing":null`, `"mixed":[1,2]`}},
	{"additional and pattern properties", `{"type":"object","minProperties":2,"additionalProperties":{"type":"integer","minimum":7},"patternProperties":{"^x_":{"type":"boolean"}},"properties":{"x_on":{}},"required":["x_on"]}`,
		[]string{`"x_on":true`, `"key1":7`}},
	{"maxProperties keeps required", `{"type":"object","maxProperties":1,"properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["b"]}`,
		[]string{`{"b":"example"}`}},
	{"odd property names", `{"type":"object","properties":{"a.b":{"type":"string","minLength":1},"*":{"type":"integer"},"#x":{"type":"boolean"}},"required":["a.b","*","#x"],"additionalProperties":false}`,
		[]string{`"a.b":"example"`, `"*":1`}},
	{"contains", `{"type":"object","properties":{"list":{"type":"array","items":{"type":"integer"},"contains":{"const":42}}},"required":["list"]}`,
		[]string{`"list":[42]`}},
}

func compileSchema(t *testing.T, src string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(src))
	if err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("tool.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("tool.json")
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	return sch
}

func TestArgumentsValidateAgainstSchema(t *testing.T) {
	for _, tc := range argumentSchemas {
		t.Run(tc.name, func(t *testing.T) {
			sch := compileSchema(t, tc.schema)
			got := Arguments(json.RawMessage(tc.schema))
			inst, err := jsonschema.UnmarshalJSON(strings.NewReader(got))
			if err != nil {
				t.Fatalf("arguments %s are not JSON: %v", got, err)
			}
			if _, ok := inst.(map[string]any); !ok {
				t.Errorf("arguments %s are not an object", got)
			}
			if err := sch.Validate(inst); err != nil {
				t.Errorf("arguments %s do not validate: %v", got, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("arguments %s lack %s", got, w)
				}
			}
			if again := Arguments(json.RawMessage(tc.schema)); again != got {
				t.Errorf("not deterministic: %s then %s", got, again)
			}
		})
	}
}

func TestArgumentsFollowPropertyOrder(t *testing.T) {
	got := Arguments(json.RawMessage(`{"type":"object","properties":{"z":{"type":"integer"},"a":{"type":"boolean"},"m":{"type":"string"}}}`))
	if want := `{"z":1,"a":true,"m":"example"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestArgumentsOfUnusableSchemasAreAnObject(t *testing.T) {
	for _, schema := range []string{``, `null`, `"x"`, `{"$ref":"#"}`, `{"$ref":"https://example.com/s.json"}`} {
		got := Arguments(json.RawMessage(schema))
		var v map[string]any
		if err := json.Unmarshal([]byte(got), &v); err != nil {
			t.Errorf("schema %q: arguments %q are not an object: %v", schema, got, err)
		}
	}
}

func TestFitLengthCountsRunes(t *testing.T) {
	tests := []struct {
		base, suffix string
		lo, hi       int
		want         string
	}{
		{"Paris", "", 0, -1, "Paris"},
		{"Zürich", "", 0, 2, "Zü"},
		{"ab", "", 4, -1, "abxx"},
		{"example", " 2", 0, 4, "ex 2"},
		{"example", "12", 0, 1, "2"},
	}
	for _, tc := range tests {
		if got := fitLength(tc.base, tc.suffix, tc.lo, tc.hi); got != tc.want {
			t.Errorf("fitLength(%q, %q, %d, %d) = %q, want %q", tc.base, tc.suffix, tc.lo, tc.hi, got, tc.want)
		}
	}
}

// hostileSchemas come from clients who want the gateway to spin or run out
// of memory; arguments must stay small and come back.
var hostileSchemas = []string{
	`{"type":"object","properties":{"a":{"type":"array","minItems":1000000000,"items":{"type":"string"}}},"required":["a"]}`,
	`{"type":"object","properties":{"s":{"type":"string","minLength":1000000000000}},"required":["s"]}`,
	`{"type":"object","properties":{"s":{"type":"string","pattern":"^((((((a*)*)*)*)*)*)b$"}},"required":["s"]}`,
	`{"type":"object","properties":{"n":{"type":"number","minimum":1e999999999,"multipleOf":1e-999999999}},"required":["n"]}`,
	`{"type":"object","minProperties":1000000000,"additionalProperties":{"type":"string"}}`,
	`{"$defs":{"A":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"b":{"$ref":"#/$defs/A"},"c":{"$ref":"#/$defs/A"},"d":{"$ref":"#/$defs/A"}},"required":["a","b","c","d"]}},"$ref":"#/$defs/A"}`,
	`{"type":"object","properties":{"m":{"type":"array","minItems":1000,"items":{"type":"array","minItems":1000,"items":{"type":"array","minItems":1000}}}},"required":["m"]}`,
	`{"$ref":"#/$defs/A","$defs":{"A":{"allOf":[{"$ref":"#/$defs/A"},{"$ref":"#/$defs/A"}]}}}`,
	`{"anyOf":[{"$ref":"#"}],"oneOf":[{"anyOf":[{"$ref":"#"}]}]}`,
	`{"type":"object","properties":{"a":{"type":"array","minItems":1000000,"items":{"type":"string","pattern":"^((((a*)*)*)*)$","minLength":2,"maxLength":1}}},"required":["a"]}`,
	`{"type":"object","properties":{"e":{"allOf":[{"enum":[` + strings.Repeat(`[1,2,3],`, 5000) + `0]},{"enum":[` + strings.Repeat(`[3,2,1],`, 5000) + `1]}]}},"required":["e"]}`,
}

func TestArgumentsStayBoundedForHostileSchemas(t *testing.T) {
	for _, schema := range hostileSchemas {
		got := Arguments(json.RawMessage(schema))
		if len(got) > 3*maxArgumentBytes {
			t.Errorf("schema %s: %d bytes of arguments", schema, len(got))
		}
		if !json.Valid([]byte(got)) || got[0] != '{' {
			t.Errorf("schema %s: arguments are not an object: %.80s", schema, got)
		}
	}
}

func TestArgumentsAreAlwaysAnObject(t *testing.T) {
	for _, schema := range []string{`{"type":"string"}`, `{"enum":[1,2]}`, `{"type":"array"}`, `true`} {
		if got := Arguments(json.RawMessage(schema)); got != "{}" {
			t.Errorf("schema %s: arguments %s, want {}", schema, got)
		}
	}
}

func FuzzArguments(f *testing.F) {
	for _, tc := range argumentSchemas {
		f.Add(tc.schema)
	}
	for _, s := range hostileSchemas {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, schema string) {
		if !json.Valid([]byte(schema)) {
			return // the request parser refuses invalid JSON before any model runs
		}
		got := Arguments(json.RawMessage(schema))
		if !json.Valid([]byte(got)) || got[0] != '{' {
			t.Fatalf("schema %s: arguments %.200s are not a JSON object", schema, got)
		}
		if len(got) > 3*maxArgumentBytes {
			t.Fatalf("schema %s: %d bytes of arguments", schema, len(got))
		}
	})
}
