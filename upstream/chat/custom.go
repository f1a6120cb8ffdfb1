package chat

import (
	"encoding/json"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// Chat Completions knows function tools only. A custom tool (free-text
// input) goes up as a function with one string argument, "input"; its call
// comes back as a custom_tool_call carrying that string, and a
// custom_tool_call in the history goes up as a call with {"input": ...}.
// Built-in client tools (shell, computer use, ...) have no Chat form.

// customParameters is the schema of a custom tool sent as a function.
func customParameters(t *responses.Tool) json.RawMessage {
	desc := "The tool's input, as free text."
	if f := gjson.GetBytes(t.Format, "definition"); f.Type == gjson.String {
		desc = "The tool's input: text in the " + gjson.GetBytes(t.Format, "syntax").Str + " grammar: " + f.Str
	}
	b, _ := json.Marshal(map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"input": map[string]any{"type": "string", "description": desc}},
		"required":             []string{"input"},
		"additionalProperties": false,
	})
	return b
}

// customArguments is the function-call form of a custom call's input.
func customArguments(input string) string {
	b, _ := json.Marshal(map[string]string{"input": input})
	return string(b)
}

// errNoChatForm refuses a built-in client tool or its items for a Chat
// upstream, naming the model the client asked for.
func errNoChatForm(model, param, what string) error {
	return responses.Invalid(param, "unsupported_value",
		"Model '%s' is served over Chat Completions, which cannot express %s; use a function or custom tool with this model.", model, what)
}

// customCalls turns the function calls of custom tools back into custom
// tool calls: it holds such a call's JSON arguments until the call is
// complete, then starts a custom call with the "input" string.
type customCalls struct {
	responses.Output
	custom map[string]bool
	open   bool
	id     string
	name   string
	args   []byte
}

func newCustomCalls(out responses.Output, req *responses.Request) responses.Output {
	var custom map[string]bool
	for i := range req.Tools {
		if req.Tools[i].Kind == responses.ToolCustom {
			if custom == nil {
				custom = map[string]bool{}
			}
			custom[req.Tools[i].Name] = true
		}
	}
	if custom == nil {
		return out
	}
	return &customCalls{Output: out, custom: custom}
}

func (c *customCalls) StartCall(callID, name string) error {
	if err := c.flush(); err != nil {
		return err
	}
	if !c.custom[name] {
		return c.Output.StartCall(callID, name)
	}
	c.open, c.id, c.name, c.args = true, callID, name, c.args[:0]
	return nil
}

func (c *customCalls) Arguments(delta string) error {
	if c.open {
		c.args = append(c.args, delta...)
		return nil
	}
	return c.Output.Arguments(delta)
}

func (c *customCalls) Text(delta string) error {
	if err := c.flush(); err != nil {
		return err
	}
	return c.Output.Text(delta)
}

// flush sends the held custom call. Arguments that are not an object with
// a string "input" (a model that ignored the schema) go on as they are.
func (c *customCalls) flush() error {
	if !c.open {
		return nil
	}
	c.open = false
	input := string(c.args)
	if v := gjson.GetBytes(c.args, "input"); gjson.ValidBytes(c.args) && v.Type == gjson.String {
		input = v.Str
	}
	if err := c.Output.StartCustomCall(c.id, c.name); err != nil {
		return err
	}
	return c.Output.Arguments(input)
}

// finish flushes a custom call still held when the stream ended.
func finish(out responses.Output) error {
	if c, ok := out.(*customCalls); ok {
		return c.flush()
	}
	return nil
}
