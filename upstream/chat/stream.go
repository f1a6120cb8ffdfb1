package chat

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/tidwall/gjson"
)

// emitter is what a Chat stream feeds.
type emitter = responses.Output

// pendingCall is one tool call being assembled from Chat deltas.
type pendingCall struct {
	id, name string
	index    int64
	hasIndex bool
	args     []byte
	sent     int // bytes of args already handed to the emitter
}

// assembler turns Chat Completions chunks into emitter calls, one output
// item at a time: text streams until the first call starts; the first call
// streams live; a later call waits until the one before it is complete (its
// arguments are a whole JSON value) and is then started with what it has
// buffered. Text that arrives after a call started is held until the end.
type assembler struct {
	em      emitter
	calls   []*pendingCall
	cur     int // the call streaming to the emitter, -1 before the first
	held    strings.Builder
	finish  string
	sawDone bool
}

func newAssembler(em emitter) *assembler { return &assembler{em: em, cur: -1} }

// chunk consumes one SSE data payload.
func (a *assembler) chunk(data []byte) error {
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		a.sawDone = true
		return nil
	}
	if !gjson.ValidBytes(data) {
		return upstreamhttp.Broken(fmt.Errorf("upstream sent a chunk that is not JSON: %.200q", data))
	}
	root := gjson.ParseBytes(data)
	if u := root.Get("usage"); u.IsObject() {
		a.em.SetUsage(responses.Usage{
			InputTokens:      u.Get("prompt_tokens").Int(),
			CachedTokens:     u.Get("prompt_tokens_details.cached_tokens").Int(),
			CacheWriteTokens: u.Get("prompt_tokens_details.cache_write_tokens").Int(),
			OutputTokens:     u.Get("completion_tokens").Int(),
			ReasoningTokens:  u.Get("completion_tokens_details.reasoning_tokens").Int(),
		})
	}
	if e := root.Get("error"); e.Exists() && e.Type != gjson.Null {
		msg := e.Get("message").Str
		if e.Type == gjson.String {
			msg = e.Str
		}
		return upstreamhttp.Failed(e.Get("code").String(), msg, fmt.Errorf("upstream stream error: %s", e.Raw))
	}
	choice := firstChoice(root.Get("choices"))
	if !choice.Exists() {
		return nil
	}
	delta := choice.Get("delta")
	if c := delta.Get("content"); c.Type == gjson.String && c.Str != "" {
		if err := a.text(c.Str); err != nil {
			return err
		}
	}
	if r := delta.Get("refusal"); r.Type == gjson.String && r.Str != "" {
		// The model declined: a refusal part, as the Responses API has it.
		if err := a.em.Refusal(r.Str); err != nil {
			return err
		}
	}
	var err error
	delta.Get("tool_calls").ForEach(func(_, t gjson.Result) bool {
		a.toolDelta(t)
		err = a.pump()
		return err == nil
	})
	if err != nil {
		return err
	}
	if f := choice.Get("finish_reason"); f.Type == gjson.String && f.Str != "" {
		a.finish = f.Str
	}
	return nil
}

// firstChoice returns the choice with index 0 (the only one farebox asks for).
func firstChoice(choices gjson.Result) gjson.Result {
	var out gjson.Result
	choices.ForEach(func(_, c gjson.Result) bool {
		if c.Get("index").Int() == 0 {
			out = c
			return false
		}
		return true
	})
	return out
}

func (a *assembler) text(s string) error {
	if a.cur >= 0 {
		a.held.WriteString(s)
		return nil
	}
	return a.em.Text(s)
}

// toolDelta files one tool_calls entry under the call it belongs to. Keys,
// most trusted first: a known id; then the index (a NEW id at a known index
// is a new call: Ollama puts every call at index 0); then, with no index at
// all, the latest call. A different name on a keyless continuation, or a
// name arriving after complete arguments, also starts a new call.
func (a *assembler) toolDelta(t gjson.Result) {
	id := t.Get("id").Str
	idx := t.Get("index")
	name := t.Get("function.name").Str
	args := t.Get("function.arguments").Str

	var c *pendingCall
	if id != "" {
		c = a.byID(id)
		if c == nil {
			// A call first seen without an id (arguments before the name) gets it now.
			if prev := a.byKey(idx); prev != nil && prev.id == "" {
				c = prev
				c.id = id
			}
		}
	} else {
		c = a.byKey(idx)
		if c != nil && name != "" && c.name != "" && (name != c.name || gjson.Valid(string(c.args))) {
			c = nil
		}
	}
	if c == nil {
		c = &pendingCall{id: id, index: idx.Int(), hasIndex: idx.Exists()}
		a.calls = append(a.calls, c)
	}
	if c.name == "" {
		c.name = name
	}
	c.args = append(c.args, args...)
}

func (a *assembler) byID(id string) *pendingCall {
	for i := len(a.calls) - 1; i >= 0; i-- {
		if a.calls[i].id == id {
			return a.calls[i]
		}
	}
	return nil
}

// byKey finds the latest call at index idx, or the latest call when the
// upstream sends no index.
func (a *assembler) byKey(idx gjson.Result) *pendingCall {
	for i := len(a.calls) - 1; i >= 0; i-- {
		c := a.calls[i]
		if !idx.Exists() || (c.hasIndex && c.index == idx.Int()) {
			return c
		}
	}
	return nil
}

// pump hands the emitter whatever can go out now without interleaving items.
func (a *assembler) pump() error {
	for {
		if a.cur >= 0 {
			if err := a.forward(a.calls[a.cur]); err != nil {
				return err
			}
			next := a.cur + 1
			if next >= len(a.calls) || a.calls[next].name == "" || !gjson.Valid(string(a.calls[a.cur].args)) {
				return nil
			}
			a.cur = next
		} else {
			if len(a.calls) == 0 || a.calls[0].name == "" {
				return nil
			}
			a.cur = 0
		}
		c := a.calls[a.cur]
		if err := a.em.StartCall(c.id, c.name); err != nil {
			return err
		}
	}
}

func (a *assembler) forward(c *pendingCall) error {
	if c.sent >= len(c.args) {
		return nil
	}
	d := string(c.args[c.sent:])
	c.sent = len(c.args)
	return a.em.Arguments(d)
}

// errEarlyEnd is the cause when a stream stops without finish_reason or [DONE].
var errEarlyEnd = errors.New("upstream stream ended without finish_reason or [DONE]")

// end flushes what was buffered once the upstream stream ended cleanly:
// the rest of the open call, the calls that waited (in order), held text,
// and the finish reason as the response status.
func (a *assembler) end() error {
	if a.finish == "" && !a.sawDone {
		return upstreamhttp.Broken(errEarlyEnd)
	}
	if a.cur >= 0 {
		if err := a.forward(a.calls[a.cur]); err != nil {
			return err
		}
	}
	for i := a.cur + 1; i < len(a.calls); i++ {
		c := a.calls[i]
		if c.name == "" {
			continue // a call never named cannot be sent to anyone
		}
		a.cur = i
		if err := a.em.StartCall(c.id, c.name); err != nil {
			return err
		}
		if err := a.forward(c); err != nil {
			return err
		}
	}
	if a.held.Len() > 0 {
		if err := a.em.Text(a.held.String()); err != nil {
			return err
		}
	}
	switch a.finish {
	case "length":
		a.em.Incomplete("max_output_tokens")
	case "content_filter":
		a.em.Incomplete("content_filter")
	}
	return nil
}
