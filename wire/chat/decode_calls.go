package chat

import (
	"strconv"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// assistant writes an assistant message: its content and refusal as one
// message item, then one call item per tool call, with the same call ids.
func (d *decoder) assistant(at string, m gjson.Result) *responses.Error {
	content, refusal := m.Get("content"), m.Get("refusal")
	var parts []string // the chat path of each Responses part
	switch {
	case content.Type == gjson.String && content.Str != "":
		parts = append(parts, at+".content")
	case content.IsArray():
		for j := range content.Array() {
			parts = append(parts, at+".content["+strconv.Itoa(j)+"]")
		}
	case content.Exists() && content.Type != gjson.Null && content.Type != gjson.String:
		return responses.ErrType(at+".content", "a string or an array", content)
	}
	if refusal.Exists() && refusal.Type != gjson.Null {
		if refusal.Type != gjson.String {
			return responses.ErrType(at+".refusal", "a string", refusal)
		}
		parts = append(parts, at+".refusal")
	}
	if len(parts) > 0 {
		if err := d.assistantMessage(at, parts, content, refusal); err != nil {
			return err
		}
	}
	calls := m.Get("tool_calls")
	switch {
	case !calls.Exists() || calls.Type == gjson.Null:
		return nil
	case !calls.IsArray():
		return responses.ErrType(at+".tool_calls", "an array", calls)
	}
	var err *responses.Error
	k := 0
	calls.ForEach(func(_, c gjson.Result) bool {
		err = d.toolCall(at+".tool_calls["+strconv.Itoa(k)+"]", c)
		k++
		return err == nil
	})
	return err
}

// assistantMessage writes the message item of an assistant message:
// output_text parts and a refusal part.
func (d *decoder) assistantMessage(at string, parts []string, content, refusal gjson.Result) *responses.Error {
	d.item(itemPath{base: at, kind: pathMessage, parts: parts})
	d.out = append(d.out, `{"type":"message","role":"assistant","content":[`...)
	n := 0
	sep := func() {
		if n > 0 {
			d.out = append(d.out, ',')
		}
		n++
	}
	if content.Type == gjson.String && content.Str != "" {
		sep()
		d.out = append(d.out, `{"type":"output_text","text":`...)
		d.out = append(d.out, content.Raw...)
		d.out = append(d.out, '}')
	}
	var err *responses.Error
	if !content.IsArray() {
		content = gjson.Result{}
	}
	content.ForEach(func(_, p gjson.Result) bool {
		sep()
		err = assistantPart(&d.out, parts[n-1], p)
		return err == nil
	})
	if err != nil {
		return err
	}
	if refusal.Type == gjson.String {
		sep()
		d.out = append(d.out, `{"type":"refusal","refusal":`...)
		d.out = append(d.out, refusal.Raw...)
		d.out = append(d.out, '}')
	}
	d.out = append(d.out, "]}"...)
	return nil
}

// assistantPart writes one part of an assistant message's content: text
// or refusal.
func assistantPart(out *[]byte, at string, p gjson.Result) *responses.Error {
	if !p.IsObject() {
		return responses.ErrType(at, "an object", p)
	}
	switch typ := p.Get("type"); typ.Str {
	case "text":
		*out = append(*out, `{"type":"output_text","text":`...)
		*out = append(*out, rawOr(p.Get("text"), "null")...)
	case "refusal":
		*out = append(*out, `{"type":"refusal","refusal":`...)
		*out = append(*out, rawOr(p.Get("refusal"), "null")...)
	default:
		if typ.Type != gjson.String {
			return responses.ErrMissing(at + ".type")
		}
		return responses.ErrValue(at+".type", typ.Str, "text", "refusal")
	}
	*out = append(*out, '}')
	return nil
}

// toolCall writes one tool call of an assistant message as a
// function_call or custom_tool_call item.
func (d *decoder) toolCall(at string, c gjson.Result) *responses.Error {
	if !c.IsObject() {
		return responses.ErrType(at, "an object", c)
	}
	id := c.Get("id")
	switch typ := c.Get("type"); {
	case typ.Str == "custom":
		cu := c.Get("custom")
		if !cu.IsObject() {
			return responses.ErrType(at+".custom", "an object", cu)
		}
		if d.custom == nil {
			d.custom = map[string]bool{}
		}
		d.custom[id.Str] = true
		d.item(itemPath{base: at, kind: pathCustomCall})
		d.out = append(d.out, `{"type":"custom_tool_call","call_id":`...)
		d.out = append(d.out, rawOr(id, "null")...)
		d.out = append(d.out, `,"name":`...)
		d.out = append(d.out, rawOr(cu.Get("name"), "null")...)
		d.out = append(d.out, `,"input":`...)
		d.out = append(d.out, rawOr(cu.Get("input"), "null")...)
	case typ.Str == "function" || !typ.Exists():
		fn := c.Get("function")
		if !fn.IsObject() {
			if !fn.Exists() {
				return responses.ErrMissing(at + ".function")
			}
			return responses.ErrType(at+".function", "an object", fn)
		}
		d.item(itemPath{base: at, kind: pathCall})
		d.out = append(d.out, `{"type":"function_call","call_id":`...)
		d.out = append(d.out, rawOr(id, "null")...)
		d.out = append(d.out, `,"name":`...)
		d.out = append(d.out, rawOr(fn.Get("name"), "null")...)
		d.out = append(d.out, `,"arguments":`...)
		d.out = append(d.out, rawOr(fn.Get("arguments"), "null")...)
	case typ.Type != gjson.String:
		return responses.ErrType(at+".type", "a string", typ)
	default:
		return responses.ErrValue(at+".type", typ.Str, "function", "custom")
	}
	d.out = append(d.out, '}')
	return nil
}

// toolMessage writes a tool message as the output of the call it answers.
func (d *decoder) toolMessage(at string, m gjson.Result) *responses.Error {
	id, content := m.Get("tool_call_id"), m.Get("content")
	typ := "function_call_output"
	if d.custom[id.Str] {
		typ = "custom_tool_call_output"
	}
	d.item(itemPath{base: at, kind: pathOutput})
	d.out = append(d.out, `{"type":"`+typ+`","call_id":`...)
	d.out = append(d.out, rawOr(id, "null")...)
	d.out = append(d.out, `,"output":`...)
	switch {
	case content.Type == gjson.String:
		d.out = append(d.out, content.Raw...)
	case content.IsArray():
		d.out = append(d.out, '[')
		var err *responses.Error
		j := 0
		content.ForEach(func(_, part gjson.Result) bool {
			if j > 0 {
				d.out = append(d.out, ',')
			}
			err = d.inputPart(at+".content["+strconv.Itoa(j)+"]", part)
			j++
			return err == nil
		})
		if err != nil {
			return err
		}
		d.out = append(d.out, ']')
	case !content.Exists() || content.Type == gjson.Null:
		return responses.ErrMissing(at + ".content")
	default:
		return responses.ErrType(at+".content", "a string or an array", content)
	}
	d.out = append(d.out, '}')
	return nil
}
