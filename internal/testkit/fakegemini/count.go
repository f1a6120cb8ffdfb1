package fakegemini

import (
	"net/http"
	"strconv"

	"github.com/tidwall/gjson"
)

// CountTokens is the fake's tokenizer, as its countTokens answers: a
// token per 4 bytes (rounded up) of every text part, function
// declaration (its JSON) and system instruction text, plus 3 per content
// turn. A test computes what the fake will say with it.
func CountTokens(req gjson.Result) int64 {
	var n int64
	bytes := func(s string) { n += (int64(len(s)) + 3) / 4 }
	parts := func(c gjson.Result) {
		c.Get("parts").ForEach(func(_, p gjson.Result) bool {
			if t := p.Get("text"); t.Exists() {
				bytes(t.Str)
			}
			return true
		})
	}
	req.Get("contents").ForEach(func(_, c gjson.Result) bool {
		n += 3
		parts(c)
		return true
	})
	parts(req.Get("systemInstruction"))
	req.Get("tools.#.functionDeclarations|@flatten").ForEach(func(_, d gjson.Result) bool {
		bytes(d.Raw)
		return true
	})
	return n
}

// count answers models/{model}:countTokens: the request's contents
// (Gemini's CountTokensRequest takes contents, or a whole
// generateContentRequest), counted by CountTokens.
func (s *Server) count(w http.ResponseWriter, body gjson.Result) {
	req := body
	if g := body.Get("generateContentRequest"); g.Exists() {
		req = g
		if !g.Get("model").Exists() {
			writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "* CountTokensRequest.generate_content_request.model: model is required")
			return
		}
	}
	if !req.Get("contents").Exists() {
		writeError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "* CountTokensRequest.contents: contents is not specified")
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	_, _ = w.Write([]byte(`{"totalTokens":` + strconv.FormatInt(CountTokens(req), 10) + `}`))
}
