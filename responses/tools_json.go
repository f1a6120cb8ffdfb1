package responses

import (
	"strconv"

	"github.com/tidwall/gjson"
)

// JSON returns the canonical flat echo of the tool, as the response object
// lists it: {"type":"function","name","description","parameters","strict"},
// description null when the client sent none.
func (t *Tool) JSON() []byte {
	return t.appendJSON(make([]byte, 0, 64+len(t.Name)+len(t.Description)+len(t.Parameters)))
}

func (t *Tool) appendJSON(b []byte) []byte {
	switch t.Kind {
	case ToolCustom:
		b = append(b, `{"type":"custom","name":`...)
		b = gjson.AppendJSONString(b, t.Name)
		if t.HasDesc { // the spec's custom tool has a string or no description
			b = append(b, `,"description":`...)
			b = gjson.AppendJSONString(b, t.Description)
		}
		b = append(b, `,"format":`...)
		if len(t.Format) == 0 {
			b = append(b, `{"type":"text"}`...)
		} else {
			b = append(b, t.Format...)
		}
		return append(b, '}')
	case "", ToolFunction:
	default:
		return append(b, t.Config...)
	}
	b = append(b, `{"type":"function","name":`...)
	b = gjson.AppendJSONString(b, t.Name)
	b = append(b, `,"description":`...)
	if t.HasDesc {
		b = gjson.AppendJSONString(b, t.Description)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"parameters":`...)
	if len(t.Parameters) == 0 {
		b = append(b, emptySchema...)
	} else {
		b = append(b, t.Parameters...)
	}
	b = append(b, `,"strict":`...)
	b = strconv.AppendBool(b, t.Strict)
	return append(b, '}')
}

// ToolsJSON returns the echo of the "tools" array of a response: every
// canonical tool, in the order the client declared them.
func ToolsJSON(tools []Tool) []byte {
	n := 2
	for i := range tools {
		n += 64 + len(tools[i].Name) + len(tools[i].Description) + len(tools[i].Parameters)
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i := 0; i < len(tools); i++ {
		if i > 0 {
			b = append(b, ',')
		}
		ns := tools[i].Namespace
		if ns == "" {
			b = tools[i].appendJSON(b)
			continue
		}
		// The functions of one namespace are echoed as the namespace
		// tool the client declared.
		b = append(b, `{"type":"namespace","name":`...)
		b = gjson.AppendJSONString(b, ns)
		b = append(b, `,"description":`...)
		if d := tools[i].NamespaceDesc; d != nil {
			b = gjson.AppendJSONString(b, *d)
		} else {
			b = append(b, `""`...) // the spec requires a string
		}
		b = append(b, `,"tools":[`...)
		for j := i; j < len(tools) && tools[j].Namespace == ns; j++ {
			if j > i {
				b = append(b, ',')
			}
			b = tools[j].appendJSON(b)
			i = j
		}
		b = append(b, "]}"...)
	}
	return append(b, ']')
}

// appendToolRef writes the reference tool_choice uses for the declared
// tool named name: {"type":"function","name"}, {"type":"custom","name"} or
// {"type":"shell"}.
func (r *Request) appendToolRef(b []byte, name string) []byte {
	t := r.Lookup(name)
	kind := ToolFunction
	if t != nil && t.Kind != "" {
		kind = t.Kind
	}
	switch kind {
	case ToolFunction, ToolCustom:
		b = append(b, `{"type":"`...)
		b = append(b, kind...)
		b = append(b, `","name":`...)
		b = gjson.AppendJSONString(b, name)
		return append(b, '}')
	}
	b = append(b, `{"type":`...)
	b = gjson.AppendJSONString(b, gjson.GetBytes(t.Config, "type").Str)
	return append(b, '}')
}

// ToolChoiceJSON returns the canonical Responses-form echo of tool_choice:
// "auto", "none", "required", {"type":"function","name":"x"} or
// {"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"x"}]},
// whichever form the client sent it in.
func (r *Request) ToolChoiceJSON() []byte {
	c := &r.ToolChoice
	switch c.Mode {
	case ChoiceFunction:
		return r.appendToolRef(make([]byte, 0, 36+len(c.Name)), c.Name)
	case ChoiceAllowed:
		mode := c.AllowedMode
		if mode == "" {
			mode = ChoiceAuto
		}
		b := append(make([]byte, 0, 64+40*len(c.Allowed)), `{"type":"allowed_tools","mode":`...)
		b = gjson.AppendJSONString(b, string(mode))
		b = append(b, `,"tools":[`...)
		for i, name := range c.Allowed {
			if i > 0 {
				b = append(b, ',')
			}
			b = r.appendToolRef(b, name)
		}
		return append(b, "]}"...)
	case ChoiceNone, ChoiceRequired:
		return []byte(`"` + string(c.Mode) + `"`)
	}
	return []byte(`"auto"`)
}
