package fakeupstream

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

type cannedKey struct {
	api           api
	stream, usage bool
	model         string
}

// fixed serves the precomputed fixed-text answer: after the first request
// per model name it costs a map lookup and one write.
func (s *Server) fixed(c call) {
	k := cannedKey{api: c.api, stream: c.stream, model: gjson.GetBytes(c.body, "model").Str}
	if c.api == apiChat && c.stream {
		k.usage = gjson.GetBytes(c.body, "stream_options.include_usage").Bool()
	}
	if a, ok := s.canned.Load(k); ok {
		c.write(a.(*answer))
		return
	}
	o := output{model: k.model, text: s.opts.Text, in: 10}
	a := o.answer(c.api, c.stream, k.usage)
	s.canned.Store(k, a)
	c.write(a)
}

// scripted serves "echo" and "call" models, built per request.
func (s *Server) scripted(c call) {
	t := readTurn(c.body, c.api)
	o := output{model: gjson.GetBytes(c.body, "model").Str, in: int64(len(c.body)/4 + 1)}
	calling := c.plan.mode == modeCall || c.plan.mode == modeReason
	if c.plan.mode == modeReason {
		o.reasoning = true
		for _, inc := range gjson.GetBytes(c.body, "include").Array() {
			if inc.Str == "reasoning.encrypted_content" {
				o.encrypted = fmt.Sprintf("enc:%d-items", len(gjson.GetBytes(c.body, "input").Array()))
			}
		}
	}
	switch {
	case calling && len(t.outputs) > 0:
		o.text = "Tool results: " + strings.Join(t.outputs, "; ")
		if t.images > 0 {
			o.text += fmt.Sprintf(" (+%d image(s))", t.images)
		}
	case calling && (c.plan.arg != "" || len(t.tools) > 0):
		names := t.tools
		if c.plan.arg != "" {
			names = []string{c.plan.arg}
		}
		for i, n := range names {
			sc := scriptedCall{callID: "call_fake" + strconv.Itoa(i), name: n, args: "{}"}
			if c.plan.mode == modeReason && t.custom[n] {
				sc.custom, sc.args = true, "*** Begin Patch\n*** End Patch\n"
			}
			o.calls = append(o.calls, sc)
		}
	default:
		o.text = t.lastUser
		if o.text == "" {
			o.text = "(nothing to echo)"
		}
	}
	usage := c.api == apiResponses || gjson.GetBytes(c.body, "stream_options.include_usage").Bool()
	c.write(o.answer(c.api, c.stream, usage))
}

// turn is what a scripted model reads from a request: the last user text,
// the declared tool names, and the tool outputs after the last assistant turn.
type turn struct {
	lastUser string
	tools    []string
	custom   map[string]bool // the declared tools of type custom
	outputs  []string
	images   int
}

func readTurn(body []byte, a api) turn {
	var t turn
	gjson.GetBytes(body, "tools").ForEach(func(_, tool gjson.Result) bool {
		name := tool.Get("name").Str
		if name == "" {
			name = tool.Get("function.name").Str
		}
		if name != "" {
			t.tools = append(t.tools, name)
		}
		if tool.Get("type").Str == "custom" {
			if t.custom == nil {
				t.custom = map[string]bool{}
			}
			t.custom[name] = true
		}
		return true
	})
	if a == apiChat {
		t.readChat(gjson.GetBytes(body, "messages").Array())
		return t
	}
	in := gjson.GetBytes(body, "input")
	if in.Type == gjson.String {
		t.lastUser = in.Str
		return t
	}
	t.readResponses(in.Array())
	return t
}

// readResponses scans back to the last assistant message or function call.
func (t *turn) readResponses(items []gjson.Result) {
	userSeen := false
	for i := len(items) - 1; i >= 0; i-- {
		it := items[i]
		typ := it.Get("type").Str
		role := it.Get("role").Str
		switch {
		case typ == "function_call" || typ == "custom_tool_call" || role == "assistant":
			return
		case typ == "function_call_output" || typ == "custom_tool_call_output":
			text, imgs := partsText(it.Get("output"))
			t.outputs = append([]string{it.Get("call_id").Str + ": " + text}, t.outputs...)
			t.images += imgs
		case role == "user" && !userSeen:
			userSeen = true
			t.lastUser, _ = partsText(it.Get("content"))
		}
	}
}

// readChat scans back to the last assistant message.
func (t *turn) readChat(msgs []gjson.Result) {
	userSeen := false
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		switch m.Get("role").Str {
		case "assistant":
			return
		case "tool":
			text, imgs := partsText(m.Get("content"))
			t.outputs = append([]string{m.Get("tool_call_id").Str + ": " + text}, t.outputs...)
			t.images += imgs
		case "user":
			text, imgs := partsText(m.Get("content"))
			t.images += imgs
			if !userSeen {
				userSeen = true
				t.lastUser = text
			}
		}
	}
}

// partsText joins the text of a string or a parts array and counts images.
func partsText(v gjson.Result) (string, int) {
	if v.Type == gjson.String {
		return v.Str, 0
	}
	var texts []string
	images := 0
	v.ForEach(func(_, p gjson.Result) bool {
		switch p.Get("type").Str {
		case "input_text", "output_text", "text":
			texts = append(texts, p.Get("text").Str)
		case "input_image", "image_url":
			images++
		}
		return true
	})
	return strings.Join(texts, " "), images
}
