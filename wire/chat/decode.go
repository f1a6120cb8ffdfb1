package chat

import (
	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// Decode reads a Chat Completions request body into the canonical request.
// It rebuilds a Responses body from the chat fields it interprets and runs
// responses.ParseWith on it, so validation, limits and the tool policy are
// those of the Responses wire; an error names the chat field the client
// sent (messages[2].tool_calls[0].function.arguments, not input[3].arguments).
func Decode(body []byte, policy responses.HostedPolicy) (*responses.Request, *responses.Error) {
	if err := responses.CheckBody(body); err != nil {
		return nil, err
	}
	d := decoder{policy: policy, out: make([]byte, 0, len(body)+256)}
	d.out = append(d.out, '{')
	var err *responses.Error
	gjson.ParseBytes(body).ForEach(func(k, v gjson.Result) bool {
		err = d.top(k.Str, v)
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	d.finish()
	req, err := responses.ParseWith(d.out, policy)
	if err != nil {
		return nil, d.paths.translate(err)
	}
	if d.webSearch {
		req.DroppedTools = appendOnce(req.DroppedTools, "web_search")
	}
	return req, nil
}

// decoder builds the Responses body of one chat request.
type decoder struct {
	policy responses.HostedPolicy
	out    []byte
	paths  paths
	// text and reasoning collect the Responses objects several chat
	// fields make.
	format, verbosity, effort gjson.Result
	// webSearch records web_search_options dropped by the tool policy.
	webSearch bool
	// custom holds the call ids of custom tool calls, so a tool message
	// answering one becomes a custom_tool_call_output.
	custom map[string]bool
}

// top reads one top-level chat field.
func (d *decoder) top(key string, v gjson.Result) *responses.Error {
	switch key {
	case "model", "temperature", "top_p", "presence_penalty", "frequency_penalty",
		"parallel_tool_calls", "stream", "stream_options", "metadata", "user",
		"safety_identifier", "prompt_cache_key", "prompt_cache_retention",
		"prompt_cache_options", "service_tier", "moderation":
		d.field(key, v.Raw)
	case "messages":
		return d.messages(v)
	case "tools":
		return d.tools(v)
	case "tool_choice":
		return d.toolChoice(v)
	case "response_format":
		d.format = v
	case "verbosity":
		d.verbosity = v
	case "reasoning_effort":
		d.effort = v
	case "max_tokens", "max_completion_tokens":
		return d.maxTokens(key, v)
	case "web_search_options":
		return d.webSearchOptions(v)
	case "store", "seed", "prediction":
		return nil
	default:
		if _, refused := Fields[key]; refused {
			return refuse(key, v)
		}
		return responses.ErrUnknown(key)
	}
	return nil
}

// field appends "key":raw to the Responses body.
func (d *decoder) field(key, raw string) {
	if len(d.out) > 1 {
		d.out = append(d.out, ',')
	}
	d.out = gjson.AppendJSONString(d.out, key)
	d.out = append(d.out, ':')
	d.out = append(d.out, raw...)
}

// maxTokens reads max_tokens or max_completion_tokens (one of them) into
// max_output_tokens, whose limits are the canonical form's.
func (d *decoder) maxTokens(key string, v gjson.Result) *responses.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if d.paths.tokens != "" {
		return responses.Invalid(key, "invalid_value", "Invalid '%s': send either 'max_tokens' or 'max_completion_tokens', not both.", key)
	}
	d.paths.tokens = key
	d.field("max_output_tokens", v.Raw)
	return nil
}

// webSearchOptions applies the tool policy to the hosted web search a
// chat request asks for with web_search_options.
func (d *decoder) webSearchOptions(v gjson.Result) *responses.Error {
	if v.Type == gjson.Null {
		return nil
	}
	if !v.IsObject() {
		return responses.ErrType("web_search_options", "an object", v)
	}
	if d.policy == responses.HostedRefuse {
		return responses.ErrHosted("web_search_options", "Tool", "web_search")
	}
	d.webSearch = true
	return nil
}

// finish appends the Responses objects several chat fields make.
func (d *decoder) finish() {
	if d.format.Exists() && d.format.Type != gjson.Null || d.verbosity.Exists() && d.verbosity.Type != gjson.Null {
		d.field("text", string(d.text()))
	}
	if d.effort.Exists() && d.effort.Type != gjson.Null {
		d.field("reasoning", `{"effort":`+d.effort.Raw+`}`)
	}
	d.out = append(d.out, '}')
}

// text builds the Responses text object from response_format and
// verbosity: json_schema's inner object is flattened into the format.
func (d *decoder) text() []byte {
	b := []byte{'{'}
	if f := d.format; f.Exists() && f.Type != gjson.Null {
		b = append(b, `"format":`...)
		if js := f.Get("json_schema"); f.Get("type").Str == "json_schema" && js.IsObject() {
			b = append(b, `{"type":"json_schema"`...)
			js.ForEach(func(k, v gjson.Result) bool {
				b = append(b, ',')
				b = gjson.AppendJSONString(b, k.Str)
				b = append(b, ':')
				b = append(b, v.Raw...)
				return true
			})
			b = append(b, '}')
		} else {
			b = append(b, f.Raw...)
		}
	}
	if v := d.verbosity; v.Exists() && v.Type != gjson.Null {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, `"verbosity":`...)
		b = append(b, v.Raw...)
	}
	return append(b, '}')
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
