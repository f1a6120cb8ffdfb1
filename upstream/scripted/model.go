// Package scripted is farebox's built-in deterministic model: offline, so
// demos and tests need no network, yet it exercises every path a real model
// does (text, single and parallel function calls, answers to tool outputs,
// incomplete responses, usage).
//
// What it answers, in order:
//   - a conversation ending with tool outputs (function_call_output,
//     custom_tool_call_output, ...): one line per
//     output of the last tool round, "<tool> returned: <text>" (the text
//     parts of an array output joined by spaces, images as "[image]"),
//     whatever tool_choice says, so a client's tool loop always ends;
//   - tools declared and tool_choice not "none": calls. The tools named in
//     the last user message (whole words, any case) are called in the order
//     the message names them: all of them when parallel_tool_calls is true,
//     else the first. A tool_choice naming a function calls that one alone;
//     "required" with no tool named calls the first declared tool;
//     allowed_tools keeps only the allowed tools and, in required mode with
//     none named, calls the first allowed one. Only calls the request
//     permits are made, at most max_tool_calls. Arguments are generated from
//     each tool's schema (see Arguments); a custom tool (free-text input)
//     is called with the last user message's text; built-in client tools
//     (shell, computer use, ...) are never called; call ids are derived from
//     a hash of the conversation and never repeat one already in the input;
//   - otherwise "You said: <last user message>" (text parts joined by
//     spaces, images as "[image]"); instructions and system or developer
//     messages do not change it.
package scripted

import (
	"context"
	"time"
	"unicode/utf8"

	"github.com/farebox/farebox/responses"
)

// DefaultChunkSize is the number of runes per delta when Options leaves it 0.
const DefaultChunkSize = 6

// bytesPerToken is the rough ratio used for usage and max_output_tokens.
const bytesPerToken = 4

// Options tunes how the scripted model streams.
type Options struct {
	// Pace is the wait between two deltas (0: none), to mimic a real model
	// in demos and to test slow streams.
	Pace time.Duration
	// ChunkSize is the number of runes per text or arguments delta
	// (default DefaultChunkSize); a rune is never split.
	ChunkSize int
}

// Model is the scripted model; it is safe for concurrent use.
type Model struct {
	opts Options
}

// New returns a scripted model streaming as opts says.
func New(opts Options) *Model {
	if opts.ChunkSize <= 0 {
		opts.ChunkSize = DefaultChunkSize
	}
	return &Model{opts: opts}
}

// Respond answers req through out (see the package comment), honouring
// max_output_tokens (text is cut there, at 4 bytes a token, and the
// response marked incomplete; calls are never cut), reporting usage
// approximated from bytes (instructions, input and tools in; text, names
// and arguments out), and returning ctx.Err() promptly when ctx ends, also
// during a pace wait.
func (m *Model) Respond(ctx context.Context, req *responses.Request, out responses.Output) error {
	p := makePlan(req)
	s := &stream{ctx: ctx, pace: m.opts.Pace, chunk: m.opts.ChunkSize}
	defer s.stop()

	sent := 0
	cut := false
	for _, c := range p.calls {
		if err := ctx.Err(); err != nil {
			return err
		}
		start := out.StartCall
		if c.Custom {
			start = out.StartCustomCall
		}
		if err := start(c.ID, c.Name); err != nil {
			return err
		}
		if err := s.send(c.Arguments, out.Arguments); err != nil {
			return err
		}
		sent += len(c.Name) + len(c.Arguments)
	}
	if len(p.calls) == 0 {
		text := p.text
		if req.MaxOutputTokens != nil {
			text, cut = clip(text, *req.MaxOutputTokens*bytesPerToken)
		}
		if err := s.send(text, out.Text); err != nil {
			return err
		}
		sent += len(text)
	}
	out.SetUsage(responses.Usage{
		InputTokens:  tokens(inputBytes(req)),
		OutputTokens: tokens(sent),
	})
	if cut {
		out.Incomplete("max_output_tokens")
	}
	return nil
}

// tokens approximates a token count from a byte count, rounding up.
func tokens(n int) int64 {
	return int64((n + bytesPerToken - 1) / bytesPerToken)
}

// clip cuts text to at most limit bytes on a rune boundary and reports
// whether it cut.
func clip(text string, limit int64) (string, bool) {
	if int64(len(text)) <= limit {
		return text, false
	}
	n := int(max(limit, 0))
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n], true
}

// stream paces deltas: no wait before the first, Pace between the others,
// and a check of ctx before every one.
type stream struct {
	ctx   context.Context
	pace  time.Duration
	chunk int
	sent  bool
	timer *time.Timer
}

// next waits for the next delta's turn.
func (s *stream) next() error {
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if !s.sent || s.pace <= 0 {
		s.sent = true
		return nil
	}
	if s.timer == nil {
		s.timer = time.NewTimer(s.pace)
	} else {
		s.timer.Reset(s.pace)
	}
	select {
	case <-s.ctx.Done():
		return s.ctx.Err()
	case <-s.timer.C:
		return nil
	}
}

// send splits text into deltas of s.chunk runes and hands each to emit.
func (s *stream) send(text string, emit func(string) error) error {
	for text != "" {
		n, runes := 0, 0
		for n < len(text) && runes < s.chunk {
			_, size := utf8.DecodeRuneInString(text[n:])
			n += size
			runes++
		}
		if err := s.next(); err != nil {
			return err
		}
		if err := emit(text[:n]); err != nil {
			return err
		}
		text = text[n:]
	}
	return nil
}

func (s *stream) stop() {
	if s.timer != nil {
		s.timer.Stop()
	}
}
