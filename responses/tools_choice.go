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
	if name, ok, err := p.choiceOther("tool_choice", typ, v); err != nil || ok {
		if ok {
			r.ToolChoice = ToolChoice{Mode: ChoiceFunction, Name: name}
		}
		return err
	}
	if hostedTool(typ) {
		if p.policy == HostedRefuse {
			return errHosted("tool_choice.type", "Tool choice", typ)
		}
		return nil // the tool was dropped, so forcing it means nothing: auto
	}
	return errValue("tool_choice.type", typ, "function", "custom", "allowed_tools")
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
		var name string
		if typ == "function" {
			if name, err = p.choiceName(w.at(""), el); err != nil {
				return false
			}
			names = append(names, name)
			return true
		}
		var ok bool
		if name, ok, err = p.choiceOther(w.at(""), typ, el); ok {
			names = append(names, name)
		}
		if err != nil || ok {
			return err == nil
		}
		switch {
		case !hostedTool(typ):
			err = errValue(w.at("type"), typ, "function", "custom")
		case p.policy == HostedRefuse:
			err = errHosted(w.at("type"), "Tool", typ)
		}
		return err == nil // a dropped hosted tool is left out of the subset
	})
	if err != nil {
		return err
	}
	if len(names) == 0 {
		if i > 0 {
			return nil // only dropped hosted tools were allowed: auto
		}
		return errEmptyArray("tool_choice.tools")
	}
	p.req.ToolChoice = ToolChoice{Mode: ChoiceAllowed, Allowed: names, AllowedMode: ToolChoiceMode(mode)}
	return nil
}

// choiceOther resolves a choice of a custom tool ({"type":"custom","name"})
// or of a built-in client tool ({"type":"shell"}) to the declared tool's
// name; ok is false when typ is neither.
func (p *parser) choiceOther(base, typ string, v gjson.Result) (name string, ok bool, err *Error) {
	switch typ {
	case "custom":
		s, err := reqString(func(f string) string { return base + "." + f }, "name", v.Get("name"))
		if err != nil {
			return "", true, err
		}
		if t := p.req.Lookup(s); t == nil || t.Kind != ToolCustom {
			return "", true, Invalid(base+".name", "invalid_value", "Invalid value for '%s.name': no custom tool named '%s' is declared in 'tools'.", base, s)
		}
		return s, true, nil
	case "local_shell", "shell", "apply_patch", "computer_use_preview", "computer":
		kind := ToolKind(typ)
		if typ == "computer" {
			kind = ToolComputerUse
		}
		if t := p.req.Lookup(string(kind)); t == nil || t.Kind != kind {
			return "", true, Invalid(base+".type", "invalid_value", "Invalid value for '%s.type': no %s tool is declared in 'tools'.", base, typ)
		}
		return string(kind), true, nil
	}
	return "", false, nil
}
