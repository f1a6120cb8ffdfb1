package responses

import (
	"errors"

	"github.com/tidwall/gjson"
)

// This file holds the output items besides messages and function calls:
// custom tool calls (free-text input), reasoning items (summaries and
// encrypted content, for stateless clients to send back), and the calls of
// the built-in client tools (local_shell_call, shell_call,
// apply_patch_call, computer_call), each streamed with the events the
// real API uses for it.

// ErrNoOpenReasoning is returned by the reasoning calls when no reasoning
// item is open.
var ErrNoOpenReasoning = errors.New("responses: reasoning output without an open reasoning item")

// Refusal appends a refusal delta: the model declines, in a message whose
// one part is a refusal (response.refusal.delta / .done), opened after
// closing any other open item.
func (e *Emitter) Refusal(delta string) error {
	if e.status != "" {
		return ErrFinished
	}
	if delta == "" {
		return nil
	}
	if e.dropping || (e.open && (e.last().kind != itemMessage || !e.last().refusal)) {
		e.closeOpen(respCompleted)
	}
	if !e.open {
		e.openItem(outItem{id: e.opts.IDs("msg_"), refusal: true})
		e.emitPartAdded()
	}
	it := e.last()
	e.scratch = outEscaped(e.scratch[:0], delta)
	it.body = append(it.body, e.scratch...)
	b := e.begin("response.refusal.delta")
	b = e.outItemRef(b)
	b = append(b, `,"content_index":0,"delta":"`...)
	b = append(b, e.scratch...)
	b = append(b, `"}`...)
	return e.emit("response.refusal.delta", b)
}

// StartCustomCall closes any open item and opens a custom tool call whose
// free-text input arrives through Arguments. A call the request does not
// permit is dropped, as for functions.
func (e *Emitter) StartCustomCall(callID, name string) error {
	return e.startCall(outItem{kind: itemCustom, name: name}, callID)
}

// StartReasoning closes any open item and opens a reasoning item. Its
// summary arrives through ReasoningSummary, its encrypted content through
// ReasoningEncrypted.
func (e *Emitter) StartReasoning() error {
	if e.status != "" {
		return ErrFinished
	}
	e.closeOpen(respCompleted)
	e.openItem(outItem{kind: itemReasoning, id: e.opts.IDs("rs_")})
	return e.sinkErr
}

// ReasoningSummary appends delta to summary part index of the open
// reasoning item, opening that part (and closing the one before) when it
// is new. Parts are numbered from 0 in order; a gap counts as the next part.
func (e *Emitter) ReasoningSummary(index int, delta string) error {
	if e.status != "" {
		return ErrFinished
	}
	if !e.open || e.last().kind != itemReasoning {
		return ErrNoOpenReasoning
	}
	it := e.last()
	if index >= len(it.summary) || len(it.summary) == 0 {
		e.closeSummaryPart()
		it.summary = append(it.summary, nil)
		e.partOpen = true
		b := e.begin("response.reasoning_summary_part.added")
		b = e.outSummaryRef(b)
		b = append(b, `,"part":{"type":"summary_text","text":""}}`...)
		_ = e.emit("response.reasoning_summary_part.added", b)
	}
	if delta == "" {
		return e.sinkErr
	}
	e.scratch = outEscaped(e.scratch[:0], delta)
	k := len(it.summary) - 1
	it.summary[k] = append(it.summary[k], e.scratch...)
	b := e.begin("response.reasoning_summary_text.delta")
	b = e.outSummaryRef(b)
	b = append(b, `,"delta":"`...)
	b = append(b, e.scratch...)
	b = append(b, `"}`...)
	return e.emit("response.reasoning_summary_text.delta", b)
}

// ReasoningEncrypted sets the encrypted content of the open reasoning
// item. It leaves farebox only when the request's include asks for
// reasoning.encrypted_content.
func (e *Emitter) ReasoningEncrypted(content string) error {
	if e.status != "" {
		return ErrFinished
	}
	if !e.open || e.last().kind != itemReasoning {
		return ErrNoOpenReasoning
	}
	if e.req.IncludesEncryptedReasoning() {
		e.last().encrypted = content
	}
	return e.sinkErr
}

// ClientCall emits one whole call of a built-in client tool: wire is its
// item type (local_shell_call, shell_call, apply_patch_call,
// computer_call), fields the item's own fields as a JSON object (type, id,
// call_id and status in it are replaced). It leaves farebox only when the
// request declares the matching tool.
func (e *Emitter) ClientCall(wire, callID string, fields []byte) error {
	kind, ok := clientCallTool[wire]
	if !ok {
		return errors.New("responses: unknown client call type " + wire)
	}
	it := outItem{kind: itemClient, name: string(kind), wire: wire, fields: fields}
	if err := e.startCall(it, callID); err != nil || e.dropping {
		return err
	}
	e.closeOpen(respCompleted)
	return e.sinkErr
}

// clientCallTool maps a client call item type to the tool that makes it.
var clientCallTool = map[string]ToolKind{
	"local_shell_call": ToolLocalShell,
	"shell_call":       ToolShell,
	"apply_patch_call": ToolApplyPatch,
	"computer_call":    ToolComputerUse,
}

// clientCallPrefix is the item id prefix of each client call type.
var clientCallPrefix = map[string]string{
	"local_shell_call": "lsh_",
	"shell_call":       "sh_",
	"apply_patch_call": "apc_",
	"computer_call":    "cu_",
}

// closeSummaryPart finishes the open summary part of the open reasoning
// item with its .done events.
func (e *Emitter) closeSummaryPart() {
	if !e.partOpen {
		return
	}
	e.partOpen = false
	it := e.last()
	text := it.summary[len(it.summary)-1]
	b := e.begin("response.reasoning_summary_text.done")
	b = e.outSummaryRef(b)
	b = append(b, `,"text":"`...)
	b = append(b, text...)
	b = append(b, `"}`...)
	_ = e.emit("response.reasoning_summary_text.done", b)
	b = e.begin("response.reasoning_summary_part.done")
	b = e.outSummaryRef(b)
	b = append(b, `,"part":{"type":"summary_text","text":"`...)
	b = append(b, text...)
	b = append(b, `"}}`...)
	_ = e.emit("response.reasoning_summary_part.done", b)
}

func (e *Emitter) outSummaryRef(b []byte) []byte {
	b = e.outItemRef(b)
	b = outKey(b, "summary_index")
	return outInt(b, int64(len(e.last().summary)-1))
}

// outOtherItemJSON writes a custom call, reasoning or client call item.
func outOtherItemJSON(dst []byte, it *outItem) []byte {
	switch it.kind {
	case itemCustom:
		dst = outCallHead(dst, "custom_tool_call", it)
		dst = append(dst, `,"input":"`...)
		dst = append(dst, it.body...)
		dst = append(dst, '"')
		dst = outKey(dst, "status")
		dst = outString(dst, it.status)
		return append(dst, '}')
	case itemReasoning:
		dst = append(dst, `{"type":"reasoning","id":`...)
		dst = outString(dst, it.id)
		dst = append(dst, `,"summary":[`...)
		for i, s := range it.summary {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"type":"summary_text","text":"`...)
			dst = append(dst, s...)
			dst = append(dst, `"}`...)
		}
		dst = append(dst, ']')
		if it.encrypted != "" {
			dst = outKey(dst, "encrypted_content")
			dst = outString(dst, it.encrypted)
		}
		return append(dst, '}')
	}
	dst = append(dst, `{"type":`...)
	dst = outString(dst, it.wire)
	dst = outKey(dst, "id")
	dst = outString(dst, it.id)
	dst = outKey(dst, "call_id")
	dst = outString(dst, it.callID)
	gjson.ParseBytes(it.fields).ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type", "id", "call_id", "status":
		default:
			dst = append(dst, ',')
			dst = outString(dst, k.Str)
			dst = append(dst, ':')
			dst = append(dst, compact(v.Raw)...)
		}
		return true
	})
	dst = outKey(dst, "status")
	dst = outString(dst, it.status)
	return append(dst, '}')
}
