package anthropic

import (
	"errors"
	"fmt"
	"slices"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/upstreamhttp"
	"github.com/tidwall/gjson"
)

// blockKind is what a content block becomes in the emitter.
type blockKind int

const (
	blockDropped blockKind = iota // a block farebox does not pass on (a server tool's)
	blockText
	blockCall
	blockCustom // a custom tool's call: its JSON input is held until whole
	blockThinking
	blockRedacted
)

// openBlock is the content block being read.
type openBlock struct {
	kind      blockKind
	id, name  string // a custom call's
	input     string // a tool_use's input as it started
	argsSeen  bool
	args      []byte // a custom call's input_json_delta so far
	signature []byte
	held      []func() error // what arrived while an earlier block was open
	stopped   bool
}

// refusalText is the refusal a client sees when Anthropic stopped for
// refusal without an explanation.
const refusalText = "The model declined to answer this request."

// mapper turns the Messages stream's events (or one message's blocks,
// replayed) into emitter calls. The emitter holds one item open at a
// time, so blocks reach it whole and in index order: the lowest block not
// yet stopped (head) streams live, and a block that starts while an
// earlier one is still open is held until that one stops. Ids, indexes
// and sequence numbers are the emitter's.
type mapper struct {
	em      responses.Output
	customs map[string]bool // the custom tools' names
	blocks  map[int64]*openBlock
	head    int64
	usage   responses.Usage
	counted bool // a usage object arrived
	stopped bool
}

func newMapper(em responses.Output, customs map[string]bool) *mapper {
	return &mapper{em: em, customs: customs, blocks: map[int64]*openBlock{}}
}

// event consumes one SSE data payload of the Messages stream.
func (m *mapper) event(data []byte) error {
	if !gjson.ValidBytes(data) {
		return upstreamhttp.Broken(fmt.Errorf("upstream sent an event that is not JSON: %.200q", data))
	}
	ev := gjson.ParseBytes(data)
	switch ev.Get("type").Str {
	case "message_start":
		m.setUsage(ev.Get("message.usage"))
	case "content_block_start":
		return m.start(ev.Get("index").Int(), ev.Get("content_block"))
	case "content_block_delta":
		return m.delta(ev.Get("index").Int(), ev.Get("delta"))
	case "content_block_stop":
		return m.stop(ev.Get("index").Int())
	case "message_delta":
		m.setUsage(ev.Get("usage"))
		return m.stopReason(ev.Get("delta.stop_reason").Str, ev.Get("delta.stop_details.explanation").Str)
	case "message_stop":
		m.stopped = true
		return m.flush()
	case "error":
		e := ev.Get("error")
		return upstreamhttp.Failed(e.Get("type").Str, e.Get("message").Str, fmt.Errorf("upstream error event: %s", data))
	}
	return nil // ping, and events added to the API later
}

// start opens block idx; delta and stop feed and close it; each runs now
// when the block is the head, else is held for its turn.
func (m *mapper) start(idx int64, cb gjson.Result) error {
	if m.blocks[idx] != nil || idx < m.head {
		return upstreamhttp.Broken(fmt.Errorf("upstream started content block %d twice", idx))
	}
	b := &openBlock{}
	m.blocks[idx] = b
	return m.run(idx, b, func() error { return m.begin(b, cb) })
}

func (m *mapper) delta(idx int64, d gjson.Result) error {
	b := m.blocks[idx]
	if b == nil || b.stopped {
		return upstreamhttp.Broken(fmt.Errorf("upstream sent a delta for content block %d, which is not open", idx))
	}
	return m.run(idx, b, func() error { return m.feed(b, d) })
}

func (m *mapper) stop(idx int64) error {
	b := m.blocks[idx]
	if b == nil || b.stopped {
		return upstreamhttp.Broken(fmt.Errorf("upstream stopped content block %d, which is not open", idx))
	}
	b.stopped = true
	if err := m.run(idx, b, func() error { return m.end(b) }); err != nil {
		return err
	}
	for m.blocks[m.head] != nil && m.blocks[m.head].stopped {
		delete(m.blocks, m.head)
		m.head++
		if next := m.blocks[m.head]; next != nil {
			if err := next.release(); err != nil {
				return err
			}
		}
	}
	return nil
}

// run does op now for the head block, else holds it.
func (m *mapper) run(idx int64, b *openBlock, op func() error) error {
	if idx != m.head {
		b.held = append(b.held, op)
		return nil
	}
	return op()
}

// release does what was held for a block that became the head.
func (b *openBlock) release() error {
	held := b.held
	b.held = nil
	for _, op := range held {
		if err := op(); err != nil {
			return err
		}
	}
	return nil
}

// flush releases, in index order, blocks still held at message_stop
// (after a gap in the indexes no head would reach them).
func (m *mapper) flush() error {
	idx := make([]int64, 0, len(m.blocks))
	for i := range m.blocks {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	for _, i := range idx {
		if err := m.blocks[i].release(); err != nil {
			return err
		}
	}
	return nil
}

// begin opens a block in the emitter. A whole block (a non-streamed
// message's) carries its text, input, thinking and signature here.
func (m *mapper) begin(b *openBlock, cb gjson.Result) error {
	switch cb.Get("type").Str {
	case "text":
		b.kind = blockText
		if t := cb.Get("text").Str; t != "" {
			return m.em.Text(t)
		}
	case "tool_use":
		b.kind, b.input = blockCall, cb.Get("input").Raw
		if name := cb.Get("name").Str; m.customs[name] {
			b.kind, b.id, b.name = blockCustom, cb.Get("id").Str, name
			return nil
		}
		return m.em.StartCall(cb.Get("id").Str, cb.Get("name").Str)
	case "thinking":
		b.kind, b.signature = blockThinking, []byte(cb.Get("signature").Str)
		if err := m.em.StartReasoning(); err != nil {
			return err
		}
		if t := cb.Get("thinking").Str; t != "" {
			return m.em.ReasoningSummary(0, t)
		}
	case "redacted_thinking":
		b.kind = blockRedacted
		if err := m.em.StartReasoning(); err != nil {
			return err
		}
		return m.em.ReasoningEncrypted(prefixRedacted + cb.Get("data").Str)
	}
	return nil
}

// feed passes one delta of a block on.
func (m *mapper) feed(b *openBlock, d gjson.Result) error {
	switch d.Get("type").Str {
	case "text_delta":
		if b.kind == blockText {
			return m.em.Text(d.Get("text").Str)
		}
	case "input_json_delta":
		p := d.Get("partial_json").Str
		switch {
		case b.kind == blockCustom:
			b.argsSeen = true
			b.args = append(b.args, p...)
		case b.kind == blockCall && p != "":
			b.argsSeen = true
			return m.em.Arguments(p)
		}
	case "thinking_delta":
		if t := d.Get("thinking").Str; b.kind == blockThinking && t != "" {
			return m.em.ReasoningSummary(0, t)
		}
	case "signature_delta":
		b.signature = append(b.signature, d.Get("signature").Str...)
	}
	return nil
}

// end closes a block: a call's whole input when no delta carried it, a
// custom call (held until now), a thinking block's signature.
func (m *mapper) end(b *openBlock) error {
	switch b.kind {
	case blockCall:
		if !b.argsSeen && b.input != "" && b.input != "{}" {
			return m.em.Arguments(b.input)
		}
	case blockCustom:
		input := b.input
		if b.argsSeen {
			input = string(b.args)
		}
		if err := m.em.StartCustomCall(b.id, b.name); err != nil {
			return err
		}
		return m.em.Arguments(gjson.Get(input, "input").String())
	case blockThinking:
		if len(b.signature) > 0 {
			return m.em.ReasoningEncrypted(prefixThinking + string(b.signature))
		}
	}
	return nil
}

// stopReason applies why the model stopped: a natural end or a tool call
// completes; running out of tokens or of context window is incomplete;
// a refusal is the model's refusal; pause_turn, which only follows the
// server tools farebox never sends, ends the answer incomplete.
func (m *mapper) stopReason(reason, explanation string) error {
	switch reason {
	case "max_tokens", "model_context_window_exceeded", "pause_turn":
		m.em.Incomplete("max_output_tokens")
	case "refusal":
		if explanation == "" {
			explanation = refusalText
		}
		return m.em.Refusal(explanation)
	}
	return nil
}

// setUsage folds in a usage object: message_start's, then message_delta's
// cumulative figures, each field overriding where present. Anthropic's
// input_tokens excludes the cached part; farebox's InputTokens counts it.
func (m *mapper) setUsage(u gjson.Result) {
	if !u.IsObject() {
		return
	}
	m.counted = true
	fields := []struct {
		path string
		to   *int64
	}{
		{"input_tokens", nil},
		{"cache_read_input_tokens", &m.usage.CachedTokens},
		{"cache_creation_input_tokens", &m.usage.CacheWriteTokens},
		{"output_tokens", &m.usage.OutputTokens},
		{"output_tokens_details.thinking_tokens", &m.usage.ReasoningTokens},
	}
	uncached := m.usage.InputTokens - m.usage.CachedTokens - m.usage.CacheWriteTokens
	for _, f := range fields {
		v := u.Get(f.path)
		if v.Type != gjson.Number {
			continue
		}
		if f.to == nil {
			uncached = v.Int()
		} else {
			*f.to = v.Int()
		}
	}
	m.usage.InputTokens = uncached + m.usage.CachedTokens + m.usage.CacheWriteTokens
}

// report hands the usage to the emitter once the answer is over (or
// broke off: what was used is still reported), so no event before the
// terminal one carries a partial count.
func (m *mapper) report() {
	if m.counted {
		m.em.SetUsage(m.usage)
	}
}

// replay feeds a non-streamed message into out the way its stream would.
func replay(answer []byte, out responses.Output, customs map[string]bool) error {
	msg := gjson.ParseBytes(answer)
	if msg.Get("type").Str != "message" {
		return upstreamhttp.Broken(fmt.Errorf("upstream answered with no message: %.200q", answer))
	}
	m := newMapper(out, customs)
	m.setUsage(msg.Get("usage"))
	defer m.report()
	var err error
	msg.Get("content").ForEach(func(k, cb gjson.Result) bool {
		if err = m.start(k.Int(), cb); err == nil {
			err = m.stop(k.Int())
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if msg.Get("stop_reason").Str == "" {
		return upstreamhttp.Broken(errors.New("upstream message has no stop_reason"))
	}
	return m.stopReason(msg.Get("stop_reason").Str, msg.Get("stop_details.explanation").Str)
}
