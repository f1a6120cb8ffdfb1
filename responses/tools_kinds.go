package responses

import (
	"encoding/json"

	"github.com/tidwall/gjson"
)

// This file is the tool policy for every tool type other than a plain
// function, stated by who executes the tool. The client executes
// namespaces of functions, custom tools and the built-ins local_shell,
// shell (local environment), apply_patch and computer_use_preview: they
// pass as client-only tools. The provider would execute web_search*,
// file_search, code_interpreter, image_generation, mcp, tool_search and a
// shell in a hosted container: they never reach an upstream, refused or
// dropped as HostedPolicy says.

// HostedPolicy decides what happens to a provider-executed tool in a request.
type HostedPolicy int

const (
	// HostedDrop removes the tool and records its type in
	// Request.DroppedTools, so clients that always declare one (Codex
	// declares web_search) still work.
	HostedDrop HostedPolicy = iota
	// HostedRefuse answers the request with a 400 naming the tool.
	HostedRefuse
)

// clientToolTypes are the tool types farebox accepts, for error messages.
var clientToolTypes = []string{"function", "namespace", "custom", "local_shell", "shell", "apply_patch", "computer_use_preview"}

// parseOtherTool reads one tool whose type is not "function". It returns
// the client tools it stands for (none when dropped, several for a
// namespace) and the param path of each one's name, relative to w.
func (p *parser) parseOtherTool(w where, typ string, v gjson.Result) ([]Tool, []string, *Error) {
	switch typ {
	case "namespace":
		return parseNamespace(w, v)
	case "custom":
		t, err := parseCustomTool(w, v)
		return []Tool{t}, []string{"name"}, err
	case "local_shell", "apply_patch":
		return builtin(ToolKind(typ), []byte(`{"type":"`+typ+`"}`))
	case "shell":
		env := v.Get("environment")
		if env.Exists() && env.Type != gjson.Null && env.Get("type").Str != "local" {
			// A shell in a hosted container runs on the provider's side.
			return nil, nil, p.hosted(w, "shell")
		}
		cfg := []byte(`{"type":"shell"}`)
		if env.IsObject() {
			at := func(s string) string { return w.at(join("environment", s)) }
			var err *Error
			cfg = append(cfg[:len(cfg)-1], `,"environment":`...)
			if cfg, err = localEnvironment.rebuild(cfg, at, env); err != nil {
				return nil, nil, err
			}
			cfg = append(cfg, '}')
		}
		return builtin(ToolShell, cfg)
	case "computer_use_preview", "computer":
		return parseComputerTool(w, typ, v)
	}
	if hostedTool(typ) {
		return nil, nil, p.hosted(w, typ)
	}
	return nil, nil, errValue(w.at("type"), typ, clientToolTypes...)
}

// hosted applies the policy to a provider-executed tool of type typ.
func (p *parser) hosted(w where, typ string) *Error {
	if p.policy == HostedRefuse {
		return errHosted(w.at("type"), "Tool", typ)
	}
	for _, d := range p.req.DroppedTools {
		if d == typ {
			return nil
		}
	}
	p.req.DroppedTools = append(p.req.DroppedTools, typ)
	return nil
}

func builtin(kind ToolKind, cfg []byte) ([]Tool, []string, *Error) {
	return []Tool{{Kind: kind, Name: string(kind), Config: cfg}}, []string{"type"}, nil
}

// parseNamespace flattens {"type":"namespace","name","description","tools":[...]}
// into its function tools, each naming the namespace.
func parseNamespace(w where, v gjson.Result) ([]Tool, []string, *Error) {
	name, err := reqString(w.at, "name", v.Get("name"))
	if err != nil {
		return nil, nil, err
	}
	if err := checkName(w.at, "name", name); err != nil {
		return nil, nil, err
	}
	var desc *string
	switch d := v.Get("description"); d.Type {
	case gjson.Null:
	case gjson.String:
		s := d.Str
		desc = &s
	default:
		return nil, nil, errType(w.at("description"), "a string", d)
	}
	list := v.Get("tools")
	switch {
	case list.Type == gjson.Null:
		return nil, nil, errMissing(w.at("tools"))
	case !list.IsArray():
		return nil, nil, errType(w.at("tools"), "an array", list)
	}
	var tools []Tool
	var fields []string
	j := 0
	list.ForEach(func(_, el gjson.Result) bool {
		inner := w.in("tools", j)
		var t Tool
		var field string
		if t, field, err = parseTool(inner, el); err != nil {
			return false
		}
		t.Namespace, t.NamespaceDesc = name, desc
		tools = append(tools, t)
		fields = append(fields, inner.at(field)[len(w.at(""))+1:])
		j++
		return true
	})
	if err == nil && len(tools) == 0 {
		err = errEmptyArray(w.at("tools"))
	}
	return tools, fields, err
}

// parseCustomTool reads {"type":"custom","name","description","format"}: a
// tool whose input is free text, optionally constrained by a grammar.
func parseCustomTool(w where, v gjson.Result) (Tool, *Error) {
	t := Tool{Kind: ToolCustom}
	var err *Error
	if t.Name, err = reqString(w.at, "name", v.Get("name")); err != nil {
		return t, err
	}
	if err = checkName(w.at, "name", t.Name); err != nil {
		return t, err
	}
	switch d := v.Get("description"); d.Type {
	case gjson.Null:
	case gjson.String:
		t.Description, t.HasDesc = d.Str, true
	default:
		return t, errType(w.at("description"), "a string", d)
	}
	f := v.Get("format")
	switch {
	case f.Type == gjson.Null:
		return t, nil
	case !f.IsObject():
		return t, errType(w.at("format"), "an object", f)
	}
	t.Format, err = customFormat.rebuild(nil, func(s string) string { return w.at(join("format", s)) }, f)
	return t, err
}

// parseComputerTool reads a computer-use tool, keeping the display size and
// environment the model needs and nothing else.
func parseComputerTool(w where, typ string, v gjson.Result) ([]Tool, []string, *Error) {
	cfg := map[string]any{"type": typ}
	for _, k := range [...]string{"display_width", "display_height"} {
		n, err := optInt(w.at(k), v.Get(k), 1, 1<<20)
		if err != nil {
			return nil, nil, err
		}
		if n != nil {
			cfg[k] = *n
		}
	}
	if e := v.Get("environment"); e.Type == gjson.String {
		cfg["environment"] = e.Str
	} else if e.Exists() && e.Type != gjson.Null {
		return nil, nil, errType(w.at("environment"), "a string", e)
	}
	b, _ := json.Marshal(cfg)
	return builtin(ToolComputerUse, b)
}

// Lookup returns the declared tool named name, or nil.
func (r *Request) Lookup(name string) *Tool {
	for i := range r.Tools {
		if r.Tools[i].Name == name {
			return &r.Tools[i]
		}
	}
	return nil
}
