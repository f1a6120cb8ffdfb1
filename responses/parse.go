package responses

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/tidwall/gjson"
)

// Parse reads one POST /v1/responses body into a validated Request, or
// answers with the OpenAI-shaped 400 a client would get for it. It walks the
// top-level keys once with gjson (no reflection), applies the deny-all tool
// policy and checks call_id pairing; it does not know which models exist.
func Parse(body []byte) (*Request, *Error) {
	return ParseWith(body, HostedDrop)
}

// ParseWith is Parse with an explicit policy for provider-executed tools.
func ParseWith(body []byte, hosted HostedPolicy) (*Request, *Error) {
	shape := scanShape(body)
	if shape.deep {
		return nil, errTooDeep()
	}
	if !gjson.ValidBytes(body) {
		return nil, errInvalidJSON()
	}
	if shape.dup != "" {
		return nil, errDuplicateKey(shape.dup)
	}
	root := gjson.ParseBytes(body)
	if !root.IsObject() {
		return nil, errNotObject(root)
	}
	p := parser{policy: hosted, req: &Request{
		ToolChoice:        ToolChoice{Mode: ChoiceAuto},
		ParallelToolCalls: true,
		Truncation:        "disabled",
		ServiceTier:       "default",
	}}
	root.ForEach(func(k, v gjson.Result) bool {
		p.err = p.top(k.Str, v)
		return p.err == nil
	})
	if p.err != nil {
		return nil, p.err
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	return p.req, nil
}

// parser carries the state of one Parse between the top-level keys, for
// the checks that relate several keys.
type parser struct {
	req           *Request
	policy        HostedPolicy
	err           *Error
	hasModel      bool
	hasInput      bool
	toolChoice    gjson.Result // resolved once tools are known
	streamOptions bool         // a non-null stream_options was sent
	tools         nameIndex    // the declared tool names, for tool_choice
}

// top parses one top-level key.
func (p *parser) top(key string, v gjson.Result) *Error {
	r := p.req
	var err *Error
	switch key {
	case "model":
		err = p.model(v)
	case "input":
		err = p.input(v)
	case "instructions":
		r.Instructions, err = optString(key, v)
	case "tools":
		p.tools = nameIndex{}
		r.Tools, err = p.parseTools(v)
	case "tool_choice":
		p.toolChoice = v
	case "parallel_tool_calls":
		err = optBool(key, v, &r.ParallelToolCalls)
	case "max_output_tokens":
		r.MaxOutputTokens, err = optInt(key, v, 16, math.MaxInt64)
	case "max_tool_calls":
		r.MaxToolCalls, err = optInt(key, v, 1, math.MaxInt64)
	case "top_logprobs":
		r.TopLogprobs, err = optInt(key, v, 0, 20)
	case "temperature":
		r.Temperature, err = optFloat(key, v, 0, 2)
	case "top_p":
		r.TopP, err = optFloat(key, v, 0, 1)
	case "presence_penalty":
		r.PresencePenalty, err = optFloat(key, v, -2, 2)
	case "frequency_penalty":
		r.FrequencyPenalty, err = optFloat(key, v, -2, 2)
	case "stream":
		err = optBool(key, v, &r.Stream)
	case "stream_options":
		err = p.parseStreamOptions(v)
	case "store":
		var store bool // accepted, never honoured: farebox stores nothing
		err = optBool(key, v, &store)
	case "previous_response_id":
		err = refusePreviousResponse(v)
	case "conversation":
		err = refuseConversation(v)
	case "background":
		err = refuseBackground(v)
	case "metadata":
		r.Metadata, err = parseMetadata(v)
	case "text":
		r.Text, err = parseText(v)
	case "reasoning":
		r.Reasoning, err = parseReasoning(v)
	case "truncation":
		err = optEnum(key, v, &r.Truncation, "auto", "disabled")
	case "service_tier":
		// Which tiers reach an upstream is the upstream's business (only
		// those that cost the operator no more than the default do).
		err = optEnum(key, v, &r.ServiceTier, "auto", "default", "flex", "scale", "priority", "fast", "ultrafast")
	case "user":
		r.User, err = optString(key, v)
	case "safety_identifier":
		r.SafetyID, err = optString(key, v)
	case "prompt_cache_key":
		r.PromptCache, err = optString(key, v)
	case "prompt_cache_retention":
		var retention string // a caching hint for OpenAI's own servers
		if err = optEnum(key, v, &retention, "in-memory", "24h"); err == nil {
			p.passthrough(key, v)
		}
	case "client_metadata", "prompt", "context_management", "moderation", "access_programs",
		"prompt_cache_options":
		err = p.passthrough(key, v)
	case "include":
		r.Include, err = parseInclude(v)
	default:
		err = errUnknown(key)
	}
	return err
}

// passthrough keeps a field of the real API that farebox does not
// interpret, for Responses upstreams: client_metadata as an object of
// strings, moderation and prompt_cache_options rebuilt from their known
// fields; the others (prompt, context_management, access_programs) only
// checked for their JSON kind, since no upstream is sent them.
func (p *parser) passthrough(key string, v gjson.Result) *Error {
	if v.Type == gjson.Null {
		return nil
	}
	if s := passthroughShapes[key]; s != nil {
		b, err := s.rebuild(nil, func(f string) string { return join(key, f) }, v)
		if err == nil {
			p.req.Passthrough = append(p.req.Passthrough, Field{Key: key, Value: b})
		}
		return err
	}
	if key == "client_metadata" {
		b, err := appendStringMap(nil, func() string { return key }, v)
		if err == nil {
			p.req.Passthrough = append(p.req.Passthrough, Field{Key: key, Value: b})
		}
		return err
	}
	switch {
	case v.IsObject(), v.IsArray(), v.Type == gjson.String:
		p.req.Passthrough = append(p.req.Passthrough, Field{Key: key, Value: compact(v.Raw)})
		return nil
	}
	return errType(key, "an object", v)
}

// finish runs the checks that need the whole body.
func (p *parser) finish() *Error {
	if !p.hasModel {
		return errMissing("model")
	}
	if !p.hasInput {
		return errMissing("input")
	}
	if err := p.resolveToolChoice(p.toolChoice); err != nil {
		return err
	}
	if p.streamOptions && !p.req.Stream {
		return Invalid("stream_options", "invalid_value", "Invalid value for 'stream_options': stream_options are only allowed when 'stream' is set to true.")
	}
	return checkPairing(p.req.Input)
}

func (p *parser) model(v gjson.Result) *Error {
	switch v.Type {
	case gjson.Null:
		return nil // reported as missing by finish
	case gjson.String:
		if v.Str == "" {
			return errEmptyString("model")
		}
		p.req.Model, p.hasModel = v.Str, true
		return nil
	}
	return errType("model", "a string", v)
}

// optString reads a string that may be absent or null.
func optString(param string, v gjson.Result) (*string, *Error) {
	switch v.Type {
	case gjson.Null:
		return nil, nil
	case gjson.String:
		s := v.Str
		return &s, nil
	}
	return nil, errType(param, "a string", v)
}

// optBool reads a boolean into dst; null keeps the default.
func optBool(param string, v gjson.Result, dst *bool) *Error {
	switch v.Type {
	case gjson.Null:
		return nil
	case gjson.True, gjson.False:
		*dst = v.Type == gjson.True
		return nil
	}
	return errType(param, "a boolean", v)
}

// optEnum reads one of allowed into dst; null keeps the default.
func optEnum(param string, v gjson.Result, dst *string, allowed ...string) *Error {
	switch v.Type {
	case gjson.Null:
		return nil
	case gjson.String:
		for _, a := range allowed {
			if v.Str == a {
				*dst = a
				return nil
			}
		}
		return errValue(param, v.Str, allowed...)
	}
	return errType(param, "a string", v)
}

// optFloat reads a number in [min, max]; null is absent.
func optFloat(param string, v gjson.Result, min, max float64) (*float64, *Error) {
	switch v.Type {
	case gjson.Null:
		return nil, nil
	case gjson.Number:
		f := v.Num
		if f < min {
			return nil, errRange(param, f, false, false, min)
		}
		if f > max {
			return nil, errRange(param, f, false, true, max)
		}
		return &f, nil
	}
	return nil, errType(param, "a decimal", v)
}

// optInt reads an integer in [min, max]; null is absent. A number with a
// zero fraction (16.0) counts as an integer.
func optInt(param string, v gjson.Result, min, max int64) (*int64, *Error) {
	switch v.Type {
	case gjson.Null:
		return nil, nil
	case gjson.Number:
		if !isIntegral(v) {
			return nil, errType(param, "an integer", v)
		}
		n, err := strconv.ParseInt(v.Raw, 10, 64)
		if err != nil { // 16.0, 1e3, or out of int64's range
			if v.Num >= math.MaxInt64 || v.Num < math.MinInt64 {
				return nil, errRange(param, v.Num, true, v.Num > 0, float64(max))
			}
			n = int64(v.Num)
		}
		if n < min {
			return nil, errRange(param, float64(n), true, false, float64(min))
		}
		if n > max {
			return nil, errRange(param, float64(n), true, true, float64(max))
		}
		return &n, nil
	}
	return nil, errType(param, "an integer", v)
}

// isIntegral reports whether a JSON number has no fractional part.
func isIntegral(v gjson.Result) bool {
	return v.Type == gjson.Number && v.Num == math.Trunc(v.Num) && !math.IsInf(v.Num, 0)
}

func errEmptyString(param string) *Error {
	return Invalid(param, "empty_string", "Invalid '%s': empty string. Expected a string with minimum length 1, but got an empty string instead.", param)
}

// compact returns a one-line copy of a JSON value (whitespace outside
// strings removed), so echoed schemas never break an SSE data line.
func compact(raw string) json.RawMessage {
	return appendCompact(make([]byte, 0, len(raw)), raw)
}

// appendCompact appends raw to out without whitespace outside strings.
func appendCompact(out []byte, raw string) []byte {
	inStr, esc := false, false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inStr {
			out = append(out, c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			inStr = true
		}
		out = append(out, c)
	}
	return out
}
