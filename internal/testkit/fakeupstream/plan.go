package fakeupstream

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

type mode int

const (
	modeFixed mode = iota
	modeEcho
	modeCall
	modeFixture
	modeStatus
	modeReason
)

// plan is what a model name asks for, parsed once per distinct name.
type plan struct {
	mode         mode
	arg          string // fixture name, status code, or forced tool name
	ttfb, gap    time.Duration
	retryAfter   string
	retryAfterMs string
	plain        bool
	stall        bool
	cut          bool
}

func (s *Server) plan(model string) *plan {
	if p, ok := s.plans.Load(model); ok {
		return p.(*plan)
	}
	p := parsePlan(model, s.opts)
	s.plans.Store(model, p)
	return p
}

func parsePlan(model string, o Options) *plan {
	p := &plan{ttfb: o.FirstByteDelay, gap: o.ChunkDelay}
	fields := strings.Split(model, "+")
	head := fields[0]
	for _, f := range fields[1:] {
		k, v, _ := strings.Cut(f, "=")
		switch k {
		case "ttfb":
			p.ttfb, _ = time.ParseDuration(v)
		case "gap":
			p.gap, _ = time.ParseDuration(v)
		case "retry_after":
			p.retryAfter = v
		case "retry_after_ms":
			p.retryAfterMs = v
		case "plain":
			p.plain = true
		case "stall":
			p.stall = true
		case "cut":
			p.cut = true
		}
	}
	kind, arg, _ := strings.Cut(head, ":")
	switch kind {
	case "echo":
		p.mode = modeEcho
	case "call":
		p.mode, p.arg = modeCall, arg
	case "reason":
		p.mode = modeReason
	case "fixture":
		p.mode, p.arg = modeFixture, arg
	case "status":
		p.mode, p.arg = modeStatus, arg
	default:
		p.mode = modeFixed
	}
	return p
}

// call is one request being answered.
type call struct {
	w      http.ResponseWriter
	ctx    context.Context
	body   []byte
	api    api
	plan   *plan
	stream bool
}

// answer is a precomputed reply: whole is every frame joined, for the
// zero-gap path that writes once.
type answer struct {
	status      int
	contentType string
	frames      [][]byte
	whole       []byte
}

func newAnswer(status int, contentType string, frames [][]byte) *answer {
	a := &answer{status: status, contentType: contentType, frames: frames}
	for _, f := range frames {
		a.whole = append(a.whole, f...)
	}
	return a
}

const (
	ctJSON = "application/json"
	ctSSE  = "text/event-stream"
)

// write sends a, pacing frames by gap; it stops as soon as the client left.
// With +stall it holds the last frame back until the client leaves.
func (c call) write(a *answer) {
	h := c.w.Header()
	h.Set("Content-Type", a.contentType)
	if a.contentType == ctSSE {
		h.Set("Cache-Control", "no-cache")
	}
	c.w.WriteHeader(a.status)
	if (c.plan.gap <= 0 && !c.plan.stall && !c.plan.cut) || len(a.frames) <= 1 {
		c.w.Write(a.whole)
		return
	}
	rc := http.NewResponseController(c.w)
	for i, f := range a.frames {
		if c.plan.stall && i == len(a.frames)-1 {
			<-c.ctx.Done()
			return
		}
		if c.plan.cut && i == len(a.frames)/2 {
			panic(http.ErrAbortHandler) // the connection breaks mid-stream
		}
		if i > 0 && !sleep(c.ctx, c.plan.gap) {
			return
		}
		if _, err := c.w.Write(f); err != nil {
			return
		}
		if rc.Flush() != nil {
			return
		}
	}
}

// fail answers a "status:" model: an error body in OpenAI's shape (or a
// bare string with +plain), or no answer at all for "timeout".
func (s *Server) fail(c call) {
	if c.plan.arg == "timeout" {
		<-c.ctx.Done()
		return
	}
	code, err := strconv.Atoi(c.plan.arg)
	if err != nil || code < 400 || code > 599 {
		code = 500
	}
	h := c.w.Header()
	if c.plan.retryAfter != "" {
		h.Set("Retry-After", c.plan.retryAfter)
	}
	if c.plan.retryAfterMs != "" {
		h.Set("Retry-After-Ms", c.plan.retryAfterMs)
	}
	msg, typ, ecode := failure(code)
	var body []byte
	if c.plan.plain {
		body, _ = json.Marshal(map[string]string{"error": msg})
	} else {
		body, _ = json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": ecode}})
	}
	c.write(newAnswer(code, ctJSON, [][]byte{body}))
}

// failure is the error an upstream typically sends for a status; the 401
// message quotes a (fake) key the way OpenAI does, so tests can check it
// never reaches a client.
func failure(code int) (msg, typ, ecode string) {
	switch code {
	case 400:
		return "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", "invalid_request_error", "context_length_exceeded"
	case 401:
		return "Incorrect API key provided: sk-fake-SECRET-1234. You can find your API key at https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key"
	case 403:
		return "Project sk-fake-SECRET-1234 does not have access to this model.", "invalid_request_error", "model_not_allowed"
	case 429:
		return "Rate limit reached for requests.", "requests", "rate_limit_exceeded"
	default:
		return fmt.Sprintf("The server had an error while processing your request (%d).", code), "server_error", "server_error"
	}
}
