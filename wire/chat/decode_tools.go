package chat

import (
	"strconv"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// tools writes the chat tools as Responses tools, one for one: function
// and custom tools flattened, any other type as sent, for the tool policy
// to refuse or drop as it does Responses' hosted tools.
func (d *decoder) tools(v gjson.Result) *responses.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsArray() {
		return responses.ErrType("tools", "an array", v)
	}
	d.field("tools", "[")
	var err *responses.Error
	i := 0
	v.ForEach(func(_, t gjson.Result) bool {
		if i > 0 {
			d.out = append(d.out, ',')
		}
		at := "tools[" + strconv.Itoa(i) + "]"
		i++
		var kind string
		kind, err = d.tool(at, t)
		d.paths.tools = append(d.paths.tools, kind)
		return err == nil
	})
	d.out = append(d.out, ']')
	return err
}

// tool writes one tool and returns the chat object its fields live in
// ("function", "custom", "" for a type passed as sent).
func (d *decoder) tool(at string, t gjson.Result) (string, *responses.Error) {
	if !t.IsObject() {
		return "", responses.ErrType(at, "an object", t)
	}
	typ := t.Get("type")
	switch typ.Str {
	case "function", "custom":
		inner := t.Get(typ.Str)
		if !inner.IsObject() {
			if !inner.Exists() {
				return typ.Str, responses.ErrMissing(at + "." + typ.Str)
			}
			return typ.Str, responses.ErrType(at+"."+typ.Str, "an object", inner)
		}
		d.out = append(d.out, `{"type":"`+typ.Str+`"`...)
		strict := false
		inner.ForEach(func(k, v gjson.Result) bool {
			if k.Str == "strict" {
				strict = true
			}
			d.out = append(d.out, ',')
			d.out = gjson.AppendJSONString(d.out, k.Str)
			d.out = append(d.out, ':')
			if k.Str == "format" && typ.Str == "custom" {
				d.out = customFormat(d.out, v)
			} else {
				d.out = append(d.out, v.Raw...)
			}
			return true
		})
		if typ.Str == "function" && !strict {
			// Chat's functions are not strict unless asked; Responses' are.
			d.out = append(d.out, `,"strict":false`...)
		}
		d.out = append(d.out, '}')
		return typ.Str, nil
	}
	d.out = append(d.out, t.Raw...)
	return "", nil
}

// customFormat writes a custom tool's chat format ({"type":"grammar",
// "grammar":{"definition","syntax"}}) as Responses' flat one.
func customFormat(out []byte, f gjson.Result) []byte {
	g := f.Get("grammar")
	if f.Get("type").Str != "grammar" || !g.IsObject() {
		return append(out, f.Raw...)
	}
	out = append(out, `{"type":"grammar"`...)
	g.ForEach(func(k, v gjson.Result) bool {
		out = append(out, ',')
		out = gjson.AppendJSONString(out, k.Str)
		out = append(out, ':')
		out = append(out, v.Raw...)
		return true
	})
	return append(out, '}')
}

// toolChoice writes tool_choice: the modes as sent, a named function or
// custom tool flattened, allowed_tools unwrapped.
func (d *decoder) toolChoice(v gjson.Result) *responses.Error {
	if !v.IsObject() {
		d.field("tool_choice", v.Raw)
		return nil
	}
	typ := v.Get("type").Str
	d.paths.choice = typ
	switch typ {
	case "function", "custom":
		name := v.Get(typ + ".name")
		d.field("tool_choice", `{"type":"`+typ+`","name":`+rawOr(name, "null")+`}`)
	case "allowed_tools":
		a := v.Get("allowed_tools")
		b := []byte(`{"type":"allowed_tools","mode":`)
		b = append(b, rawOr(a.Get("mode"), `"auto"`)...)
		b = append(b, `,"tools":[`...)
		n := 0
		a.Get("tools").ForEach(func(_, t gjson.Result) bool {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			tt := t.Get("type").Str
			if tt == "function" || tt == "custom" {
				b = append(b, `{"type":"`+tt+`","name":`...)
				b = append(b, rawOr(t.Get(tt+".name"), "null")...)
				b = append(b, '}')
			} else {
				b = append(b, t.Raw...)
			}
			return true
		})
		d.field("tool_choice", string(append(b, "]}"...)))
	default:
		d.field("tool_choice", v.Raw)
	}
	return nil
}
