// Package scripted is farebox's built-in deterministic model: offline, so
// demos and tests need no network, yet it exercises every path a real model
// does (text, single and parallel function calls, answers to tool outputs,
// incomplete responses, usage).
//
// What it answers, in order:
//   - a conversation ending with function_call_output items: one line per
//     output, "<tool> returned: <text>" (text parts of an array output joined
//     by spaces, images as "[image]");
//   - tools declared and tool_choice not "none": calls to the tools chosen
//     as documented on choose (named in the last user message, or forced),
//     with arguments generated from each tool's schema (see Arguments);
//   - otherwise "You said: <last user message>".
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

// Respond answers req through em (see the package comment), honouring
// max_output_tokens (text is cut there and the response marked
// incomplete), reporting usage approximated from bytes (4 bytes a token),
// and returning ctx.Err() promptly when ctx ends, also during a pace wait.
func (m *Model) Respond(ctx context.Context, req *responses.Request, em *responses.Emitter) error {
	p := makePlan(req)
	s := &stream{ctx: ctx, pace: m.opts.Pace, chunk: m.opts.ChunkSize}
	defer s.stop()

	out := 0
	cut := false
	for _, c := range p.calls {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := em.StartCall(c.ID, c.Name); err != nil {
			return err
		}
		if err := s.send(c.Arguments, em.Arguments); err != nil {
			return err
		}
		out += len(c.Name) + len(c.Arguments)
	}
	if len(p.calls) == 0 {
		text := p.text
		if req.MaxOutputTokens != nil {
			text, cut = clip(text, *req.MaxOutputTokens*bytesPerToken)
		}
		if err := s.send(text, em.Text); err != nil {
			return err
		}
		out += len(text)
	}
	em.SetUsage(responses.Usage{
		InputTokens:  tokens(inputBytes(req)),
		OutputTokens: tokens(out),
	})
	if cut {
		em.Incomplete("max_output_tokens")
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
