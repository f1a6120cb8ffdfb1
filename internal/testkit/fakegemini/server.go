// Package fakegemini is a Gemini API server for tests (POST
// /v1beta/models/{model}:generateContent and
// :streamGenerateContent?alt=sse) on an httptest server. It checks what a
// real server checks that farebox could get wrong (the key, the roles,
// functionCall/functionResponse pairing, thought signatures) and answers
// Gemini's 400 INVALID_ARGUMENT when a check fails. The tests of this
// package hold it to the official Go SDK (google.golang.org/genai), so it
// cannot drift from the wire.
//
// The model name picks the behaviour:
//
//	"text" (or any other name)  a fixed text answer, streamed in small chunks,
//	                            the last part signed
//	"call"                      calls every declared function in one turn
//	                            (parallel calls; the first signed); once the
//	                            last turn holds function responses, answers
//	                            with text quoting them
//	"status:CODE"               fails with HTTP CODE in Gemini's error shape
//	                            (429 RESOURCE_EXHAUSTED with RetryInfo, 503
//	                            UNAVAILABLE, 400 INVALID_ARGUMENT, ...)
//	"error_midstream"           streams some text, then an error chunk
//	"finish:REASON"             some text, then finishReason REASON
//	                            (MAX_TOKENS, SAFETY, MALFORMED_FUNCTION_CALL, ...)
//	"safety"                    finishReason SAFETY with no content at all
//	"blocked"                   no candidates; promptFeedback.blockReason SAFETY
//	"empty"                     no candidates and no block reason
//
// Any model answers countTokens (contents, or a whole
// generateContentRequest) with CountTokens' count.
//
// Modifiers follow "+": rounds=N ("call" calls until N rounds of
// responses came back), retry_after=S (on a 429), noid (calls carry no id,
// as before Gemini 2.5). With includeThoughts in the request, an answer
// starts with a thought part. Every thoughtSignature is an HMAC under a
// key only the fake holds; one sent back altered, or a model turn of
// calls whose first call lost its signature, is refused.
package fakegemini

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"
)

// DefaultText is the fixed text answer.
const DefaultText = "Hello from the fake Gemini server. This answer is fixed."

// ThoughtText is the thought shown when the request includes thoughts.
const ThoughtText = "Thinking about the question before answering."

// Usage are the token figures every answer reports (usageMetadata).
type Usage struct {
	Prompt, Cached, Candidates, Thoughts int64
}

// Options configure a fake server.
type Options struct {
	// APIKey, when set, is the key every request must carry
	// (x-goog-api-key, or ?key=).
	APIKey string
	// Text is the fixed answer; "" is DefaultText.
	Text string
	// Usage is what every answer reports; zero Prompt and Candidates take
	// 25 and 9.
	Usage Usage
}

// Record is one request the fake received.
type Record struct {
	Path   string // the model and method, e.g. "text:generateContent"
	Header http.Header
	Body   []byte
}

// Server is a running fake.
type Server struct {
	opts Options
	srv  *httptest.Server
	key  []byte // signs thoughts; never leaves the fake

	mu        sync.Mutex
	records   []Record
	sigs      int
	responses int
}

// Start serves until Close.
func Start(opts Options) *Server {
	if opts.Text == "" {
		opts.Text = DefaultText
	}
	if opts.Usage.Prompt == 0 {
		opts.Usage.Prompt = 25
	}
	if opts.Usage.Candidates == 0 {
		opts.Usage.Candidates = 9
	}
	s := &Server{opts: opts, key: []byte("fakegemini signing key")}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1beta/models/", s.handle)
	s.srv = httptest.NewServer(mux)
	return s
}

// URL is farebox's base_url for the fake, ending in /v1beta.
func (s *Server) URL() string { return s.srv.URL + "/v1beta" }

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
		return Record{}, fmt.Errorf("fakegemini: no request received")
	}
	return rs[len(rs)-1], nil
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, "/v1beta/models/")
	s.mu.Lock()
	s.records = append(s.records, Record{Path: rest, Header: r.Header.Clone(), Body: body})
	s.mu.Unlock()
	model, method := rest, ""
	if i := strings.LastIndex(rest, ":"); i >= 0 {
		model, method = rest[:i], rest[i+1:]
	}
	switch {
	case s.opts.APIKey != "" && r.Header.Get("X-Goog-Api-Key") != s.opts.APIKey && r.URL.Query().Get("key") != s.opts.APIKey:
		writeKeyError(w)
		return
	case method != "generateContent" && method != "streamGenerateContent" && method != "countTokens":
		writeError(w, http.StatusNotFound, "NOT_FOUND", "Method not found.")
		return
	case method == "streamGenerateContent" && r.URL.Query().Get("alt") != "sse":
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "This fake streams only with alt=sse.")
		return
	case !gjson.ValidBytes(body):
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid JSON payload received.")
		return
	}
	req := gjson.ParseBytes(body)
	m := parseMode(model)
	if m.status != 0 {
		s.fail(w, m)
		return
	}
	if method == "countTokens" {
		s.count(w, req)
		return
	}
	if msg := s.check(req); msg != "" {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", msg)
		return
	}
	a := s.answer(req, m)
	if method == "streamGenerateContent" {
		s.stream(w, r.Context(), a)
		return
	}
	if m.name == "error_midstream" {
		writeError(w, http.StatusServiceUnavailable, "UNAVAILABLE", "The model is overloaded. Please try again later.")
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_, _ = w.Write(a.whole())
}

// fail answers a "status:CODE" model with Gemini's error for CODE.
func (s *Server) fail(w http.ResponseWriter, m mode) {
	status := map[int]string{400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND",
		429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}[m.status]
	if status == "" {
		status = "UNKNOWN"
	}
	if m.status == http.StatusTooManyRequests {
		writeBody(w, m.status, fmt.Sprintf(`{"error":{"code":429,"message":"You exceeded your current quota.","status":"RESOURCE_EXHAUSTED",`+
			`"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"%ds"}]}}`, max(m.retryAfter, 1)))
		return
	}
	writeError(w, m.status, status, fmt.Sprintf("fake failure %d (%s)", m.status, status))
}

// writeError writes Gemini's error body.
func writeError(w http.ResponseWriter, code int, status, msg string) {
	writeBody(w, code, fmt.Sprintf(`{"error":{"code":%d,"message":%q,"status":%q}}`, code, msg, status))
}

// writeKeyError is Gemini's answer to a wrong key: a 400, not a 401.
func writeKeyError(w http.ResponseWriter) {
	writeBody(w, http.StatusBadRequest, `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.",`+
		`"status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}`)
}

func writeBody(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body)
}

// mode is the behaviour a model name picks.
type mode struct {
	name       string
	status     int
	finish     string
	rounds     int
	retryAfter int
	noID       bool
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
		case "noid":
			m.noID = true
		}
	}
	if code, ok := strings.CutPrefix(m.name, "status:"); ok {
		m.status, _ = strconv.Atoi(code)
	}
	if reason, ok := strings.CutPrefix(m.name, "finish:"); ok {
		m.finish = reason
	}
	return m
}
