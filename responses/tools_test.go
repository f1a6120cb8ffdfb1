package responses

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestToolsFlatAndNestedBecomeOneCanonicalForm(t *testing.T) {
	flat := `{"type":"function","name":"get_weather","description":"Weather.","parameters":{"type":"object","properties":{"city":{"type":"string"}}},"strict":false,"x-vendor":{"run":"rm -rf"},"defer_loading":true}`
	nested := `{"type":"function","function":{"name":"get_weather","description":"Weather.","parameters":{"type":"object","properties":{"city":{"type":"string"}}},"strict":false,"cache_control":{"type":"ephemeral"}}}`
	want := `{"type":"function","name":"get_weather","description":"Weather.","parameters":{"type":"object","properties":{"city":{"type":"string"}}},"strict":false}`
	for name, tool := range map[string]string{"flat": flat, "nested": nested} {
		t.Run(name, func(t *testing.T) {
			r := mustParse(t, []byte(`{"model":"m","input":"x","tools":[`+tool+`]}`))
			if got := string(r.Tools[0].JSON()); got != want {
				t.Fatalf("echo = %s\nwant   %s", got, want)
			}
		})
	}
}

func TestToolDefaults(t *testing.T) {
	r := mustParse(t, []byte(`{"model":"m","input":"x","tools":[
		{"type":"function","name":"flat"},
		{"type":"function","function":{"name":"nested"}},
		{"type":"function","name":"nulls","description":null,"parameters":null,"strict":null}]}`))
	want := []Tool{
		{Name: "flat", Parameters: emptySchema, Strict: true},
		{Name: "nested", Parameters: emptySchema, Strict: false},
		{Name: "nulls", Parameters: emptySchema, Strict: true},
	}
	if !reflect.DeepEqual(r.Tools, want) {
		t.Fatalf("tools = %+v\nwant %+v", r.Tools, want)
	}
	got := string(ToolsJSON(r.Tools))
	wantJSON := `[{"type":"function","name":"flat","description":null,"parameters":{"type":"object","properties":{}},"strict":true},` +
		`{"type":"function","name":"nested","description":null,"parameters":{"type":"object","properties":{}},"strict":false},` +
		`{"type":"function","name":"nulls","description":null,"parameters":{"type":"object","properties":{}},"strict":true}]`
	if got != wantJSON {
		t.Fatalf("ToolsJSON = %s\nwant       %s", got, wantJSON)
	}
}

func TestToolsJSONEscapesAndIsValid(t *testing.T) {
	tools := []Tool{{Name: "a", Description: "quote \" back \\ nl \n tab \t <b>", HasDesc: true, Parameters: json.RawMessage(`{"type":"object"}`), Strict: true}}
	var back []map[string]any
	if err := json.Unmarshal(ToolsJSON(tools), &back); err != nil {
		t.Fatalf("invalid JSON %s: %v", ToolsJSON(tools), err)
	}
	if back[0]["description"] != tools[0].Description {
		t.Errorf("description round trip = %q", back[0]["description"])
	}
	if got := string(ToolsJSON(nil)); got != "[]" {
		t.Errorf("no tools echo = %s", got)
	}
}

func TestToolNames(t *testing.T) {
	ok := []string{"a", "Z", "0", "get_weather", "a-b", strings.Repeat("x", 64), "A_b-9"}
	bad := []string{"", "a b", "a.b", "é", "a/b", strings.Repeat("x", 65), "a\x00"}
	for _, n := range ok {
		if !validName(n) {
			t.Errorf("validName(%q) = false", n)
		}
	}
	for _, n := range bad {
		if validName(n) {
			t.Errorf("validName(%q) = true", n)
		}
	}
}

func TestToolChoiceForms(t *testing.T) {
	const tools = `"tools":[{"type":"function","name":"a"},{"type":"function","function":{"name":"b"}},{"type":"function","name":"c"}]`
	cases := []struct {
		choice string
		want   ToolChoice
		echo   string
	}{
		{`"auto"`, ToolChoice{Mode: ChoiceAuto}, `"auto"`},
		{`"none"`, ToolChoice{Mode: ChoiceNone}, `"none"`},
		{`"required"`, ToolChoice{Mode: ChoiceRequired}, `"required"`},
		{`null`, ToolChoice{Mode: ChoiceAuto}, `"auto"`},
		{`{"type":"function","name":"b"}`, ToolChoice{Mode: ChoiceFunction, Name: "b"}, `{"type":"function","name":"b"}`},
		{`{"type":"function","function":{"name":"a"}}`, ToolChoice{Mode: ChoiceFunction, Name: "a"}, `{"type":"function","name":"a"}`},
		{`{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"a"},{"type":"function","function":{"name":"c"}}]}`,
			ToolChoice{Mode: ChoiceAllowed, Allowed: []string{"a", "c"}, AllowedMode: ChoiceRequired},
			`{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"a"},{"type":"function","name":"c"}]}`},
		{`{"type":"allowed_tools","tools":[{"type":"function","name":"b"}]}`,
			ToolChoice{Mode: ChoiceAllowed, Allowed: []string{"b"}, AllowedMode: ChoiceAuto},
			`{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"b"}]}`},
	}
	for _, c := range cases {
		t.Run(c.choice, func(t *testing.T) {
			r := mustParse(t, []byte(`{"model":"m","input":"x",`+tools+`,"tool_choice":`+c.choice+`}`))
			if !reflect.DeepEqual(r.ToolChoice, c.want) {
				t.Fatalf("tool_choice = %+v, want %+v", r.ToolChoice, c.want)
			}
			if got := string(r.ToolChoiceJSON()); got != c.echo {
				t.Fatalf("echo = %s, want %s", got, c.echo)
			}
		})
	}
}

func TestToolChoiceBeforeToolsInTheBody(t *testing.T) {
	r := mustParse(t, []byte(`{"tool_choice":{"type":"function","name":"late"},"model":"m","input":"x","tools":[{"type":"function","name":"late"}]}`))
	if r.ToolChoice.Name != "late" {
		t.Fatalf("tool_choice = %+v", r.ToolChoice)
	}
}

func TestParsedChoicesDrivePermits(t *testing.T) {
	const tools = `"tools":[{"type":"function","name":"a"},{"type":"function","name":"b"}]`
	cases := []struct {
		choice    string
		permitted map[string]bool
	}{
		{`"auto"`, map[string]bool{"a": true, "b": true, "undeclared": false}},
		{`"none"`, map[string]bool{"a": false, "b": false}},
		{`{"type":"function","function":{"name":"b"}}`, map[string]bool{"a": false, "b": true}},
		{`{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"a"}]}`, map[string]bool{"a": true, "b": false}},
	}
	for _, c := range cases {
		r := mustParse(t, []byte(`{"model":"m","input":"x",`+tools+`,"tool_choice":`+c.choice+`}`))
		for name, want := range c.permitted {
			if got := r.Permits(name); got != want {
				t.Errorf("tool_choice %s: Permits(%q) = %v, want %v", c.choice, name, got, want)
			}
		}
	}
}

func TestManyToolsStayLinear(t *testing.T) {
	const n = 3000
	var tools, allowed strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			tools.WriteByte(',')
			allowed.WriteByte(',')
		}
		name := "t" + itoa(i)
		tools.WriteString(`{"type":"function","name":"` + name + `"}`)
		allowed.WriteString(`{"type":"function","name":"` + name + `"}`)
	}
	body := `{"model":"m","input":"x","tools":[` + tools.String() + `],"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[` + allowed.String() + `]}}`
	r := mustParse(t, []byte(body))
	if len(r.Tools) != n || len(r.ToolChoice.Allowed) != n || !r.Permits("t2999") || r.Permits("t3000") {
		t.Fatalf("tools %d, allowed %d", len(r.Tools), len(r.ToolChoice.Allowed))
	}
	dup := strings.Replace(body, `"tools":[{"type":"function","name":"t0"}`, `"tools":[{"type":"function","name":"t2999"}`, 1)
	_, err := Parse([]byte(dup))
	if err == nil || err.Param != "tools[2999].name" {
		t.Fatalf("duplicate past the scan: %v", err)
	}
	undeclared := strings.Replace(body, `{"type":"function","name":"t2999"}]}}`, `{"type":"function","name":"nope"}]}}`, 1)
	_, err = Parse([]byte(undeclared))
	if err == nil || err.Param != "tool_choice.tools[2999].name" {
		t.Fatalf("undeclared past the scan: %v", err)
	}
}
