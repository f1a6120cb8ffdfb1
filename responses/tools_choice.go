package responses

import "github.com/tidwall/gjson"

// resolveToolChoice reads tool_choice in every form clients send and checks
// it against the declared tools: a choice that names a tool must name a
// declared function tool, and a choice that forces a call needs tools.
func (p *parser) resolveToolChoice(v gjson.Result) *Error {
	r := p.req
	switch {
	case v.Type == gjson.Null:
		return nil // default auto
	case v.Type == gjson.String:
		switch v.Str {
		case "auto", "none":
			r.ToolChoice = ToolChoice{Mode: ToolChoiceMode(v.Str)}
			return nil
		case "required":
			if len(r.Tools) == 0 {
				return Invalid("tool_choice", "invalid_value", "Invalid value for 'tool_choice': 'required' needs at least one function tool in 'tools'.")
			}
			r.ToolChoice = ToolChoice{Mode: ChoiceRequired}
			return nil
		}
		return errValue("tool_choice", v.Str, "auto", "none", "required")
	case !v.IsObject():
		return errType("tool_choice", "one of a string or an object", v)
	}
	typ, err := reqString(func(s string) string { return "tool_choice." + s }, "type", v.Get("type"))
	if err != nil {
		return err
	}
	switch typ {
	case "function":
		name, err := p.choiceName("tool_choice", v)
		if err != nil {
			return err
		}
		r.ToolChoice = ToolChoice{Mode: ChoiceFunction, Name: name}
		return nil
	case "allowed_tools":
		return p.allowedTools(v)
	}
	if hostedTool(typ) {
		return errHosted("tool_choice.type", "Tool choice", typ)
	}
	return errValue("tool_choice.type", typ, "function", "allowed_tools")
}

// choiceName reads the tool named by a {"type":"function"} choice, flat
// ({"name":"x"}) or Chat form ({"function":{"name":"x"}}), and checks that
// it is declared. base is the param path of the choice object.
func (p *parser) choiceName(base string, v gjson.Result) (string, *Error) {
	field, name := "name", v.Get("name")
	if fn := v.Get("function"); fn.Type != gjson.Null {
		if !fn.IsObject() {
			return "", errType(base+".function", "an object", fn)
		}
		field, name = "function.name", fn.Get("name")
	}
	s, err := reqString(func(f string) string { return base + "." + f }, field, name)
	if err != nil {
		return "", err
	}
	if p.tools.find(s) >= 0 {
		return s, nil
	}
	return "", Invalid(base+"."+field, "invalid_value", "Invalid value for '%s.%s': no function named '%s' is declared in 'tools'.", base, field, s)
}

// allowedTools reads {"type":"allowed_tools","mode":...,"tools":[...]}, a
// hard subset of the declared tools.
func (p *parser) allowedTools(v gjson.Result) *Error {
	mode := "auto"
	if err := optEnum("tool_choice.mode", v.Get("mode"), &mode, "auto", "required"); err != nil {
		return err
	}
	list := v.Get("tools")
	switch {
	case list.Type == gjson.Null:
		return errMissing("tool_choice.tools")
	case !list.IsArray():
		return errType("tool_choice.tools", "an array", list)
	}
	var names []string
	var err *Error
	i := 0
	list.ForEach(func(_, el gjson.Result) bool {
		w := where{base: "tool_choice.tools", i: i}
		i++
		if !el.IsObject() {
			err = errType(w.at(""), "an object", el)
			return false
		}
		var typ string
		if typ, err = reqString(w.at, "type", el.Get("type")); err != nil {
			return false
		}
		if typ != "function" {
			if hostedTool(typ) {
				err = errHosted(w.at("type"), "Tool", typ)
			} else {
				err = errValue(w.at("type"), typ, "function")
			}
			return false
		}
		var name string
		if name, err = p.choiceName(w.at(""), el); err != nil {
			return false
		}
		names = append(names, name)
		return true
	})
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return errEmptyArray("tool_choice.tools")
	}
	p.req.ToolChoice = ToolChoice{Mode: ChoiceAllowed, Allowed: names, AllowedMode: ToolChoiceMode(mode)}
	return nil
}
