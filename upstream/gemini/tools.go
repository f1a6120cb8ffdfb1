package gemini

import (
	"encoding/json"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// translateTools maps the client's function tools to function
// declarations (custom tools as one string parameter, "input") and
// tool_choice to functionCallingConfig: auto -> AUTO, required -> ANY, a
// named function -> ANY limited to it, allowed_tools -> its mode limited
// to the allowed names, none -> NONE. Gemini has no switch for parallel
// calls, so parallel_tool_calls is not passed on.
func translateTools(req *responses.Request) ([]toolDecl, *toolConfig, error) {
	if len(req.Tools) == 0 {
		return nil, nil, nil
	}
	var decls []functionDecl
	for i := range req.Tools {
		t := &req.Tools[i]
		switch t.Kind {
		case "", responses.ToolFunction, responses.ToolCustom:
		default:
			return nil, nil, responses.Invalid("tools", "unsupported_value",
				"Model '%s' is served over the Gemini API, which cannot express the '%s' tool; use a function or custom tool with this model.", req.Model, t.Kind)
		}
		d := functionDecl{Name: t.Name, Description: t.Description, ParametersJSONSchema: t.Parameters}
		if t.Kind == responses.ToolCustom {
			d.ParametersJSONSchema = customSchema(t)
		}
		decls = append(decls, d)
	}
	tc := req.ToolChoice
	fc := functionCallingConfig{Mode: "AUTO"}
	switch tc.Mode {
	case responses.ChoiceFunction:
		fc = functionCallingConfig{Mode: "ANY", AllowedFunctionNames: []string{tc.Name}}
	case responses.ChoiceRequired:
		fc.Mode = "ANY"
	case responses.ChoiceNone:
		fc.Mode = "NONE"
	case responses.ChoiceAllowed:
		if tc.AllowedMode == responses.ChoiceRequired {
			fc.Mode = "ANY"
		}
		if fc.Mode == "AUTO" {
			// Gemini limits the names only in mode ANY (or VALIDATED), so
			// in auto the tools outside the set are not declared at all.
			set := map[string]bool{}
			for _, n := range tc.Allowed {
				set[n] = true
			}
			kept := decls[:0]
			for _, d := range decls {
				if set[d.Name] {
					kept = append(kept, d)
				}
			}
			decls = kept
		} else {
			fc.AllowedFunctionNames = tc.Allowed
		}
	}
	if len(decls) == 0 {
		return nil, nil, nil
	}
	return []toolDecl{{FunctionDeclarations: decls}}, &toolConfig{FunctionCallingConfig: fc}, nil
}

// customSchema is the parameters of a custom (free-text) tool.
func customSchema(t *responses.Tool) json.RawMessage {
	desc := "The tool's input, as free text."
	if def := gjson.GetBytes(t.Format, "definition"); def.Type == gjson.String {
		desc = "The tool's input: text in the " + gjson.GetBytes(t.Format, "syntax").Str + " grammar: " + def.Str
	}
	b, _ := json.Marshal(map[string]any{
		"type":       "object",
		"properties": map[string]any{"input": map[string]string{"type": "string", "description": desc}},
		"required":   []string{"input"},
	})
	return b
}

// customInput is the args of a custom call's free text.
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
