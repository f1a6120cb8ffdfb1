// Package fakeupstream is a model server speaking the two upstream APIs
// farebox fronts (POST /v1/responses and POST /v1/chat/completions, streaming
// or not, plus GET /v1/models) over real HTTP. Tests and the benchmark
// harness choose its behaviour per request through the model name:
//
//	"anything"             a fixed text answer (precomputed bytes: the benchmark's zero-delay arm)
//	"echo"                 echoes the last user message
//	"call", "call:NAME"    calls every declared tool (or NAME) with "{}"; answers
//	                       with the tool outputs once the conversation ends with them
//	"reason"               as "call", as a reasoning model: a reasoning item first
//	                       (two summary parts streamed, encrypted_content when include
//	                       asks for it, reasoning tokens in usage), custom tools called
//	                       with free-text input (custom_tool_call_input deltas)
//	"fixture:NAME"         replays fixtures/NAME.<chat|responses>.sse byte for byte
//	"status:CODE"          fails with HTTP CODE (400, 401, 403, 429, 500, ...)
//	"status:timeout"       never answers (until the client gives up)
//
// Any of them may carry "+key=value" modifiers: ttfb=DURATION (delay before
// the first byte), gap=DURATION (delay between stream events),
// retry_after=SECONDS and retry_after_ms=MS (on a 429), "+plain" (an
// error body whose "error" is a bare string, as Ollama sends) and "+stall"
// (a stream whose last frame never comes: it stays open until the client
// leaves, so a test can act mid-stream without guessing a delay) and
// "+cut" (a stream whose connection breaks halfway, after some text).
// RefusingURL is an upstream that refuses connections.
package fakeupstream

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/tidwall/gjson"
)

// Options configure a fake upstream server.
type Options struct {
	// Addr to listen on; "" picks a free port on 127.0.0.1.
	Addr string
	// FirstByteDelay and ChunkDelay apply to every request that sets no
	// ttfb/gap modifier of its own.
	FirstByteDelay time.Duration
	ChunkDelay     time.Duration
	// Text is the fixed answer; "" uses DefaultText.
	Text string
	// KeepRecords bounds how many requests are remembered (default 1024).
	KeepRecords int
}

// DefaultText is the fixed answer for any model name without a mode.
const DefaultText = "Hello from the fake upstream. This answer is fixed."

// Server is a running fake upstream.
type Server struct {
	opts   Options
	ln     net.Listener
	srv    *http.Server
	canned sync.Map // cannedKey -> *answer, the precomputed fixed-text answers
	plans  sync.Map // model name -> plan

	mu      sync.Mutex
	records []*Record
	total   int
	arrived chan struct{} // closed and replaced whenever a record is added
}

// Start listens and serves until Close.
func Start(opts Options) (*Server, error) {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Text == "" {
		opts.Text = DefaultText
	}
	if opts.KeepRecords <= 0 {
		opts.KeepRecords = 1024
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, ln: ln, arrived: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/responses", func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, apiResponses) })
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.serve(w, r, apiChat) })
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("POST /v1/responses/input_tokens", s.handleInputTokens)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// URL is the base URL clients use, ending in /v1.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() + "/v1" }

// RefusingURL is the /v1 address of a loopback port nobody listens at:
// an upstream whose connections are refused.
func RefusingURL() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		return "", err
	}
	return "http://" + addr + "/v1", nil
}

// Close stops the server and drops open connections.
func (s *Server) Close() error { return s.srv.Close() }

// Record is what the server saw of one request, for tests to inspect.
type Record struct {
	Path          string
	Model         string
	Body          []byte
	Authorization string

	done     chan struct{}
	canceled bool
}

// Done is closed when the request ended: answered, or its context ended
// because the client went away.
func (r *Record) Done() <-chan struct{} { return r.done }

// Canceled reports whether the request ended because its context was
// cancelled (the client disconnected) rather than by being answered.
func (r *Record) Canceled() bool { <-r.done; return r.canceled }

// Records returns the remembered requests, oldest first.
func (s *Server) Records() []*Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Record(nil), s.records...)
}

// WaitRequest waits until the n-th request (1-based, counted since Start)
// has arrived and returns its record.
func (s *Server) WaitRequest(ctx context.Context, n int) (*Record, error) {
	for {
		s.mu.Lock()
		if s.total >= n {
			idx := len(s.records) - (s.total - n) - 1
			var rec *Record
			if idx >= 0 {
				rec = s.records[idx]
			}
			s.mu.Unlock()
			if rec == nil {
				return nil, errors.New("fakeupstream: record no longer kept")
			}
			return rec, nil
		}
		ch := s.arrived
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (s *Server) record(r *http.Request, model string, body []byte) *Record {
	rec := &Record{Path: r.URL.Path, Model: model, Body: body, Authorization: r.Header.Get("Authorization"),
		done: make(chan struct{})}
	s.mu.Lock()
	s.records = append(s.records, rec)
	if len(s.records) > s.opts.KeepRecords {
		s.records = append(s.records[:0], s.records[len(s.records)-s.opts.KeepRecords:]...)
	}
	s.total++
	close(s.arrived)
	s.arrived = make(chan struct{})
	s.mu.Unlock()
	return rec
}

type api int

const (
	apiResponses api = iota
	apiChat
)

func (a api) String() string {
	if a == apiChat {
		return "chat"
	}
	return "responses"
}

// serve handles one POST: record it, wait the first-byte delay, answer.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, a api) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	model := gjson.GetBytes(body, "model").Str
	rec := s.record(r, model, body)
	ctx := r.Context()
	defer func() {
		rec.canceled = ctx.Err() != nil
		close(rec.done)
	}()
	p := s.plan(model)
	if !sleep(ctx, p.ttfb) {
		return
	}
	req := call{w: w, ctx: ctx, body: body, api: a, plan: p, stream: gjson.GetBytes(body, "stream").Bool()}
	switch p.mode {
	case modeStatus:
		s.fail(req)
	case modeFixture:
		s.replay(req)
	case modeEcho, modeCall, modeReason:
		s.scripted(req)
	default:
		s.fixed(req)
	}
}

// InputTokens is the count POST /v1/responses/input_tokens answers with,
// whatever the body: a figure no estimate gives, so a test can tell whose
// count it sees.
const InputTokens = 4242

// handleInputTokens serves the Responses token-count endpoint: the
// request is recorded (model "input_tokens"), the answer is InputTokens.
func (s *Server) handleInputTokens(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rec := s.record(r, "input_tokens", body)
	defer close(rec.done)
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"object":"response.input_tokens","input_tokens":4242}`)
}

// handleModels serves GET /v1/models.
func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"object":"list","data":[{"id":"fake","object":"model","created":0,"owned_by":"fakeupstream"}]}`)
}

// sleep waits d unless ctx ends first; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
