package messages

import (
	"strconv"
	"strings"

	"github.com/farebox/farebox/responses"
	"github.com/tidwall/gjson"
)

// Decode reads a POST /v1/messages body into the canonical request. It
// rebuilds a Responses body from the fields it interprets and runs
// responses.ParseWith on it; an error names the Messages field the client
// sent (messages.1.content.0.input), and ErrorBody writes it in
// Anthropic's shape. Decode needs no header: anthropic-version and
// anthropic-beta change nothing it reads.
func Decode(body []byte, policy responses.HostedPolicy) (*responses.Request, *responses.Error) {
	return decode(body, policy, true)
}

// DecodeCountTokens reads a POST /v1/messages/count_tokens body: the same
// fields, max_tokens not required.
func DecodeCountTokens(body []byte, policy responses.HostedPolicy) (*responses.Request, *responses.Error) {
	return decode(body, policy, false)
}

func decode(body []byte, policy responses.HostedPolicy, needMax bool) (*responses.Request, *responses.Error) {
	if err := responses.CheckBody(body); err != nil {
		return nil, reparamAll(err)
	}
	d := decoder{policy: policy, out: make([]byte, 0, len(body)+256)}
	d.out = append(d.out, '{')
	var err *responses.Error
	gjson.ParseBytes(body).ForEach(func(k, v gjson.Result) bool {
		err = d.top(k.Str, v)
		return err == nil
	})
	if err == nil && needMax && !d.hasMax {
		err = responses.ErrMissing("max_tokens")
	}
	if err != nil {
		return nil, err
	}
	d.finish()
	req, err := responses.ParseWith(d.out, policy)
	if err != nil {
		return nil, d.paths.translate(err)
	}
	for _, t := range d.dropped {
		req.DroppedTools = appendOnce(req.DroppedTools, t)
	}
	return req, nil
}

// decoder builds the Responses body of one Messages request.
type decoder struct {
	policy  responses.HostedPolicy
	out     []byte
	paths   paths
	hasMax  bool
	system  gjson.Result
	think   gjson.Result
	config  gjson.Result
	dropped []string // the provider-executed tools and fields the policy dropped
}

// top reads one top-level Messages field.
func (d *decoder) top(key string, v gjson.Result) *responses.Error {
	switch key {
	case "model", "temperature", "top_p", "stream":
		d.field(key, v.Raw)
	case "max_tokens":
		if v.Type != gjson.Null {
			d.hasMax = true
			d.field("max_output_tokens", v.Raw)
		}
	case "messages":
		return d.messages(v)
	case "system":
		d.system = v
	case "tools":
		return d.tools(v)
	case "tool_choice":
		return d.toolChoice(v)
	case "thinking":
		d.think = v
	case "output_config":
		if v.Type != gjson.Null && !v.IsObject() {
			return responses.ErrType(key, "an object", v)
		}
		d.config = v
	case "stop_sequences":
		if v.Type != gjson.Null && !(v.IsArray() && len(v.Array()) == 0) {
			return responses.Invalid(key, "unsupported_parameter", "stop_sequences: not supported: the canonical request farebox sends upstream has no stop sequences; stop on the client side.")
		}
	case "container", "mcp_servers":
		return d.hostedField(key, v)
	default:
		if _, ok := Fields[key]; ok {
			return nil // dropped
		}
		return responses.Invalid(key, "unknown_parameter", "%s: Extra inputs are not permitted", key)
	}
	return nil
}

// hostedField applies the tool policy to a field that asks the provider
// to run something.
func (d *decoder) hostedField(key string, v gjson.Result) *responses.Error {
	if v.Type == gjson.Null || v.IsArray() && len(v.Array()) == 0 {
		return nil
	}
	if d.policy == responses.HostedRefuse {
		return responses.ErrHosted(key, "Field", key)
	}
	d.dropped = append(d.dropped, key)
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

// finish appends what several fields make: instructions from system,
// reasoning and include from thinking and output_config.effort, text from
// output_config.format.
func (d *decoder) finish() {
	if s := d.system; s.Exists() && s.Type != gjson.Null {
		d.field("instructions", systemText(s))
	}
	reasoning, include := d.reasoning()
	if reasoning != "" {
		d.field("reasoning", reasoning)
	}
	if include {
		d.field("include", `["reasoning.encrypted_content"]`)
	}
	if f := d.config.Get("format"); f.Exists() && f.Type != gjson.Null {
		d.field("text", `{"format":`+outputFormat(f)+`}`)
	}
	d.out = append(d.out, '}')
}

// systemText is the system prompt as one string: a string as sent, the
// text blocks joined by a blank line (cache_control dropped). Anything
// else is passed as sent, for ParseWith to refuse in its words.
func systemText(s gjson.Result) string {
	if !s.IsArray() {
		return s.Raw
	}
	var texts []string
	ok := true
	s.ForEach(func(_, b gjson.Result) bool {
		t := b.Get("text")
		ok = b.Get("type").Str == "text" && t.Type == gjson.String
		texts = append(texts, t.Str)
		return ok
	})
	if !ok {
		return s.Raw
	}
	return string(responses.AppendJSONString(nil, strings.Join(texts, "\n\n")))
}

// outputFormat is output_config.format ({"type":"json_schema","schema"})
// as a Responses text.format.
func outputFormat(f gjson.Result) string {
	if f.Get("type").Str != "json_schema" {
		return f.Raw
	}
	return `{"type":"json_schema","name":"output","schema":` + rawOr(f.Get("schema"), "null") + `,"strict":true}`
}

// reasoning builds the Responses reasoning object from thinking and
// output_config.effort, and whether to include encrypted reasoning (any
// thinking not disabled: the client must be able to send it back).
func (d *decoder) reasoning() (string, bool) {
	typ := d.think.Get("type").Str
	effort := ""
	switch e := d.config.Get("effort"); e.Str {
	case "low", "medium", "high":
		effort = e.Str
	case "max":
		effort = "xhigh"
	case "":
		if typ == "enabled" {
			effort = budgetEffort(d.think.Get("budget_tokens").Int())
		}
	default:
		effort = e.Str // ParseWith's upstreams refuse an effort they do not know
	}
	if typ != "enabled" && typ != "adaptive" {
		if effort == "" {
			return "", false
		}
		return `{"effort":` + string(responses.AppendJSONString(nil, effort)) + `}`, false
	}
	b := []byte(`{`)
	if effort != "" {
		b = append(b, `"effort":`...)
		b = responses.AppendJSONString(b, effort)
	}
	if d.think.Get("display").Str != "omitted" {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, `"summary":"auto"`...)
	}
	return string(append(b, '}')), true
}

// budgetEffort reads a thinking budget as an effort: the budgets
// Anthropic's documentation pairs with each.
func budgetEffort(budget int64) string {
	switch {
	case budget <= 0:
		return ""
	case budget < 4096:
		return "low"
	case budget < 16384:
		return "medium"
	}
	return "high"
}

func rawOr(v gjson.Result, def string) string {
	if !v.Exists() {
		return def
	}
	return v.Raw
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func itoa(i int) string { return strconv.Itoa(i) }
