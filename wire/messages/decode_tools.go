package messages

import (
	"strings"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// clientTool is one of Anthropic's tool types the client executes (the
// model is trained on them; the client's harness runs them). Each becomes
// a function tool of the same name whose parameters describe the input
// the model sends, so any upstream can offer it.
type clientTool struct {
	prefix, name, desc, schema string
}

// clientTools are Anthropic's client-executed tool types, by type prefix.
var clientTools = []clientTool{
	{"bash_", "bash", "Run a shell command in the client's persistent bash session (Anthropic's bash tool).",
		`{"type":"object","properties":{"command":{"type":"string"},"restart":{"type":"boolean"}}}`},
	{"text_editor_", "str_replace_based_edit_tool", "View and edit files on the client (Anthropic's text editor tool).",
		`{"type":"object","properties":{"command":{"type":"string","enum":["view","create","str_replace","insert","undo_edit"]},"path":{"type":"string"},"file_text":{"type":"string"},"old_str":{"type":"string"},"new_str":{"type":"string"},"insert_line":{"type":"integer"},"insert_text":{"type":"string"},"view_range":{"type":"array","items":{"type":"integer"}}},"required":["command","path"]}`},
	{"computer_", "computer", "Control the client's screen, keyboard and mouse (Anthropic's computer use tool).",
		`{"type":"object","properties":{"action":{"type":"string"},"coordinate":{"type":"array","items":{"type":"integer"}},"text":{"type":"string"},"scroll_direction":{"type":"string"},"scroll_amount":{"type":"integer"},"duration":{"type":"number"},"key":{"type":"string"}},"required":["action"]}`},
	{"memory_", "memory", "Read and write the client's memory directory (Anthropic's memory tool).",
		`{"type":"object","properties":{"command":{"type":"string"},"path":{"type":"string"},"file_text":{"type":"string"},"old_str":{"type":"string"},"new_str":{"type":"string"},"insert_line":{"type":"integer"},"insert_text":{"type":"string"},"old_path":{"type":"string"},"new_path":{"type":"string"},"view_range":{"type":"array","items":{"type":"integer"}}},"required":["command"]}`},
}

// hostedPrefixes are the tool types the provider executes.
var hostedPrefixes = []string{"web_search_", "web_fetch_", "code_execution_", "tool_search_tool_", "mcp_toolset", "browser_toolset_", "computer_toolset_"}

// tools writes the declared tools as Responses function tools: custom
// tools with their input_schema, client tool types with their name and a
// schema of their input; provider-executed types go through the policy.
func (d *decoder) tools(v gjson.Result) *responses.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		return responses.ErrType("tools", "an array", v)
	}
	d.field("tools", "[")
	var err *responses.Error
	i := 0
	v.ForEach(func(_, t gjson.Result) bool {
		at := "tools." + itoa(i)
		i++
		err = d.tool(at, t)
		return err == nil
	})
	d.out = append(d.out, ']')
	return err
}

// tool writes one tool (or drops it).
func (d *decoder) tool(at string, t gjson.Result) *responses.Error {
	if !t.IsObject() {
		return responses.ErrType(at, "an object", t)
	}
	typ := t.Get("type").Str
	if typ == "" || typ == "custom" {
		d.startTool(at)
		d.out = append(d.out, `{"type":"function","name":`...)
		d.out = append(d.out, rawOr(t.Get("name"), "null")...)
		if desc := t.Get("description"); desc.Exists() {
			d.out = append(d.out, `,"description":`...)
			d.out = append(d.out, desc.Raw...)
		}
		d.out = append(d.out, `,"parameters":`...)
		d.out = append(d.out, rawOr(t.Get("input_schema"), "null")...)
		d.out = append(d.out, `,"strict":`...)
		d.out = append(d.out, rawOr(t.Get("strict"), "false")...)
		d.out = append(d.out, '}')
		return nil
	}
	for _, c := range clientTools {
		if strings.HasPrefix(typ, c.prefix) {
			name := t.Get("name").Str
			if name == "" {
				name = c.name
			}
			d.startTool(at)
			d.out = append(d.out, `{"type":"function","name":`...)
			d.out = responses.AppendJSONString(d.out, name)
			d.out = append(d.out, `,"description":`...)
			d.out = responses.AppendJSONString(d.out, c.desc)
			d.out = append(d.out, `,"parameters":`+c.schema+`,"strict":false}`...)
			return nil
		}
	}
	for _, p := range hostedPrefixes {
		if strings.HasPrefix(typ, p) {
			if d.policy == responses.HostedRefuse {
				return responses.ErrHosted(at+".type", "Tool", typ)
			}
			d.dropped = append(d.dropped, typ)
			return nil
		}
	}
	return responses.ErrValue(at+".type", typ, "custom", "bash_20250124", "text_editor_20250728", "computer_20250124", "memory_20250818")
}

// startTool separates tools and records where this one came from.
func (d *decoder) startTool(at string) {
	if d.out[len(d.out)-1] != '[' {
		d.out = append(d.out, ',')
	}
	d.paths.tools = append(d.paths.tools, at)
}

// toolChoice maps auto, any (required), tool (one named) and none;
// disable_parallel_tool_use turns parallel tool calls off.
func (d *decoder) toolChoice(v gjson.Result) *responses.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return responses.ErrType("tool_choice", "an object", v)
	}
	if dp := v.Get("disable_parallel_tool_use"); dp.Type == gjson.True {
		d.field("parallel_tool_calls", "false")
	}
	switch typ := v.Get("type"); typ.Str {
	case "auto", "none":
		d.field("tool_choice", `"`+typ.Str+`"`)
	case "any":
		d.field("tool_choice", `"required"`)
	case "tool":
		d.field("tool_choice", `{"type":"function","name":`+rawOr(v.Get("name"), "null")+`}`)
	default:
		if typ.Type != gjson.String {
			return responses.ErrMissing("tool_choice.type")
		}
		return responses.ErrValue("tool_choice.type", typ.Str, "auto", "any", "tool", "none")
	}
	return nil
}
