package responses

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/farebox/farebox/internal/jsonstr"
)

// The emitter writes JSON by appending into reused byte buffers: no
// reflection and no encoding/json on the per-delta path. These are the few
// primitives it needs.

// outEscaped appends the JSON string escape of s (without the
// surrounding quotes), as encoding/json writes it without HTML escaping:
// '"', '\\' and every control character escaped, invalid UTF-8 as U+FFFD,
// U+2028/U+2029 escaped so the output is also safe as a JavaScript literal.
func outEscaped(dst []byte, s string) []byte { return jsonstr.AppendEscaped(dst, s, false) }

// outString appends s as a JSON string literal.
func outString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	dst = outEscaped(dst, s)
	return append(dst, '"')
}

// outStringPtr appends *s as a JSON string, or null when s is nil.
func outStringPtr(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return outString(dst, *s)
}

// outKey appends `"key":` after a comma; key must need no escaping.
func outKey(dst []byte, key string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, key...)
	return append(dst, '"', ':')
}

// outInt appends an integer.
func outInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }

// outIntPtr appends *n, or null when n is nil.
func outIntPtr(dst []byte, n *int64) []byte {
	if n == nil {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, *n, 10)
}

// outFloat appends *f, or def when f is nil. JSON numbers from a parsed
// request are always finite, so 'g' formatting is valid JSON.
func outFloat(dst []byte, f *float64, def string) []byte {
	if f == nil {
		return append(dst, def...)
	}
	return strconv.AppendFloat(dst, *f, 'g', -1, 64)
}

// outBool appends true or false.
func outBool(dst []byte, b bool) []byte { return strconv.AppendBool(dst, b) }

// outRaw appends raw JSON compacted to one line (SSE data must be one
// line), or def when raw is empty or not valid JSON.
func outRaw(dst []byte, raw []byte, def string) []byte {
	if len(bytes.TrimSpace(raw)) == 0 {
		return append(dst, def...)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return append(dst, def...)
	}
	return append(dst, b.Bytes()...)
}

// AppendJSONString appends s as a JSON string literal, escaped as the
// emitter escapes everything it writes; the gateway builds its error bodies
// with it.
func AppendJSONString(dst []byte, s string) []byte { return outString(dst, s) }
