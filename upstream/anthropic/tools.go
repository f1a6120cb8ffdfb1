package anthropic

import (
	"encoding/json"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// minBudget is the smallest thinking budget Anthropic accepts.
const minBudget = 1024

// translateTools maps the client's function tools to custom tools with an
// input_schema (and its custom tools as custom.go says), and tool_choice to Anthropic's: auto, required -> any, a
// named function -> tool, none. Messages has no allowed_tools: only the
// allowed tools are sent, and its mode becomes the choice.
func translateTools(req *responses.Request) ([]toolDef, *toolChoice, error) {
	if len(req.Tools) == 0 {
		return nil, nil, nil
	}
	for i := range req.Tools {
		switch t := &req.Tools[i]; t.Kind {
		case "", responses.ToolFunction, responses.ToolCustom:
		default:
			return nil, nil, responses.Invalid("tools", "unsupported_value",
				"Model '%s' is served over Anthropic's Messages API, which cannot express the '%s' tool; use a function or custom tool with this model.", req.Model, t.Kind)
		}
	}
	tc := req.ToolChoice
	allowed := func(string) bool { return true }
	choice := &toolChoice{Type: "auto"}
	switch tc.Mode {
	case responses.ChoiceFunction:
		choice = &toolChoice{Type: "tool", Name: tc.Name}
	case responses.ChoiceRequired:
		choice.Type = "any"
	case responses.ChoiceNone:
		choice.Type = "none"
	case responses.ChoiceAllowed:
		set := map[string]bool{}
		for _, n := range tc.Allowed {
			set[n] = true
		}
		allowed = func(n string) bool { return set[n] }
		if tc.AllowedMode == responses.ChoiceRequired {
			choice.Type = "any"
		}
	}
	if !req.ParallelToolCalls && choice.Type != "none" {
		choice.DisableParallelToolUse = true
	}
	var defs []toolDef
	for i := range req.Tools {
		t := &req.Tools[i]
		if !allowed(t.Name) {
			continue
		}
		def := toolDef{Name: t.Name, InputSchema: t.Parameters}
		if t.Kind == responses.ToolCustom {
			def.InputSchema = customSchema(t)
		}
		if t.HasDesc {
			d := t.Description
			def.Description = &d
		}
		if len(def.InputSchema) == 0 {
			def.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		defs = append(defs, def)
	}
	return defs, choice, nil
}

// applyThinking turns reasoning.effort into extended thinking under the
// operator's mode. Thinking stays off where Anthropic would refuse it: a
// forced tool choice, a budget that does not fit max_tokens, or a tool
// call being answered whose turn was sent back without its thinking (a
// client that did not include reasoning.encrypted_content). With thinking
// on, temperature and top_p are not sent: Anthropic takes neither then.
func applyThinking(out *messagesRequest, req *responses.Request, cfg *Config) {
	effort := gjson.GetBytes(req.Reasoning, "effort").Str
	if cfg.Thinking.Mode == ThinkingOff || effort == "" || effort == "none" {
		return
	}
	if out.ToolChoice != nil && (out.ToolChoice.Type == "any" || out.ToolChoice.Type == "tool") {
		return
	}
	if !thinkingResumable(out.Messages) {
		return
	}
	switch cfg.Thinking.Mode {
	case ThinkingAdaptive:
		out.Thinking = &thinking{Type: "adaptive"}
		if out.OutputConfig == nil {
			out.OutputConfig = &outputConfig{}
		}
		out.OutputConfig.Effort = adaptiveEffort(effort)
	case ThinkingEnabled:
		budget, ok := cfg.Thinking.Budgets[effort]
		if !ok {
			budget = DefaultBudgets[effort]
		}
		if budget == 0 {
			budget = DefaultBudgets["medium"]
		}
		budget = min(budget, out.MaxTokens-1)
		if budget < minBudget {
			return
		}
		out.Thinking = &thinking{Type: "enabled", BudgetTokens: budget}
	}
	out.Temperature, out.TopP = nil, nil
}

// adaptiveEffort is output_config.effort for a Responses effort.
func adaptiveEffort(effort string) string {
	switch effort {
	case "minimal", "low":
		return "low"
	case "high":
		return "high"
	case "xhigh":
		return "xhigh"
	}
	return "medium"
}

// thinkingResumable reports whether thinking may be on for this
// conversation: Anthropic requires the assistant turn whose tool calls
// are being answered to start with its thinking block.
func thinkingResumable(turns []turn) bool {
	for i := len(turns) - 1; i >= 0; i-- {
		t := &turns[i]
		if t.Role != "assistant" {
			continue
		}
		calls := false
		for _, b := range t.Content {
			calls = calls || b.Type == "tool_use"
		}
		if !calls {
			return true
		}
		first := t.Content[0].Type
		return first == "thinking" || first == "redacted_thinking"
	}
	return true
}
