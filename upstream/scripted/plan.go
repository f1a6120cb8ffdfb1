package scripted

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash"
	"slices"
	"strings"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// call is one function call the model will make; a custom call's
// Arguments is its free-text input.
type call struct {
	ID, Name, Arguments string
	Custom              bool
}

// plan is what the model answers to one request: text, or calls.
type plan struct {
	text  string
	calls []call
}

// makePlan decides the answer. In order: a conversation ending with
// function_call_output items gets text quoting them (even when tool_choice
// forces a tool, so a client loop always ends); then the tools chosen by
// choose are called; otherwise the last user message is echoed.
func makePlan(req *responses.Request) plan {
	if outs := trailingOutputs(req.Input); len(outs) > 0 {
		return plan{text: quoteOutputs(req.Input, outs)}
	}
	if names := choose(req); len(names) > 0 {
		ids := callIDs(req, len(names))
		calls := make([]call, len(names))
		for i, n := range names {
			t := toolByName(req, n)
			if t.Kind == responses.ToolCustom {
				calls[i] = call{ID: ids[i], Name: n, Arguments: freeformInput(req), Custom: true}
				continue
			}
			calls[i] = call{ID: ids[i], Name: n, Arguments: Arguments(t.Parameters)}
		}
		return plan{calls: calls}
	}
	return plan{text: formatted(req, echo(req.Input))}
}

// freeformInput is a custom tool's input: the last user message's text,
// as a model would pass the user's words on.
func freeformInput(req *responses.Request) string {
	if i := lastUser(req.Input); i >= 0 {
		return partsText(req.Input[i].Content)
	}
	return ""
}

// callable reports whether the scripted model calls a tool of this kind:
// functions and custom tools. Built-in client tools (shell, computer use)
// take actions it has no script for.
func callable(t *responses.Tool) bool {
	return t.Kind == "" || t.Kind == responses.ToolFunction || t.Kind == responses.ToolCustom
}

// formatted honours text.format: a json_schema answer is JSON that
// validates against the schema (built as tool arguments are), a json_object
// answer is {"answer": text}; plain text otherwise.
func formatted(req *responses.Request, text string) string {
	f := gjson.GetBytes(req.Text, "format")
	switch f.Get("type").Str {
	case "json_schema":
		return Arguments(json.RawMessage(f.Get("schema").Raw))
	case "json_object":
		b, _ := json.Marshal(map[string]string{"answer": text})
		return string(b)
	}
	return text
}

// lastUser returns the index of the last user message, or -1.
func lastUser(items []responses.Item) int {
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Type == responses.ItemMessage && items[i].Role == "user" {
			return i
		}
	}
	return -1
}

// partsText renders parts as text: text parts as they are, an image as
// "[image]", a file as "[file]" or "[file NAME]", joined by spaces.
func partsText(parts []responses.Part) string {
	var out []string
	for _, p := range parts {
		switch p.Type {
		case "input_image":
			out = append(out, "[image]")
		case "input_file":
			if p.Filename != "" {
				out = append(out, "[file "+p.Filename+"]")
			} else {
				out = append(out, "[file]")
			}
		default: // input_text, output_text, refusal
			out = append(out, p.Text)
		}
	}
	return strings.Join(out, " ")
}

// echo answers "You said: <text>" with the last user message. Instructions
// and system or developer messages do not change the echo.
func echo(items []responses.Item) string {
	i := lastUser(items)
	if i < 0 {
		return "There is no user message to answer."
	}
	return "You said: " + partsText(items[i].Content)
}

// trailingOutputs returns the indexes of the function_call_output items of
// the last tool round: the run of calls, outputs and reasoning items that
// ends the conversation, when its last non-reasoning item is an output.
func trailingOutputs(items []responses.Item) []int {
	var outs []int
	endsWithOutput := false
	for i := len(items) - 1; i >= 0; i-- {
		switch items[i].Type {
		case responses.ItemReasoning:
			continue
		case responses.ItemFunctionCall, responses.ItemCustomCall, responses.ItemClientCall:
			if len(outs) == 0 {
				return nil // ends with a call
			}
			continue
		case responses.ItemFunctionCallOutput, responses.ItemCustomCallOutput, responses.ItemClientCallOutput:
			if len(outs) == 0 {
				endsWithOutput = true
			}
			outs = append(outs, i)
			continue
		}
		break
	}
	if !endsWithOutput {
		return nil
	}
	slices.Reverse(outs)
	return outs
}

// quoteOutputs answers with one line per output: "<tool> returned: <text>",
// naming the tool by the call the output answers.
func quoteOutputs(items []responses.Item, outs []int) string {
	lines := make([]string, 0, len(outs))
	for _, i := range outs {
		o := items[i]
		name := o.CallID
		for _, it := range items {
			if (it.Type == responses.ItemFunctionCall || it.Type == responses.ItemCustomCall) && it.CallID == o.CallID {
				name = it.Name
				break
			}
			if it.Type == responses.ItemClientCall && it.CallID == o.CallID {
				name = it.Wire
				break
			}
		}
		text := o.OutputText
		switch {
		case o.Type == responses.ItemClientCallOutput:
			text = gjson.GetBytes(o.Raw, "output").String()
		case !o.OutputIsString:
			text = partsText(o.Output)
		}
		lines = append(lines, name+" returned: "+text)
	}
	return strings.Join(lines, "\n")
}

// choose names the tools to call, in order. Tools the user names in the
// last user message (a whole-word, case-insensitive match) are called in
// the order they appear in the message: all of them when
// parallel_tool_calls is true, else the first. tool_choice narrows or
// forces: "none" calls nothing; a named function is called alone;
// "required" (and allowed_tools in required mode) falls back to the first
// declared (allowed) tool when the message names none. Only calls
// req.Permits are chosen, and at most max_tool_calls.
func choose(req *responses.Request) []string {
	tc := req.ToolChoice
	if len(req.Tools) == 0 || tc.Mode == responses.ChoiceNone {
		return nil
	}
	var names []string
	if tc.Mode == responses.ChoiceFunction {
		if req.Permits(tc.Name) {
			names = []string{tc.Name}
		}
	} else {
		text := ""
		if i := lastUser(req.Input); i >= 0 {
			text = partsText(req.Input[i].Content)
		}
		for _, n := range mentioned(text, req.Tools) {
			if req.Permits(n) {
				names = append(names, n)
			}
		}
		if len(names) == 0 {
			names = fallback(req)
		}
	}
	if len(names) > 1 && !req.ParallelToolCalls {
		names = names[:1]
	}
	if req.MaxToolCalls != nil && int64(len(names)) > *req.MaxToolCalls {
		names = names[:max(*req.MaxToolCalls, 0)]
	}
	return names
}

// fallback is the tool a required tool_choice calls when the message names
// none.
func fallback(req *responses.Request) []string {
	tc := req.ToolChoice
	var candidates []string
	switch {
	case tc.Mode == responses.ChoiceRequired:
		for i := range req.Tools {
			if callable(&req.Tools[i]) {
				candidates = append(candidates, req.Tools[i].Name)
			}
		}
	case tc.Mode == responses.ChoiceAllowed && tc.AllowedMode == responses.ChoiceRequired:
		candidates = tc.Allowed
	}
	for _, n := range candidates {
		if req.Permits(n) {
			return []string{n}
		}
	}
	return nil
}

// mentioned returns the names of the tools that occur in text as whole
// words (ignoring case), ordered by first occurrence.
func mentioned(text string, tools []responses.Tool) []string {
	lower := strings.ToLower(text)
	type hit struct {
		name string
		at   int
	}
	var hits []hit
	for _, t := range tools {
		if !callable(&t) {
			continue
		}
		if at := wordIndex(lower, strings.ToLower(t.Name)); at >= 0 {
			hits = append(hits, hit{t.Name, at})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.at - b.at })
	names := make([]string, len(hits))
	for i, h := range hits {
		names[i] = h.name
	}
	return names
}

// wordIndex finds word in s where it is not part of a longer tool name
// (letters, digits, "_" and "-" continue a name).
func wordIndex(s, word string) int {
	if word == "" {
		return -1
	}
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], word)
		if i < 0 {
			return -1
		}
		at := from + i
		end := at + len(word)
		if (at == 0 || !nameByte(s[at-1])) && (end == len(s) || !nameByte(s[end])) {
			return at
		}
		from = at + 1
	}
	return -1
}

func nameByte(c byte) bool {
	return c == '_' || c == '-' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

func toolByName(req *responses.Request, name string) responses.Tool {
	for _, t := range req.Tools {
		if t.Name == name {
			return t
		}
	}
	return responses.Tool{}
}

// callIDs derives n call ids from a hash of the conversation: the same
// request always gets the same ids, and none equals a call_id already in
// the input.
func callIDs(req *responses.Request, n int) []string {
	h := sha256.New()
	writeConversation(h, req)
	taken := map[string]bool{}
	for _, it := range req.Input {
		if it.CallID != "" {
			taken[it.CallID] = true
		}
	}
	return deriveCallIDs(h.Sum(nil), taken, n)
}

// deriveCallIDs hashes seed with a counter until it has n ids that are not
// taken (a collision is simply rehashed), marking each one taken.
func deriveCallIDs(seed []byte, taken map[string]bool, n int) []string {
	ids := make([]string, 0, n)
	var buf [16]byte
	for i := 0; len(ids) < n; i++ {
		binary.BigEndian.PutUint64(buf[:8], uint64(len(ids)))
		binary.BigEndian.PutUint64(buf[8:], uint64(i))
		sum := sha256.Sum256(append(slices.Clip(seed), buf[:]...))
		id := "call_" + hex.EncodeToString(sum[:12])
		if !taken[id] {
			taken[id] = true
			ids = append(ids, id)
		}
	}
	return ids
}

// writeConversation feeds every field that shapes the answer to h, each
// length-prefixed so different conversations never hash alike by framing.
func writeConversation(h hash.Hash, req *responses.Request) {
	put := func(s string) {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	put(req.Model)
	if req.Instructions != nil {
		put(*req.Instructions)
	}
	for _, it := range req.Input {
		put(string(it.Type))
		put(it.Role)
		put(it.CallID)
		put(it.Name)
		put(it.Arguments)
		put(it.OutputText)
		for _, p := range append(slices.Clip(it.Content), it.Output...) {
			put(p.Type)
			put(p.Text)
			put(p.ImageURL)
			put(p.FileURL)
			put(p.Filename)
		}
	}
	for _, t := range req.Tools {
		put(t.Name)
		put(string(t.Parameters))
	}
}

// inputBytes approximates the size of what the model reads: instructions,
// every item's text, and the tools.
func inputBytes(req *responses.Request) int {
	n := 0
	if req.Instructions != nil {
		n += len(*req.Instructions)
	}
	for _, it := range req.Input {
		n += len(it.Role) + len(it.Name) + len(it.Arguments) + len(it.OutputText)
		for _, p := range append(slices.Clip(it.Content), it.Output...) {
			n += len(p.Text) + len(p.ImageURL) + len(p.FileData)
		}
	}
	for _, t := range req.Tools {
		n += len(t.Name) + len(t.Description) + len(t.Parameters)
	}
	return n
}
