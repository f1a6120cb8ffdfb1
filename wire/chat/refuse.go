package chat

import (
	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// refuse answers a Refused field that asks for more than its default.
func refuse(key string, v gjson.Result) *responses.Error {
	if v.Type == gjson.Null || isDefault(key, v) {
		return nil
	}
	return responses.Invalid(key, "unsupported_parameter", "Unsupported parameter: '%s' %s", key, refusals[key])
}

// refusals says, per refused field, why farebox cannot honour it.
var refusals = map[string]string{
	"n":             "must be 1: farebox answers one choice per paid call.",
	"logprobs":      "is not supported: the upstreams behind farebox do not return log probabilities.",
	"top_logprobs":  "is not supported: the upstreams behind farebox do not return log probabilities.",
	"logit_bias":    "is not supported: the canonical request farebox sends upstream cannot carry it.",
	"stop":          "is not supported: the canonical request farebox sends upstream has no stop sequences; stop on the client side.",
	"audio":         "is not supported: farebox answers text only.",
	"modalities":    "is not supported beyond [\"text\"]: farebox answers text only.",
	"functions":     "is deprecated and not supported: declare them in 'tools'.",
	"function_call": "is deprecated and not supported: use 'tool_choice'.",
}

// isDefault reports whether v is the value that asks for nothing (n: 1,
// logprobs: false, stop: [], modalities: ["text"], ...).
func isDefault(key string, v gjson.Result) bool {
	switch key {
	case "n":
		return v.Type == gjson.Number && v.Num == 1
	case "logprobs":
		return v.Type == gjson.False
	case "top_logprobs":
		return v.Type == gjson.Number && v.Num == 0
	case "logit_bias":
		return v.IsObject() && len(v.Map()) == 0
	case "stop", "functions":
		return v.IsArray() && len(v.Array()) == 0
	case "modalities":
		ok := v.IsArray()
		v.ForEach(func(_, m gjson.Result) bool {
			ok = m.Type == gjson.String && m.Str == "text"
			return ok
		})
		return ok
	}
	return false
}
