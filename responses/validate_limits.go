package responses

import (
	"encoding/json"
	"slices"

	"github.com/tidwall/gjson"
)

// Limits bound what one call may make an upstream spend: a per-call price
// is only safe when the tokens and the effort behind it are bounded. The
// gateway builds them per model from its configuration; zero values bound
// nothing.
type Limits struct {
	// MaxOutputTokens is sent on every call, the client's own value capped
	// to it (0: the client's value, or none, goes on).
	MaxOutputTokens int64
	// MaxInputTokens refuses a request whose estimated input is larger
	// (0: no limit). See InputTokens for the estimate.
	MaxInputTokens int64
	// Efforts are the reasoning.effort values that pass (nil: any); any
	// other becomes EffortCap.
	Efforts   []string
	EffortCap string
	// ServiceTiers are the service_tier values that pass (nil: any); any
	// other becomes "default".
	ServiceTiers []string
	// MaxVerbosity caps text.verbosity (low < medium < high; "": no cap).
	MaxVerbosity string
}

// The estimate's rates: a token per bytesPerToken bytes of text, and a
// flat count per image (OpenAI's mini models bill up to ~2,500 tokens for
// a full-size image; larger models fewer).
const (
	bytesPerToken = 4
	imageTokens   = 2500
)

// verbosities are text.verbosity's values, least first.
var verbosities = []string{"low", "medium", "high"}

// Apply bounds r by l: it lowers what is over a cap (the response echoes
// the values used) and answers with a 400 for an input over the limit.
// It runs before anything is paid or any upstream is called.
func (l *Limits) Apply(r *Request) *Error {
	if l == nil {
		return nil
	}
	if l.MaxInputTokens > 0 {
		if n := r.InputTokens(); n > l.MaxInputTokens {
			return Invalid("input", "input_above_limit",
				"Invalid 'input': this request's input is about %d tokens (a token per %d bytes of text, %d per image or file part), over this model's limit of %d input tokens. Send a shorter conversation or fewer attachments.",
				n, bytesPerToken, imageTokens, l.MaxInputTokens)
		}
	}
	if m := l.MaxOutputTokens; m > 0 && (r.MaxOutputTokens == nil || *r.MaxOutputTokens > m) {
		r.MaxOutputTokens = &m
	}
	if l.Efforts != nil && len(r.Reasoning) > 0 {
		if e := gjson.GetBytes(r.Reasoning, "effort"); e.Type == gjson.String && !slices.Contains(l.Efforts, e.Str) {
			r.Reasoning = withField(reasoningFields, r.Reasoning, "effort", l.EffortCap)
		}
	}
	if l.ServiceTiers != nil && !slices.Contains(l.ServiceTiers, r.ServiceTier) {
		r.ServiceTier = "default"
	}
	if most := slices.Index(verbosities, l.MaxVerbosity); most >= 0 && len(r.Text) > 0 {
		v := gjson.GetBytes(r.Text, "verbosity")
		if slices.Index(verbosities, v.Str) > most {
			r.Text = withField(formatFields{"format", "verbosity"}, r.Text, "verbosity", l.MaxVerbosity)
		}
	}
	return nil
}

// withField is the object obj (whose keys are among ff) with key set to
// the string value.
func withField(ff formatFields, obj json.RawMessage, key, value string) json.RawMessage {
	b := append(make([]byte, 0, len(obj)+len(value)+len(key)+6), '{')
	n := 0
	for _, k := range ff {
		var raw []byte
		if k == key {
			raw = gjson.AppendJSONString(nil, value)
		} else if v := gjson.GetBytes(obj, k); v.Exists() && v.Type != gjson.Null {
			raw = []byte(v.Raw)
		} else {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = gjson.AppendJSONString(b, k)
		b = append(b, ':')
		b = append(b, raw...)
	}
	return append(b, '}')
}

// InputTokens estimates the input tokens r costs an upstream before it is
// called: a token per 4 bytes (rounded up) of every text it carries
// (instructions, messages, calls, outputs, tool definitions, the output
// format) and a flat imageTokens per image or file part. It is an
// estimate, not the upstream's count: the limit it is held to should
// leave a margin.
func (r *Request) InputTokens() int64 {
	var bytes, media int64
	if r.Instructions != nil {
		bytes += int64(len(*r.Instructions))
	}
	parts := func(ps []Part) {
		for i := range ps {
			p := &ps[i]
			bytes += int64(len(p.Text))
			switch p.Type {
			case "input_image":
				media++
			case "input_file":
				media++
				bytes += int64(len(p.FileData))
			}
		}
	}
	for i := range r.Input {
		it := &r.Input[i]
		parts(it.Content)
		parts(it.Output)
		bytes += int64(len(it.Name) + len(it.Arguments) + len(it.OutputText) + len(it.Raw) +
			len(it.Summary) + len(it.EncryptedContent))
	}
	for i := range r.Tools {
		t := &r.Tools[i]
		bytes += int64(len(t.Name) + len(t.Description) + len(t.Parameters) + len(t.Format) + len(t.Config))
	}
	bytes += int64(len(r.Text))
	return (bytes+bytesPerToken-1)/bytesPerToken + media*imageTokens
}
