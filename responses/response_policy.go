package responses

import "fmt"

// The deny-all policy on the way out: a call leaves farebox only when the
// request permits it (declared, allowed by tool_choice and allowed_tools,
// within max_tool_calls, one call only when parallel_tool_calls is false). A response that only had denied calls fails with a
// clear message instead of succeeding empty.

// Denied returns the error Complete would fail the response with because
// the deny-all policy dropped every call and nothing else was produced, or
// nil. The gateway may check it before Complete to answer with an HTTP error
// (and charge nothing) while Started is still false.
func (e *Emitter) Denied() *Error {
	if e.dropped == 0 || len(e.output) > 0 {
		return nil
	}
	var msg string
	n := e.denyName
	switch e.denyWhy {
	case "undeclared":
		msg = fmt.Sprintf("the model called a tool the client did not declare: %s", n)
	case "none":
		msg = fmt.Sprintf(`the model called the tool %s although tool_choice is "none"`, n)
	case "allowed":
		msg = fmt.Sprintf("the model called the tool %s, which is not in tool_choice.allowed_tools", n)
	case "forced":
		msg = fmt.Sprintf("the model called the tool %s, but tool_choice forces %s", n, e.req.ToolChoice.Name)
	case "parallel":
		msg = fmt.Sprintf("the model called the tool %s after another although parallel_tool_calls is false", n)
	default:
		msg = fmt.Sprintf("the model called the tool %s beyond max_tool_calls", n)
	}
	return &Error{Status: 502, Type: "server_error", Code: "tool_call_denied", Message: msg + "; farebox does not pass such calls on, and the model produced nothing else"}
}

// denial says why a call of kind to name may not leave, or "" when it may.
// A call must match the kind of the declared tool: a custom tool is not
// called with JSON arguments, nor a function with free text.
func (e *Emitter) denial(name string, kind itemKind) string {
	r := e.req
	if t := r.Lookup(name); t != nil && toolItemKind(t.Kind) != kind && r.ToolChoice.Mode != ChoiceNone {
		return "undeclared"
	}
	if !r.Permits(name) {
		switch {
		case r.ToolChoice.Mode == ChoiceNone:
			return "none"
		case !outDeclared(r.Tools, name):
			return "undeclared"
		case r.ToolChoice.Mode == ChoiceAllowed:
			return "allowed"
		default:
			return "forced"
		}
	}
	if r.MaxToolCalls != nil && e.calls >= *r.MaxToolCalls {
		return "max_tool_calls"
	}
	if !r.ParallelToolCalls && e.calls >= 1 {
		return "parallel"
	}
	return ""
}

// outDeclared reports whether a tool named name was declared.
func outDeclared(tools []Tool, name string) bool {
	for i := range tools {
		if tools[i].Name == name {
			return true
		}
	}
	return false
}

// toolItemKind is the kind of output item a call of a tool of kind k is.
func toolItemKind(k ToolKind) itemKind {
	switch k {
	case "", ToolFunction:
		return itemFunction
	case ToolCustom:
		return itemCustom
	}
	return itemClient
}
