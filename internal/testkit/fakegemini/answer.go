package fakegemini

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/tidwall/gjson"
)

// answer is what the fake says to one request, streamed or whole.
type answer struct {
	parts   []map[string]any
	finish  string // the candidate's finishReason; "" with blocked or noCandidates
	blocked string // promptFeedback.blockReason
	none    bool   // no candidates at all
	midErr  bool   // the stream breaks off with an error chunk
	usage   Usage
	id      string // responseId
	// streamSig, when set, is the signature of a streamed text answer,
	// sent on an empty closing part as Gemini streams it.
	streamSig string
}

func (s *Server) answer(req gjson.Result, m mode) *answer {
	a := &answer{usage: s.opts.Usage, finish: "STOP", id: s.responseID()}
	text := s.opts.Text
	switch {
	case m.name == "call":
		if s.callOrQuote(a, req, m) {
			break
		}
		fallthrough
	default:
		sig := s.nextSignature()
		a.parts = append(a.parts, map[string]any{"text": text, "thoughtSignature": sig})
		a.streamSig = sig
	case m.finish != "":
		a.parts, a.finish = []map[string]any{{"text": text[:len(text)/2]}}, m.finish
	case m.name == "error_midstream":
		a.parts, a.midErr = []map[string]any{{"text": text}}, true
	case m.name == "safety":
		a.finish = "SAFETY"
	case m.name == "blocked":
		a.finish, a.blocked = "", "SAFETY"
	case m.name == "empty":
		a.finish, a.none = "", true
	}
	if req.Get("generationConfig.thinkingConfig.includeThoughts").Bool() && len(a.parts) > 0 {
		a.parts = append([]map[string]any{{"text": ThoughtText, "thought": true}}, a.parts...)
	}
	return a
}

// callOrQuote fills a "call" answer: the declared functions called (the
// first call signed), or, once rounds of responses came back, text quoting
// the last ones; false when there is nothing to call.
func (s *Server) callOrQuote(a *answer, req gjson.Result, m mode) bool {
	contents := req.Get("contents").Array()
	rounds := 0
	for _, c := range contents {
		if c.Get("parts.#.functionResponse").Array() != nil && len(c.Get("parts.#.functionResponse").Array()) > 0 {
			rounds++
		}
	}
	last := contents[len(contents)-1]
	if resps := last.Get("parts.#.functionResponse").Array(); len(resps) > 0 && rounds >= m.rounds {
		var quoted []string
		for _, r := range resps {
			quoted = append(quoted, r.Get("name").Str+" said "+r.Get("response").Raw)
		}
		a.parts = []map[string]any{{"text": "The tools answered: " + strings.Join(quoted, "; ") + "."}}
		return true
	}
	allowed := map[string]bool{}
	req.Get("toolConfig.functionCallingConfig.allowedFunctionNames").ForEach(func(_, v gjson.Result) bool {
		allowed[v.Str] = true
		return true
	})
	n := 0
	req.Get("tools.#.functionDeclarations|@flatten").ForEach(func(_, d gjson.Result) bool {
		name := d.Get("name").Str
		if len(allowed) > 0 && !allowed[name] {
			return true
		}
		fc := map[string]any{"name": name, "args": argsFor(d)}
		if !m.noID {
			fc["id"] = fmt.Sprintf("fc_%d_%d", rounds, n)
		}
		p := map[string]any{"functionCall": fc}
		if n == 0 {
			p["thoughtSignature"] = s.nextSignature()
		}
		a.parts = append(a.parts, p)
		n++
		return true
	})
	return n > 0
}

// argsFor makes arguments for a declaration: "Paris" for every string
// property, 1 for every number.
func argsFor(d gjson.Result) map[string]any {
	schema := d.Get("parametersJsonSchema")
	if !schema.Exists() {
		schema = d.Get("parameters")
	}
	args := map[string]any{}
	schema.Get("properties").ForEach(func(k, v gjson.Result) bool {
		switch strings.ToLower(v.Get("type").Str) {
		case "string":
			args[k.Str] = "Paris"
		case "number", "integer":
			args[k.Str] = 1
		}
		return true
	})
	return args
}

func (a *answer) usageMetadata() map[string]any {
	u := map[string]any{"promptTokenCount": a.usage.Prompt, "candidatesTokenCount": a.usage.Candidates,
		"totalTokenCount": a.usage.Prompt + a.usage.Candidates + a.usage.Thoughts}
	if a.usage.Cached > 0 {
		u["cachedContentTokenCount"] = a.usage.Cached
	}
	if a.usage.Thoughts > 0 {
		u["thoughtsTokenCount"] = a.usage.Thoughts
	}
	return u
}

// chunk is one GenerateContentResponse holding parts (and the ending when
// finish is set).
func (a *answer) chunk(parts []map[string]any, final bool) []byte {
	out := map[string]any{"modelVersion": "fake-gemini", "responseId": a.id}
	switch {
	case a.blocked != "":
		out["promptFeedback"] = map[string]any{"blockReason": a.blocked,
			"safetyRatings": []map[string]string{{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH"}}}
	case a.none:
	default:
		cand := map[string]any{"index": 0, "content": map[string]any{"role": "model", "parts": parts}}
		if final {
			cand["finishReason"] = a.finish
			if a.finish == "SAFETY" {
				cand["safetyRatings"] = []map[string]any{{"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": true}}
			}
		}
		if parts == nil {
			cand["content"] = map[string]any{"role": "model"}
		}
		out["candidates"] = []any{cand}
	}
	if final {
		out["usageMetadata"] = a.usageMetadata()
	} else {
		out["usageMetadata"] = map[string]any{"promptTokenCount": a.usage.Prompt}
	}
	b, _ := json.Marshal(out)
	return b
}

// whole is the answer as one GenerateContentResponse.
func (a *answer) whole() []byte { return a.chunk(a.parts, true) }

// stream writes the answer as SSE chunks: text and thoughts in small
// pieces, calls whole, the ending and full usage on the last chunk.
func (s *Server) stream(w http.ResponseWriter, ctx context.Context, a *answer) {
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	send := func(b []byte) bool {
		if ctx.Err() != nil {
			return false
		}
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	var chunks [][]map[string]any
	for _, p := range a.parts {
		text, isText := p["text"].(string)
		if _, call := p["functionCall"]; call || !isText {
			chunks = append(chunks, []map[string]any{p})
			continue
		}
		for i, piece := range pieces(text, 16) {
			q := map[string]any{"text": piece}
			if p["thought"] == true {
				q["thought"] = true
			}
			if sig, ok := p["thoughtSignature"].(string); ok && i == 0 && sig != a.streamSig {
				q["thoughtSignature"] = sig
			}
			chunks = append(chunks, []map[string]any{q})
		}
	}
	for i, c := range chunks {
		if !send(a.chunk(c, false)) {
			return
		}
		if a.midErr && i == 0 {
			send([]byte(`{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`))
			return
		}
	}
	var last []map[string]any
	if a.streamSig != "" {
		last = []map[string]any{{"text": "", "thoughtSignature": a.streamSig}}
	}
	send(a.chunk(last, true))
}

// pieces cuts s into pieces of about n bytes, at rune boundaries.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		i := n
		for i < len(s) && s[i]&0xC0 == 0x80 {
			i++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return append(out, s)
}
