package anthropic

import (
	"encoding/json"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// Messages knows JSON-input tools only. A custom tool (free-text input,
// such as Codex's apply_patch) goes up as a tool with one string property,
// "input"; its tool_use comes back as a custom_tool_call carrying that
// string, and a custom_tool_call in the history goes up as a tool_use with
// {"input": ...}.

// customSchema is the input_schema of a custom tool.
func customSchema(t *responses.Tool) json.RawMessage {
	desc := "The tool's input, as free text."
	if def := gjson.GetBytes(t.Format, "definition"); def.Type == gjson.String {
		desc = "The tool's input: text in the " + gjson.GetBytes(t.Format, "syntax").Str + " grammar: " + def.Str
	}
	b, _ := json.Marshal(map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"input": map[string]string{"type": "string", "description": desc}},
		"required":             []string{"input"},
		"additionalProperties": false,
	})
	return b
}

// customInput is the tool_use input of a custom call's free text.
func customInput(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"input": text})
	return b
}

// customTools names the request's custom tools, whose calls the mapper
// turns back into custom calls.
func customTools(req *responses.Request) map[string]bool {
	var names map[string]bool
	for i := range req.Tools {
		if req.Tools[i].Kind == responses.ToolCustom {
			if names == nil {
				names = map[string]bool{}
			}
			names[req.Tools[i].Name] = true
		}
	}
	return names
}
