package responses

import (
	"strings"

	"github.com/tidwall/gjson"
)

// input reads "input": a string (one user message) or a list of items.
func (p *parser) input(v gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil // reported as missing by finish
	case v.Type == gjson.String:
		p.req.Input = []Item{{
			Type:            ItemMessage,
			Role:            "user",
			Content:         []Part{{Type: "input_text", Text: v.Str}},
			ContentIsString: true,
		}}
		p.hasInput = true
		return nil
	case !v.IsArray():
		return errType("input", "one of a string or an array of input items", v)
	}
	items := make([]Item, 0, 8)
	var err *Error
	i := 0
	v.ForEach(func(_, el gjson.Result) bool {
		var it Item
		it, err = parseItem(where{base: "input", i: i}, el)
		items = append(items, it)
		i++
		return err == nil
	})
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return errEmptyArray("input")
	}
	p.req.Input, p.hasInput = items, true
	return nil
}

// itemFields are the keys of an input item farebox reads; any other key is
// ignored (clients replay output items, which gain fields over time).
type itemFields struct {
	typ, role, content, id, status  gjson.Result
	callID, name, arguments, output gjson.Result
	summary, encryptedContent       gjson.Result
	input, namespace                gjson.Result
}

func collectItem(v gjson.Result) itemFields {
	var f itemFields
	v.ForEach(func(k, val gjson.Result) bool {
		switch k.Str {
		case "type":
			f.typ = val
		case "role":
			f.role = val
		case "content":
			f.content = val
		case "id":
			f.id = val
		case "status":
			f.status = val
		case "call_id":
			f.callID = val
		case "name":
			f.name = val
		case "arguments":
			f.arguments = val
		case "output":
			f.output = val
		case "summary":
			f.summary = val
		case "encrypted_content":
			f.encryptedContent = val
		case "input":
			f.input = val
		case "namespace":
			f.namespace = val
		}
		return true
	})
	return f
}

// parseItem reads one element of the input list.
func parseItem(w where, v gjson.Result) (Item, *Error) {
	if !v.IsObject() {
		return Item{}, errType(w.at(""), "an object", v)
	}
	f := collectItem(v)
	typ := "message" // the common form [{"role":"user","content":"hi"}] has no type
	switch f.typ.Type {
	case gjson.Null:
		if !f.role.Exists() && !f.content.Exists() {
			return Item{}, errMissing(w.at("type"))
		}
	case gjson.String:
		typ = f.typ.Str
	default:
		return Item{}, errType(w.at("type"), "a string", f.typ)
	}
	switch typ {
	case "message":
		return parseMessage(w, &f)
	case "function_call":
		return parseFunctionCall(w, &f)
	case "function_call_output":
		return parseFunctionCallOutput(w, &f)
	case "reasoning":
		return parseReasoningItem(w, &f)
	case "custom_tool_call":
		return parseCustomCall(w, &f)
	case "custom_tool_call_output":
		it, err := parseFunctionCallOutput(w, &f)
		it.Type = ItemCustomCallOutput
		return it, err
	case "local_shell_call", "shell_call", "apply_patch_call", "computer_call",
		"local_shell_call_output", "shell_call_output", "apply_patch_call_output", "computer_call_output":
		return parseClientCall(w, typ, v, &f)
	case "item_reference":
		return Item{}, errUnsupported(w.at("type"), "unsupported_value",
			"Input items of type 'item_reference' are not supported: farebox keeps no items to refer to; "+statelessHint+
				" (Clients that send references when store is true, such as the Vercel AI SDK, send whole items with store: false, e.g. providerOptions.openai.store = false.)")
	}
	if hostedItem(typ) {
		return Item{}, errHosted(w.at("type"), "Input item", typ)
	}
	return Item{}, errValue(w.at("type"), typ, "message", "function_call", "function_call_output", "reasoning",
		"custom_tool_call", "custom_tool_call_output", "local_shell_call", "shell_call", "apply_patch_call", "computer_call")
}

// parseCustomCall reads a custom_tool_call the client replays: its input
// is free text, kept in Arguments.
func parseCustomCall(w where, f *itemFields) (Item, *Error) {
	it := Item{Type: ItemCustomCall}
	var err *Error
	if it.CallID, err = reqString(w.at, "call_id", f.callID); err != nil {
		return it, err
	}
	if it.Name, err = reqString(w.at, "name", f.name); err != nil {
		return it, err
	}
	switch f.input.Type {
	case gjson.String:
		it.Arguments = f.input.Str
	case gjson.Null:
		return it, errMissing(w.at("input"))
	default:
		return it, errType(w.at("input"), "a string", f.input)
	}
	if it.Namespace, err = optNamespace(w, f); err != nil {
		return it, err
	}
	return it, itemMeta(w, f, &it)
}

// parseClientCall reads the call of a built-in client tool or its output:
// the pairing key is checked, the item rebuilt from its known fields for
// Responses upstreams (its status vocabulary differs per type, so status
// is only checked to be a string).
func parseClientCall(w where, typ string, v gjson.Result, f *itemFields) (Item, *Error) {
	it := Item{Type: ItemClientCall, Wire: typ}
	if strings.HasSuffix(typ, "_output") {
		it.Type = ItemClientCallOutput
	}
	body, err := clientCallShapes[typ].rebuild(nil, w.at, v)
	if err != nil {
		return it, err
	}
	raw := append(make([]byte, 0, len(body)+len(typ)+12), `{"type":`...)
	raw = gjson.AppendJSONString(raw, typ)
	if len(body) > 2 {
		raw = append(append(raw, ','), body[1:]...)
	} else {
		raw = append(raw, '}')
	}
	it.Raw = raw
	key := f.callID
	field := "call_id"
	if typ == "local_shell_call_output" {
		// The real API pairs it by id, the id of the local_shell_call.
		key, field = f.id, "id"
	}
	if it.CallID, err = reqString(w.at, field, key); err != nil {
		return it, err
	}
	if typ == "local_shell_call" && f.id.Type == gjson.String {
		it.ID = f.id.Str
	}
	return it, nil
}

// optNamespace reads the namespace a call item may name.
func optNamespace(w where, f *itemFields) (string, *Error) {
	switch f.namespace.Type {
	case gjson.Null:
		return "", nil
	case gjson.String:
		return f.namespace.Str, nil
	}
	return "", errType(w.at("namespace"), "a string", f.namespace)
}

// hostedItem reports whether an item type belongs to a provider-executed
// tool (web_search_call, file_search_call, mcp_list_tools, ...).
func hostedItem(typ string) bool {
	return strings.HasSuffix(typ, "_call") || strings.HasSuffix(typ, "_call_output") ||
		strings.HasPrefix(typ, "mcp_")
}

func parseMessage(w where, f *itemFields) (Item, *Error) {
	it := Item{Type: ItemMessage}
	var err *Error
	if it.Role, err = reqEnum(w.at, "role", f.role, "user", "assistant", "system", "developer"); err != nil {
		return it, err
	}
	if err = itemMeta(w, f, &it); err != nil {
		return it, err
	}
	assistant := it.Role == "assistant"
	switch {
	case f.content.Type == gjson.String:
		typ := "input_text"
		if assistant {
			typ = "output_text"
		}
		it.Content, it.ContentIsString = []Part{{Type: typ, Text: f.content.Str}}, true
	case f.content.IsArray():
		it.Content, err = parseParts(w, "content", f.content, assistant)
	case !f.content.Exists() || f.content.Type == gjson.Null:
		err = errMissing(w.at("content"))
	default:
		err = errType(w.at("content"), "one of a string or an array of content parts", f.content)
	}
	return it, err
}

func parseFunctionCall(w where, f *itemFields) (Item, *Error) {
	it := Item{Type: ItemFunctionCall}
	var err *Error
	if it.CallID, err = reqString(w.at, "call_id", f.callID); err != nil {
		return it, err
	}
	if it.Name, err = reqString(w.at, "name", f.name); err != nil {
		return it, err
	}
	switch f.arguments.Type {
	case gjson.String:
		it.Arguments = f.arguments.Str
	case gjson.Null:
		return it, errMissing(w.at("arguments"))
	default:
		return it, errType(w.at("arguments"), "a string", f.arguments)
	}
	if it.Namespace, err = optNamespace(w, f); err != nil {
		return it, err
	}
	return it, itemMeta(w, f, &it)
}

func parseFunctionCallOutput(w where, f *itemFields) (Item, *Error) {
	it := Item{Type: ItemFunctionCallOutput}
	var err *Error
	if it.CallID, err = reqString(w.at, "call_id", f.callID); err != nil {
		return it, err
	}
	switch {
	case f.output.Type == gjson.String:
		it.OutputText, it.OutputIsString = f.output.Str, true
	case f.output.IsArray():
		if it.Output, err = parseParts(w, "output", f.output, false); err != nil {
			return it, err
		}
	case !f.output.Exists() || f.output.Type == gjson.Null:
		return it, errMissing(w.at("output"))
	default:
		return it, errType(w.at("output"), "one of a string or an array of content parts", f.output)
	}
	return it, itemMeta(w, f, &it)
}

// parseReasoningItem reads a reasoning item an agent client sends back. Its
// id is optional: Codex replays reasoning without one when store is false.
func parseReasoningItem(w where, f *itemFields) (Item, *Error) {
	it := Item{Type: ItemReasoning}
	switch {
	case f.summary.IsArray():
		it.Summary = compact(f.summary.Raw)
	case !f.summary.Exists() || f.summary.Type == gjson.Null:
		return it, errMissing(w.at("summary"))
	default:
		return it, errType(w.at("summary"), "an array", f.summary)
	}
	switch f.encryptedContent.Type {
	case gjson.Null:
	case gjson.String:
		it.EncryptedContent = f.encryptedContent.Str
	default:
		return it, errType(w.at("encrypted_content"), "a string", f.encryptedContent)
	}
	return it, itemMeta(w, f, &it)
}

// itemMeta reads the optional id and status every item kind may carry.
func itemMeta(w where, f *itemFields, it *Item) *Error {
	switch f.id.Type {
	case gjson.Null:
	case gjson.String:
		it.ID = f.id.Str
	default:
		return errType(w.at("id"), "a string", f.id)
	}
	if f.status.Type == gjson.Null {
		return nil
	}
	return optEnum(w.at("status"), f.status, &it.Status, "in_progress", "completed", "incomplete")
}

// reqString reads a required, non-empty string field; at builds its param
// path only when an error needs it.
func reqString(at func(string) string, field string, v gjson.Result) (string, *Error) {
	switch v.Type {
	case gjson.String:
		if v.Str == "" {
			return "", errEmptyString(at(field))
		}
		return v.Str, nil
	case gjson.Null:
		return "", errMissing(at(field))
	}
	return "", errType(at(field), "a string", v)
}

// reqEnum reads a required string that must be one of allowed.
func reqEnum(at func(string) string, field string, v gjson.Result, allowed ...string) (string, *Error) {
	if v.Type == gjson.Null {
		return "", errMissing(at(field))
	}
	if v.Type != gjson.String {
		return "", errType(at(field), "a string", v)
	}
	for _, a := range allowed {
		if v.Str == a {
			return a, nil
		}
	}
	return "", errValue(at(field), v.Str, allowed...)
}
