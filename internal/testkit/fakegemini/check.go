package fakegemini

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Sign is the n-th thought signature the fake gives: opaque to a client,
// checked by the fake when it comes back.
func (s *Server) Sign(n int) string {
	mac := hmac.New(sha256.New, s.key)
	fmt.Fprintf(mac, "thought\x00%d", n)
	return base64.StdEncoding.EncodeToString([]byte(strconv.Itoa(n) + "." + base64.RawStdEncoding.EncodeToString(mac.Sum(nil))))
}

// nextSignature is a fresh signature.
func (s *Server) nextSignature() string {
	s.mu.Lock()
	s.sigs++
	n := s.sigs
	s.mu.Unlock()
	return s.Sign(n)
}

// responseID is a fresh responseId.
func (s *Server) responseID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responses++
	return fmt.Sprintf("fake-response-%d", s.responses)
}

// validSignature reports whether sig is one the fake gave.
func (s *Server) validSignature(sig string) bool {
	raw, err := base64.StdEncoding.DecodeString(sig)
	if err != nil {
		return false
	}
	n, _, ok := strings.Cut(string(raw), ".")
	i, err := strconv.Atoi(n)
	return ok && err == nil && hmac.Equal([]byte(sig), []byte(s.Sign(i)))
}

// check is what a real server refuses with 400 INVALID_ARGUMENT: roles
// other than user and model, parts of no kind, function responses that do
// not answer the model turn before them (by id where ids are given, else
// by name), a thought signature the fake did not give, and a model turn
// of calls whose first call came back without its signature.
func (s *Server) check(req gjson.Result) string {
	contents := req.Get("contents").Array()
	if len(contents) == 0 {
		return "* GenerateContentRequest.contents: contents is not specified"
	}
	for i, c := range contents {
		role := c.Get("role").Str
		if role != "user" && role != "model" {
			return fmt.Sprintf("* GenerateContentRequest.contents[%d].role: Please use a valid role: user, model.", i)
		}
		parts := c.Get("parts").Array()
		if len(parts) == 0 {
			return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.", i)
		}
		for j, p := range parts {
			if sig := p.Get("thoughtSignature"); sig.Exists() && !s.validSignature(sig.Str) {
				return fmt.Sprintf("Corrupted thought signature. (contents[%d].parts[%d])", i, j)
			}
			if msg := checkPart(p, i, j); msg != "" {
				return msg
			}
		}
		if role == "model" {
			if first := firstCall(parts); first.Exists() && !first.Get("thoughtSignature").Exists() {
				return fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. (contents[%d])", i)
			}
		}
		if i > 0 {
			if msg := checkResponses(contents[i-1], c, i); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// checkPart refuses a part with no data of a kind Gemini knows.
func checkPart(p gjson.Result, i, j int) string {
	for _, k := range []string{"text", "inlineData", "fileData", "functionCall", "functionResponse"} {
		if p.Get(k).Exists() {
			if k == "inlineData" && (p.Get("inlineData.mimeType").Str == "" || p.Get("inlineData.data").Str == "") {
				return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d].inline_data: mime_type and data are required", i, j)
			}
			if k == "functionCall" && p.Get("functionCall.name").Str == "" {
				return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d].function_call.name: name is required", i, j)
			}
			return ""
		}
	}
	return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d].data: required oneof field 'data' must have one initialized field", i, j)
}

func firstCall(parts []gjson.Result) gjson.Result {
	for _, p := range parts {
		if p.Get("functionCall").Exists() {
			return p
		}
	}
	return gjson.Result{}
}

// checkResponses holds a user turn's function responses to the calls of
// the model turn before it: as many, each answering one of them.
func checkResponses(prev, c gjson.Result, i int) string {
	var calls, resps []gjson.Result
	prev.Get("parts.#.functionCall").ForEach(func(_, v gjson.Result) bool { calls = append(calls, v); return true })
	c.Get("parts.#.functionResponse").ForEach(func(_, v gjson.Result) bool { resps = append(resps, v); return true })
	if len(resps) == 0 {
		return ""
	}
	if prev.Get("role").Str != "model" || len(calls) != len(resps) {
		return fmt.Sprintf("Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn. (contents[%d])", i)
	}
	for k, r := range resps {
		found := false
		for _, call := range calls {
			if call.Get("name").Str == r.Get("name").Str && call.Get("id").Str == r.Get("id").Str {
				found = true
			}
		}
		if !found || !r.Get("response").IsObject() {
			return fmt.Sprintf("* GenerateContentRequest.contents[%d]: function response %d (%s, id %q) answers no call of the turn before, or its response is not an object",
				i, k, r.Get("name").Str, r.Get("id").Str)
		}
	}
	return ""
}
