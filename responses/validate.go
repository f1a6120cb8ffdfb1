package responses

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Metadata limits, as OpenAI enforces them.
const (
	maxMetadataPairs = 16
	maxMetadataKey   = 64
	maxMetadataValue = 512
)

// refusePreviousResponse answers previous_response_id exactly as OpenAI
// answers an unknown id, word for word (clients match on it): farebox keeps
// no responses, so none is ever found, and ignoring the field would let the
// client believe context was kept.
func refusePreviousResponse(v gjson.Result) *Error {
	switch v.Type {
	case gjson.Null:
		return nil
	case gjson.String:
		return Invalid("previous_response_id", "previous_response_not_found", "Previous response with id '%s' not found.", v.Str)
	}
	return errType("previous_response_id", "a string", v)
}

// refuseConversation refuses server-side conversations: there is no state
// to attach the response to.
func refuseConversation(v gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case v.Type == gjson.String || v.IsObject():
		return errUnsupported("conversation", "unsupported_parameter",
			"Unsupported parameter: 'conversation' is not supported: "+statelessHint)
	}
	return errType("conversation", "one of a string or an object", v)
}

// refuseBackground refuses background: true, which needs a stored response
// to poll; false and null are the normal case.
func refuseBackground(v gjson.Result) *Error {
	switch v.Type {
	case gjson.Null, gjson.False:
		return nil
	case gjson.True:
		return errUnsupported("background", "unsupported_value",
			"Unsupported value: 'background' must be false: background responses need stored state to poll, and "+statelessHint)
	}
	return errType("background", "a boolean", v)
}

// parseMetadata reads metadata, keeping the client's key order.
func parseMetadata(v gjson.Result) ([]MetadataPair, *Error) {
	switch {
	case v.Type == gjson.Null:
		return nil, nil
	case !v.IsObject():
		return nil, errType("metadata", "an object", v)
	}
	var pairs []MetadataPair
	var err *Error
	v.ForEach(func(k, val gjson.Result) bool {
		if len(pairs) == maxMetadataPairs {
			n := 0
			v.ForEach(func(_, _ gjson.Result) bool { n++; return true })
			err = Invalid("metadata", "object_above_max_properties", "Invalid 'metadata': too many properties. Expected an object with at most %d properties, but got an object with %d properties instead.", maxMetadataPairs, n)
			return false
		}
		if n := utf8.RuneCountInString(k.Str); n > maxMetadataKey {
			err = Invalid("metadata", "string_above_max_length", "Invalid 'metadata': key too long. Expected metadata keys with maximum length %d, but got a key with length %d instead.", maxMetadataKey, n)
			return false
		}
		if val.Type != gjson.String {
			err = errType("metadata."+k.Str, "a string", val)
			return false
		}
		if n := utf8.RuneCountInString(val.Str); n > maxMetadataValue {
			err = errTooLong("metadata."+k.Str, maxMetadataValue, n)
			return false
		}
		if pairs == nil {
			pairs = make([]MetadataPair, 0, 4)
		}
		pairs = append(pairs, MetadataPair{Key: k.Str, Value: val.Str})
		return true
	})
	return pairs, err
}

// parseText checks the text object ({format, verbosity}) and keeps it
// rebuilt from those fields, one line.
func parseText(v gjson.Result) (json.RawMessage, *Error) {
	switch {
	case v.Type == gjson.Null:
		return nil, nil
	case !v.IsObject():
		return nil, errType("text", "an object", v)
	}
	var verbosity string
	if err := optEnum("text.verbosity", v.Get("verbosity"), &verbosity, "low", "medium", "high"); err != nil {
		return nil, err
	}
	b := append(make([]byte, 0, 32+len(v.Raw)), '{')
	if f := v.Get("format"); f.Type != gjson.Null {
		if err := checkFormat(f); err != nil {
			return nil, err
		}
		b = append(b, `"format":`...)
		b = textFormat.rebuild(b, f)
	}
	if verbosity != "" {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, `"verbosity":`...)
		b = gjson.AppendJSONString(b, verbosity)
	}
	return append(b, '}'), nil
}

// textFormat is text.format as forwarded: checkFormat has checked it.
var textFormat = formatFields{"type", "name", "description", "schema", "strict"}

// formatFields are the keys of a checked object that are kept.
type formatFields []string

// rebuild appends the object v with only these keys, in this order.
func (ff formatFields) rebuild(b []byte, v gjson.Result) []byte {
	if b == nil {
		b = make([]byte, 0, len(v.Raw))
	}
	b = append(b, '{')
	n := 0
	for _, k := range ff {
		fv := v.Get(k)
		if fv.Type == gjson.Null {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = gjson.AppendJSONString(b, k)
		b = append(b, ':')
		b = appendCompact(b, fv.Raw)
	}
	return append(b, '}')
}

// checkFormat checks text.format: text, json_object, or json_schema with a
// valid name and an object schema.
func checkFormat(f gjson.Result) *Error {
	switch {
	case f.Type == gjson.Null:
		return nil
	case !f.IsObject():
		return errType("text.format", "an object", f)
	}
	at := func(s string) string { return "text.format." + s }
	typ, err := reqEnum(at, "type", f.Get("type"), "text", "json_object", "json_schema")
	if err != nil || typ != "json_schema" {
		return err
	}
	name := f.Get("name")
	switch {
	case name.Type == gjson.Null:
		return errMissing("text.format.name")
	case name.Type != gjson.String:
		return errType("text.format.name", "a string", name)
	}
	if err := checkName(at, "name", name.Str); err != nil {
		return err
	}
	schema := f.Get("schema")
	switch {
	case schema.Type == gjson.Null:
		return errMissing("text.format.schema")
	case !schema.IsObject():
		return errType("text.format.schema", "an object", schema)
	}
	if d := f.Get("description"); d.Type != gjson.Null && d.Type != gjson.String {
		return errType("text.format.description", "a string", d)
	}
	var strict bool
	return optBool("text.format.strict", f.Get("strict"), &strict)
}

// parseReasoning checks the reasoning object ({effort, summary,
// generate_summary}) and keeps it rebuilt from those fields, one line;
// which values an upstream takes is its business (and the model's limits').
func parseReasoning(v gjson.Result) (json.RawMessage, *Error) {
	switch {
	case v.Type == gjson.Null:
		return nil, nil
	case !v.IsObject():
		return nil, errType("reasoning", "an object", v)
	}
	for _, k := range reasoningFields {
		if f := v.Get(k); f.Type != gjson.Null && f.Type != gjson.String {
			return nil, errType("reasoning."+k, "a string", f)
		}
	}
	return reasoningFields.rebuild(nil, v), nil
}

var reasoningFields = formatFields{"effort", "summary", "generate_summary"}

// parseInclude reads include, a list of strings.
func parseInclude(v gjson.Result) ([]string, *Error) {
	switch {
	case v.Type == gjson.Null:
		return nil, nil
	case !v.IsArray():
		return nil, errType("include", "an array", v)
	}
	var out []string
	var err *Error
	i := 0
	v.ForEach(func(_, s gjson.Result) bool {
		if s.Type != gjson.String {
			err = errType(where{base: "include", i: i}.at(""), "a string", s)
			return false
		}
		out = append(out, s.Str)
		i++
		return true
	})
	return out, err
}

// parseStreamOptions reads stream_options; finish refuses it without stream.
func (p *parser) parseStreamOptions(v gjson.Result) *Error {
	switch {
	case v.Type == gjson.Null:
		return nil
	case !v.IsObject():
		return errType("stream_options", "an object", v)
	}
	p.streamOptions = true
	var obfuscation bool // accepted and ignored: farebox pads nothing
	if err := optBool("stream_options.include_obfuscation", v.Get("include_obfuscation"), &obfuscation); err != nil {
		return err
	}
	return optBool("stream_options.include_usage", v.Get("include_usage"), &p.req.IncludeUsage)
}
