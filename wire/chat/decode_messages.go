package chat

import (
	"strconv"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// messageKeys are the keys a chat message may carry, whatever its role.
// annotations is read and dropped: a chat.completion's message carries it
// (farebox's too), and SDK code sends that message back as the next
// request's history (the openai SDK's documented tool loop), which OpenAI
// accepts.
var messageKeys = map[string]bool{
	"role": true, "content": true, "name": true, "tool_calls": true, "tool_call_id": true,
	"refusal": true, "audio": true, "function_call": true, "annotations": true,
}

// messages turns the chat messages into Responses input items, recording
// each item's chat path for errors.
func (d *decoder) messages(v gjson.Result) *responses.Error {
	if !v.IsArray() {
		return responses.ErrType("messages", "an array", v)
	}
	d.field("input", "[")
	var err *responses.Error
	i := 0
	v.ForEach(func(_, m gjson.Result) bool {
		at := "messages[" + strconv.Itoa(i) + "]"
		i++
		err = d.message(at, m)
		return err == nil
	})
	if err != nil {
		return err
	}
	d.out = append(d.out, ']')
	return nil
}

// item starts one input item, recording where it came from.
func (d *decoder) item(p itemPath) {
	if d.out[len(d.out)-1] != '[' {
		d.out = append(d.out, ',')
	}
	d.paths.items = append(d.paths.items, p)
}

// message reads one chat message into one or more input items.
func (d *decoder) message(at string, m gjson.Result) *responses.Error {
	if !m.IsObject() {
		return responses.ErrType(at, "an object", m)
	}
	var err *responses.Error
	m.ForEach(func(k, _ gjson.Result) bool {
		if !messageKeys[k.Str] {
			err = responses.ErrUnknown(at + "." + k.Str)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	role := m.Get("role")
	if role.Type != gjson.String {
		if !role.Exists() || role.Type == gjson.Null {
			return responses.ErrMissing(at + ".role")
		}
		return responses.ErrType(at+".role", "a string", role)
	}
	for _, k := range [...]string{"audio", "function_call"} {
		if f := m.Get(k); f.Exists() && f.Type != gjson.Null {
			return reparam(refuse(k, f), at+"."+k)
		}
	}
	switch role.Str {
	case "system", "developer", "user":
		return d.inputMessage(at, role.Str, m.Get("content"))
	case "assistant":
		return d.assistant(at, m)
	case "tool":
		return d.toolMessage(at, m)
	case "function":
		return responses.Invalid(at+".role", "unsupported_value", "Invalid value: 'function'. Function messages are deprecated and not supported: answer a tool call with a 'tool' message.")
	}
	return responses.ErrValue(at+".role", role.Str, "system", "developer", "user", "assistant", "tool")
}

// reparam points err (when not nil) at param instead.
func reparam(err *responses.Error, param string) *responses.Error {
	if err != nil {
		err.Message = replaceParam(err.Message, err.Param, param)
		err.Param = param
	}
	return err
}

// inputMessage writes a system, developer or user message.
func (d *decoder) inputMessage(at, role string, content gjson.Result) *responses.Error {
	d.item(itemPath{base: at, kind: pathMessage})
	d.out = append(d.out, `{"type":"message","role":`...)
	d.out = gjson.AppendJSONString(d.out, role)
	d.out = append(d.out, `,"content":`...)
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

// inputPart writes one content part of a user, system or developer
// message (or a tool message's output) as its Responses part.
func (d *decoder) inputPart(at string, part gjson.Result) *responses.Error {
	if !part.IsObject() {
		return responses.ErrType(at, "an object", part)
	}
	typ := part.Get("type")
	switch typ.Str {
	case "text":
		d.out = append(d.out, `{"type":"input_text","text":`...)
		d.out = append(d.out, rawOr(part.Get("text"), "null")...)
	case "image_url":
		img := part.Get("image_url")
		if !img.IsObject() {
			return responses.ErrType(at+".image_url", "an object", img)
		}
		d.out = append(d.out, `{"type":"input_image","image_url":`...)
		d.out = append(d.out, rawOr(img.Get("url"), "null")...)
		if det := img.Get("detail"); det.Exists() {
			d.out = append(d.out, `,"detail":`...)
			d.out = append(d.out, det.Raw...)
		}
	case "file":
		f := part.Get("file")
		if !f.IsObject() {
			return responses.ErrType(at+".file", "an object", f)
		}
		d.out = append(d.out, `{"type":"input_file"`...)
		f.ForEach(func(k, v gjson.Result) bool {
			d.out = append(d.out, ',')
			d.out = gjson.AppendJSONString(d.out, k.Str)
			d.out = append(d.out, ':')
			d.out = append(d.out, v.Raw...)
			return true
		})
	case "input_audio":
		return responses.Invalid(at+".type", "unsupported_value", "Invalid value: 'input_audio'. farebox takes text, images and files, not audio.")
	default:
		if typ.Type != gjson.String {
			return responses.ErrMissing(at + ".type")
		}
		return responses.ErrValue(at+".type", typ.Str, "text", "image_url", "file")
	}
	d.out = append(d.out, '}')
	return nil
}

// rawOr is v as sent, or def when v is absent.
func rawOr(v gjson.Result, def string) string {
	if !v.Exists() {
		return def
	}
	return v.Raw
}
