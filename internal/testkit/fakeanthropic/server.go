// Package fakeanthropic is an Anthropic Messages server for tests
// (POST /v1/messages, streamed or not, and POST /v1/messages/count_tokens)
// on an httptest server. It checks
// what a real server checks that farebox could get wrong (the version
// header, the key, max_tokens, tool_use/tool_result pairing, thinking
// signatures, cache breakpoints) and answers Anthropic's 400 when a
// check fails. The tests of this package hold it to the official Go SDK,
// so it cannot drift from the wire.
//
// The model name picks the behaviour:
//
//	"text" (or any other name)  a fixed text answer, streamed in small deltas
//	"call"                      calls every declared tool (the forced one; the
//	                            first only when parallel tool use is off), its
//	                            input streamed as input_json_delta chunks; once
//	                            the last turn holds tool results, answers with
//	                            text quoting them
//	"status:CODE"               fails with HTTP CODE in Anthropic's error shape
//	                            (529 overloaded_error, 429 rate_limit_error, ...)
//	"error_midstream"           streams some text, then an error event
//	"stall"                     streams some text, then nothing until the client
//	                            leaves (Record.Done tells when)
//	"stop:REASON"               some text, then stop_reason REASON (max_tokens,
//	                            refusal with stop_details, pause_turn, ...)
//
// Modifiers follow "+": rounds=N ("call" calls tools until N rounds of
// results came back), retry_after=S (on a 429), redacted (a
// redacted_thinking block after the thinking block), delay=DURATION (the
// time the model takes before the answer's first byte). With thinking on in
// the request, every answer starts with a thinking block whose signature is
// an HMAC of its text under a key only the fake holds; a thinking block
// sent back whose signature does not match (or is missing) is refused.
package fakeanthropic

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// DefaultText is the fixed text answer.
const DefaultText = "Hello from the fake Anthropic server. This answer is fixed."

// Usage are the token figures the fake reports. The cache figures are
// reported only for a request with a cache_control breakpoint, as a real
// server writes and reads its cache only there.
type Usage struct {
	InputTokens, CacheReadTokens, CacheWriteTokens, OutputTokens int64
}

// Options configure a fake server.
type Options struct {
	// APIKey, when set, is the key every request must carry (x-api-key, or
	// a bearer token).
	APIKey string
	// Text is the fixed answer; "" is DefaultText.
	Text string
	// Usage is what every answer reports; zero fields take 25 input and
	// 9 output tokens and no cache.
	Usage Usage
}

// Record is one request the fake received.
type Record struct {
	Header http.Header
	Body   []byte
	// Done is closed when the fake finished with the request: answered,
	// or the client went away.
	Done <-chan struct{}
}

// Server is a running fake.
type Server struct {
	opts Options
	srv  *httptest.Server
	key  []byte // signs thinking; never leaves the fake

	mu      sync.Mutex
	records []Record
	ids     int
}

// Start serves until Close.
func Start(opts Options) *Server {
	if opts.Text == "" {
		opts.Text = DefaultText
	}
	if opts.Usage.InputTokens == 0 {
		opts.Usage.InputTokens = 25
	}
	if opts.Usage.OutputTokens == 0 {
		opts.Usage.OutputTokens = 9
	}
	s := &Server{opts: opts, key: []byte("fakeanthropic signing key")}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages", s.handleMessages)
	mux.HandleFunc("POST /v1/messages/count_tokens", s.handleCountTokens)
	s.srv = httptest.NewServer(mux)
	return s
}

// URL is farebox's base_url for the fake, ending in /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Origin is the server's root, the base URL the official SDK takes.
func (s *Server) Origin() string { return s.srv.URL }

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Records are the requests received, oldest first.
func (s *Server) Records() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Record(nil), s.records...)
}

// Last is the latest request received; it fails when there is none.
func (s *Server) Last() (Record, error) {
	rs := s.Records()
	if len(rs) == 0 {
		return Record{}, fmt.Errorf("fakeanthropic: no request received")
	}
	return rs[len(rs)-1], nil
}

// Sign is the signature the fake gives a thinking text.
func (s *Server) Sign(text string) string {
	mac := hmac.New(sha256.New, s.key)
	mac.Write([]byte("thinking\x00" + text))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// redactedData is the data of the fake's redacted_thinking block n: opaque
// to a client, checked by the fake when it comes back.
func (s *Server) redactedData(n int) string {
	mac := hmac.New(sha256.New, s.key)
	fmt.Fprintf(mac, "redacted\x00%d", n)
	return fmt.Sprintf("%d.%s", n, base64.StdEncoding.EncodeToString(mac.Sum(nil)))
}

func (s *Server) validRedacted(data string) bool {
	n, _, ok := strings.Cut(data, ".")
	i, err := strconv.Atoi(n)
	return ok && err == nil && hmac.Equal([]byte(data), []byte(s.redactedData(i)))
}

func (s *Server) nextID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids++
	return fmt.Sprintf("%s_fake%04d", prefix, s.ids)
}

// idFor is the id of the n-th object of a prefix in the answer to a
// conversation: the same conversation gets the same ids, streamed or not,
// so tests can compare the two answers whole.
func idFor(prefix string, conversation string, n int) string {
	sum := sha256.Sum256([]byte(conversation))
	return fmt.Sprintf("%s_%x%02d", prefix, sum[:8], n)
}

// intake records a request and checks what every endpoint checks (the
// key, the version header, JSON); it answers the error itself and
// returns false when the request goes no further.
func (s *Server) intake(w http.ResponseWriter, r *http.Request) (gjson.Result, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		return gjson.Result{}, false
	}
	done := make(chan struct{})
	context.AfterFunc(r.Context(), func() { close(done) })
	s.mu.Lock()
	s.records = append(s.records, Record{Header: r.Header.Clone(), Body: body, Done: done})
	s.mu.Unlock()
	switch {
	case s.opts.APIKey != "" && !s.authorized(r.Header):
		writeError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key")
	case r.Header.Get("Anthropic-Version") == "":
		writeError(w, http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required")
	case !gjson.ValidBytes(body):
		writeError(w, http.StatusBadRequest, "invalid_request_error", "The request body is not valid JSON")
	default:
		return gjson.ParseBytes(body), true
	}
	return gjson.Result{}, false
}

// handleCountTokens serves POST /v1/messages/count_tokens: the request's
// input as the fake's usage figures count it, whatever the cache.
func (s *Server) handleCountTokens(w http.ResponseWriter, r *http.Request) {
	req, ok := s.intake(w, r)
	if !ok {
		return
	}
	if req.Get("max_tokens").Exists() || req.Get("stream").Exists() {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "max_tokens and stream: Extra inputs are not permitted")
		return
	}
	req, _ = sjsonSet(req, "max_tokens", 1)
	if msg := s.check(req); msg != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	u := s.opts.Usage
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"input_tokens":%d}`, u.InputTokens+u.CacheReadTokens+u.CacheWriteTokens)
}

// handleMessages serves POST /v1/messages.
func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request) {
	req, ok := s.intake(w, r)
	if !ok {
		return
	}
	mode := parseMode(req.Get("model").Str)
	if mode.status != 0 {
		s.fail(w, mode)
		return
	}
	if msg := s.check(req); msg != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	a := s.answer(req, mode)
	select {
	case <-time.After(mode.delay):
	case <-r.Context().Done():
		return
	}
	if req.Get("stream").Bool() {
		s.stream(w, r, a, mode)
		return
	}
	if mode.name == "error_midstream" || mode.name == "stall" {
		writeError(w, 529, "overloaded_error", "Overloaded")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", s.nextID("req"))
	_, _ = w.Write(a.message())
}

// authorized reports whether the request carries the key, as x-api-key or
// as a bearer token (which the newer SDKs send).
func (s *Server) authorized(h http.Header) bool {
	return h.Get("X-Api-Key") == s.opts.APIKey || h.Get("Authorization") == "Bearer "+s.opts.APIKey
}

// fail answers a "status:CODE" model with Anthropic's error for CODE.
func (s *Server) fail(w http.ResponseWriter, m mode) {
	typ := map[int]string{400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
		404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 529: "overloaded_error"}[m.status]
	if typ == "" {
		typ = "api_error"
	}
	if m.status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", strconv.Itoa(max(m.retryAfter, 1)))
	}
	writeError(w, m.status, typ, fmt.Sprintf("fake failure %d (%s)", m.status, typ))
}

// writeError writes Anthropic's error body.
func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":%q},"request_id":"req_fake_error"}`, typ, msg)
}

// mode is the behaviour a model name picks.
type mode struct {
	name       string
	status     int
	stop       string
	rounds     int
	retryAfter int
	redacted   bool
	delay      time.Duration
}

func parseMode(model string) mode {
	parts := strings.Split(model, "+")
	m := mode{name: parts[0], rounds: 1}
	for _, p := range parts[1:] {
		k, v, _ := strings.Cut(p, "=")
		n, _ := strconv.Atoi(v)
		switch k {
		case "rounds":
			m.rounds = n
		case "retry_after":
			m.retryAfter = n
		case "redacted":
			m.redacted = true
		case "delay":
			m.delay, _ = time.ParseDuration(v)
		}
	}
	if code, ok := strings.CutPrefix(m.name, "status:"); ok {
		m.status, _ = strconv.Atoi(code)
	}
	if reason, ok := strings.CutPrefix(m.name, "stop:"); ok {
		m.stop = reason
	}
	return m
}

// sjsonSet is req with key set to v.
func sjsonSet(req gjson.Result, key string, v any) (gjson.Result, error) {
	b, err := sjson.Set(req.Raw, key, v)
	return gjson.Parse(b), err
}
