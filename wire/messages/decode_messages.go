package messages

import (
	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// messages turns the Messages conversation into Responses input items. A
// message becomes several items when its blocks do: a user message's
// tool_result blocks are function_call_output items between runs of its
// other blocks; an assistant message's thinking and tool_use blocks are
// reasoning and function_call items, in the order sent.
func (d *decoder) messages(v gjson.Result) *responses.Error {
	if !v.IsArray() {
		return responses.ErrType("messages", "an array", v)
	}
	d.field("input", "[")
	var err *responses.Error
	i := 0
	v.ForEach(func(_, m gjson.Result) bool {
		err = d.message("messages."+itoa(i), m)
		i++
		return err == nil
	})
	d.out = append(d.out, ']')
	return err
}

// item starts one input item, recording where it came from.
func (d *decoder) item(p itemPath) {
	if d.out[len(d.out)-1] != '[' {
		d.out = append(d.out, ',')
	}
	d.paths.items = append(d.paths.items, p)
}

// message reads one message.
func (d *decoder) message(at string, m gjson.Result) *responses.Error {
	if !m.IsObject() {
		return responses.ErrType(at, "an object", m)
	}
	var err *responses.Error
	m.ForEach(func(k, _ gjson.Result) bool {
		if k.Str != "role" && k.Str != "content" {
			err = responses.Invalid(at+"."+k.Str, "unknown_parameter", "%s.%s: Extra inputs are not permitted", at, k.Str)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	role, content := m.Get("role"), m.Get("content")
	switch role.Str {
	case "user", "assistant", "system":
	default:
		if role.Type != gjson.String {
			return responses.ErrMissing(at + ".role")
		}
		return responses.ErrValue(at+".role", role.Str, "user", "assistant")
	}
	if content.Type == gjson.String {
		r := role.Str
		if r == "system" {
			r = "developer" // Claude Code's mid-conversation system message
		}
		d.item(itemPath{base: at, kind: pathMessage, parts: []string{at + ".content"}})
		d.out = append(d.out, `{"type":"message","role":"`+r+`","content":`...)
		d.out = append(d.out, content.Raw...)
		d.out = append(d.out, '}')
		return nil
	}
	if !content.IsArray() {
		if !content.Exists() || content.Type == gjson.Null {
			return responses.ErrMissing(at + ".content")
		}
		return responses.ErrType(at+".content", "a string or an array", content)
	}
	return d.blocks(at, role.Str, content)
}

// run collects consecutive blocks that make one message item.
type run struct {
	parts []string // the Messages path of each part
	body  []byte
}

// blocks reads a message's content blocks, in order.
func (d *decoder) blocks(at, role string, content gjson.Result) *responses.Error {
	var cur run
	flush := func() {
		if len(cur.parts) == 0 {
			return
		}
		r := role
		if r == "system" {
			r = "developer"
		}
		d.item(itemPath{base: at, kind: pathMessage, parts: cur.parts})
		d.out = append(d.out, `{"type":"message","role":"`+r+`","content":[`...)
		d.out = append(d.out, cur.body...)
		d.out = append(d.out, "]}"...)
		cur = run{}
	}
	var err *responses.Error
	j := 0
	content.ForEach(func(_, b gjson.Result) bool {
		bat := at + ".content." + itoa(j)
		j++
		if !b.IsObject() {
			err = responses.ErrType(bat, "an object", b)
			return false
		}
		typ := b.Get("type").Str
		switch {
		case typ == "tool_result" && role == "user":
			flush()
			err = d.toolResult(bat, b)
		case (typ == "tool_use" || typ == "thinking" || typ == "redacted_thinking") && role == "assistant":
			flush()
			err = d.assistantBlock(bat, typ, b)
		default:
			var part []byte
			part, err = contentPart(bat, role, typ, b)
			if err == nil {
				if len(cur.parts) > 0 {
					cur.body = append(cur.body, ',')
				}
				cur.body = append(cur.body, part...)
				cur.parts = append(cur.parts, bat)
			}
		}
		return err == nil
	})
	if err == nil {
		flush()
	}
	return err
}
