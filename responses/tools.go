package responses

import (
	"strings"

	"github.com/tidwall/gjson"
)

// This file is the deny-all tool policy on the way in: every declared tool
// becomes a canonical client-side function tool rebuilt from the allowed
// fields only, and every server-side (hosted) tool is refused.

// maxToolName is the longest function name OpenAI accepts.
const maxToolName = 64

// emptySchema is the parameters of a function tool that declares none.
var emptySchema = []byte(`{"type":"object","properties":{}}`)

// parseTools reads "tools": flat Responses function tools and nested Chat
// Completions ones, namespaces (flattened into their functions), custom
// tools and the built-in tools the client executes. Provider-executed tools
// are refused or dropped as the policy says. The index it fills answers
// tool_choice's lookups.
func (p *parser) parseTools(v gjson.Result) ([]Tool, *Error) {
	switch {
	case v.Type == gjson.Null:
		return nil, nil
	case !v.IsArray():
		return nil, errType("tools", "an array", v)
	}
	tools := make([]Tool, 0, 4)
	var err *Error
	i := 0
	add := func(w where, t Tool, nameField string) bool {
		if p.tools.find(t.Name) >= 0 {
			err = Invalid(w.at(nameField), "invalid_value", "Invalid '%s': duplicate function name '%s'. Tool names must be unique.", w.at(nameField), t.Name)
			return false
		}
		p.tools.add(t.Name)
		tools = append(tools, t)
		return true
	}
	v.ForEach(func(_, el gjson.Result) bool {
		w := where{base: "tools", i: i}
		i++
		typ := el.Get("type")
		if el.IsObject() && typ.Type == gjson.String && typ.Str != "function" {
			var ts []Tool
			var fields []string
			if ts, fields, err = p.parseOtherTool(w, typ.Str, el); err != nil {
				return false
			}
			for k := range ts {
				if !add(w, ts[k], fields[k]) {
					return false
				}
			}
			return true
		}
		var t Tool
		var nameField string
		if t, nameField, err = parseTool(w, el); err != nil {
			return false
		}
		return add(w, t, nameField)
	})
	return tools, err
}

// toolFields are the only keys of a function tool that survive the policy.
type toolFields struct {
	typ, name, description, parameters, strict, function gjson.Result
}

func collectTool(v gjson.Result) toolFields {
	var f toolFields
	v.ForEach(func(k, val gjson.Result) bool {
		switch k.Str {
		case "type":
			f.typ = val
		case "name":
			f.name = val
		case "description":
			f.description = val
		case "parameters":
			f.parameters = val
		case "strict":
			f.strict = val
		case "function":
			f.function = val
		}
		return true
	})
	return f
}

// parseTool reads one tool; it returns the param path of its name field
// ("name" or "function.name") for the duplicate check.
func parseTool(w where, v gjson.Result) (Tool, string, *Error) {
	if !v.IsObject() {
		return Tool{}, "", errType(w.at(""), "an object", v)
	}
	f := collectTool(v)
	typ, err := reqString(w.at, "type", f.typ)
	if err != nil {
		return Tool{}, "", err
	}
	if typ != "function" {
		if hostedTool(typ) {
			return Tool{}, "", errHosted(w.at("type"), "Tool", typ)
		}
		return Tool{}, "", errValue(w.at("type"), typ, "function")
	}
	// Flat Responses form: strict defaults to true. Nested Chat form: the
	// definition is under "function" and strict defaults to false, as in
	// Chat Completions, so a Chat client's loose schema is not made strict.
	prefix, strict := "", true
	if f.function.Type != gjson.Null {
		if !f.function.IsObject() {
			return Tool{}, "", errType(w.at("function"), "an object", f.function)
		}
		f = collectTool(f.function)
		prefix, strict = "function.", false
	}
	t, err := canonicalTool(w, prefix, &f, strict)
	return t, prefix + "name", err
}

// canonicalTool rebuilds a tool from name, description, parameters and
// strict; nothing else the client sent is kept.
func canonicalTool(w where, prefix string, f *toolFields, strict bool) (Tool, *Error) {
	t := Tool{Strict: strict}
	at := func(field string) string { return w.at(prefix + field) }
	var err *Error
	if t.Name, err = reqString(at, "name", f.name); err != nil {
		return t, err
	}
	if err = checkName(at, "name", t.Name); err != nil {
		return t, err
	}
	switch f.description.Type {
	case gjson.Null:
	case gjson.String:
		t.Description, t.HasDesc = f.description.Str, true
	default:
		return t, errType(at("description"), "a string", f.description)
	}
	switch {
	case f.parameters.Type == gjson.Null:
		t.Parameters = emptySchema
	case f.parameters.IsObject():
		t.Parameters = compact(f.parameters.Raw)
	default:
		return t, errType(at("parameters"), "an object", f.parameters)
	}
	if f.strict.Type != gjson.Null { // the param path is built only for an error
		err = optBool(at("strict"), f.strict, &t.Strict)
	}
	return t, err
}

// checkName enforces ^[a-zA-Z0-9_-]{1,64}$ on a function (or schema) name;
// at builds the param path of field only when an error needs it.
func checkName(at func(string) string, field, name string) *Error {
	if validName(name) {
		return nil
	}
	param := at(field)
	if name == "" {
		return errEmptyString(param)
	}
	if len(name) > maxToolName {
		return errTooLong(param, maxToolName, len(name))
	}
	return Invalid(param, "invalid_value", "Invalid '%s': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.", param)
}

// validName reports whether name matches ^[a-zA-Z0-9_-]{1,64}$.
func validName(name string) bool {
	if name == "" || len(name) > maxToolName {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// hostedTool reports whether a tool type names a tool the provider would
// execute (including dated variants such as web_search_preview_2025_03_11).
func hostedTool(typ string) bool {
	switch typ {
	case "file_search", "code_interpreter", "image_generation", "mcp", "tool_search":
		return true
	}
	return strings.HasPrefix(typ, "web_search")
}
