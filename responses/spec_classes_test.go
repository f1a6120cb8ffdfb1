package responses

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/farebox/farebox/schemas"
)

// specRequest lists what the spec's request defines: CreateResponse's
// top-level fields, and the type values of the InputItem and Tool unions.
func specRequest(doc []byte) (fields, items, tools []string, err error) {
	var d struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, nil, nil, err
	}
	c := d.Components.Schemas
	for _, name := range []string{"CreateResponse", "InputItem", "Tool"} {
		if c[name] == nil {
			return nil, nil, nil, fmt.Errorf("the spec has no component %s", name)
		}
	}
	fields = specProperties(c, c["CreateResponse"])
	items = specTypes(c, c["InputItem"], "item_reference")
	tools = specTypes(c, c["Tool"], "")
	return fields, items, tools, nil
}

// specProperties lists the properties of s, through allOf and $ref.
func specProperties(c map[string]map[string]any, s map[string]any) []string {
	var out []string
	props, _ := s["properties"].(map[string]any)
	for k := range props {
		out = append(out, k)
	}
	members, _ := s["allOf"].([]any)
	for _, m := range members {
		out = append(out, specProperties(c, specDeref(c, m))...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func specDeref(c map[string]map[string]any, v any) map[string]any {
	m, _ := v.(map[string]any)
	if ref, ok := m["$ref"].(string); ok {
		return c[strings.TrimPrefix(ref, "#/components/schemas/")]
	}
	return m
}

// specTypes lists the "type" values of a union's members, through nested
// unions; a member whose type admits no value is named untyped.
func specTypes(c map[string]map[string]any, s map[string]any, untyped string) []string {
	var members []any
	for _, k := range []string{"oneOf", "anyOf"} {
		l, _ := s[k].([]any)
		members = append(members, l...)
	}
	if len(members) > 0 {
		var out []string
		for _, m := range members {
			out = append(out, specTypes(c, specDeref(c, m), untyped)...)
		}
		sort.Strings(out)
		return slices.Compact(out)
	}
	props, _ := s["properties"].(map[string]any)
	vals := specEnum(props["type"])
	if len(vals) == 0 {
		return []string{untyped}
	}
	return vals
}

// specEnum is the values a property's schema allows (enum, const, or those
// of its anyOf members).
func specEnum(v any) []string {
	m, _ := v.(map[string]any)
	var out []string
	if c, ok := m["const"].(string); ok {
		out = append(out, c)
	}
	enum, _ := m["enum"].([]any)
	for _, e := range enum {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	any, _ := m["anyOf"].([]any)
	for _, a := range any {
		out = append(out, specEnum(a)...)
	}
	return out
}

// unclassified names what the spec defines and the tables do not classify,
// and what the tables classify that the spec no longer defines.
func unclassified(doc []byte) ([]string, error) {
	fields, items, tools, err := specRequest(doc)
	if err != nil {
		return nil, err
	}
	var out []string
	check := func(what string, spec []string, table map[string]SpecClass) {
		for _, n := range spec {
			if _, ok := table[n]; !ok {
				out = append(out, what+" "+n+" is not classified")
			}
		}
		for n := range table {
			if !slices.Contains(spec, n) {
				out = append(out, what+" "+n+" is classified but not in the spec")
			}
		}
	}
	check("field", fields, RequestFieldClasses)
	check("input item", items, InputItemClasses)
	check("tool", tools, ToolClasses)
	sort.Strings(out)
	return out, nil
}

// Every field, input item type and tool type of the vendored spec is
// classified: interpreted, forwarded, refused or dropped, with who
// executes it.
func TestConformanceSpecRequestIsClassified(t *testing.T) {
	missing, err := unclassified(schemas.OpenAPIDocument())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range missing {
		t.Error(m, "(responses/spec_classes.go)")
	}
}

// A field, an input item type and a tool type that a refreshed spec adds
// fail the classification test: nothing new passes through unnoticed.
func TestConformanceMadeUpSpecAdditionsFail(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(schemas.OpenAPIDocument(), &doc); err != nil {
		t.Fatal(err)
	}
	c := doc["components"].(map[string]any)["schemas"].(map[string]any)
	create := c["CreateResponse"].(map[string]any)
	last := create["allOf"].([]any)[len(create["allOf"].([]any))-1].(map[string]any)
	last["properties"].(map[string]any)["made_up_field"] = map[string]any{"type": "string"}
	c["MadeUpTool"] = map[string]any{"type": "object", "properties": map[string]any{"type": map[string]any{"enum": []any{"made_up_tool"}}}}
	tool := c["Tool"].(map[string]any)
	tool["oneOf"] = append(tool["oneOf"].([]any), map[string]any{"$ref": "#/components/schemas/MadeUpTool"})
	c["MadeUpItem"] = map[string]any{"type": "object", "properties": map[string]any{"type": map[string]any{"type": "string", "const": "made_up_item"}}}
	item := c["Item"].(map[string]any)
	key := "oneOf"
	if _, ok := item[key]; !ok {
		key = "anyOf"
	}
	item[key] = append(item[key].([]any), map[string]any{"$ref": "#/components/schemas/MadeUpItem"})
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	modified, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := unclassified(modified)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"field made_up_field is not classified", "input item made_up_item is not classified", "tool made_up_tool is not classified"}
	if !slices.Equal(got, want) {
		t.Errorf("unclassified = %q, want %q", got, want)
	}
}

// The tables say what the parser does: a refused item or tool type is a
// 400 at its type, an accepted one is not refused for its type, a policy
// tool follows tools.hosted, and every classified field is known.
func TestConformanceClassesMatchTheParser(t *testing.T) {
	for name, cl := range RequestFieldClasses {
		_, err := Parse([]byte(`{"model":"m","input":"hi","` + name + `":null}`))
		if err != nil && err.Code == "unknown_parameter" {
			t.Errorf("field %s is classified %s but the parser does not know it", name, cl.Handling)
		}
	}
	for typ, cl := range InputItemClasses {
		_, err := Parse([]byte(`{"model":"m","input":[{"type":"` + typ + `"}]}`))
		refusedAtType := err != nil && err.Param == "input[0].type"
		if (cl.Handling == Refused) != refusedAtType {
			t.Errorf("input item %s is classified %s, parser: %v", typ, cl.Handling, err)
		}
	}
	for typ, cl := range ToolClasses {
		body := []byte(`{"model":"m","input":"hi","tools":[{"type":"` + typ + `"}]}`)
		_, refused := ParseWith(body, HostedRefuse)
		req, dropped := ParseWith(body, HostedDrop)
		refusedAtType := refused != nil && refused.Param == "tools[0].type"
		switch cl.Handling {
		case Policy:
			if !refusedAtType || dropped != nil || !slices.Contains(req.DroppedTools, typ) {
				t.Errorf("tool %s is classified %s: refuse gave %v, drop gave %v", typ, cl.Handling, refused, dropped)
			}
		case Refused:
			if !refusedAtType {
				t.Errorf("tool %s is classified refused, parser: %v", typ, refused)
			}
		default:
			if refusedAtType {
				t.Errorf("tool %s is classified %s, parser refuses it: %v", typ, cl.Handling, refused)
			}
		}
	}
}
