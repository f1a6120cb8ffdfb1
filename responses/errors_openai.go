package responses

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// This file holds the request-error constructors, worded as OpenAI words
// them, so a client sees the same message from farebox as from OpenAI.

// statelessHint ends every refusal that comes from farebox keeping no state.
const statelessHint = "farebox is stateless: send the whole conversation in 'input' on every request."

// hostedToolHint ends every refusal of a server-side tool or tool item.
const hostedToolHint = "farebox runs no tools server-side; it accepts the tools the client executes (function, namespace, custom, local_shell, shell, apply_patch, computer_use_preview), and this server's tools.hosted policy is refuse (with drop, such tools are left out of the request)."

func errInvalidJSON() *Error {
	return &Error{Status: 400, Type: "invalid_request_error", Code: "invalid_json",
		Message: "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)"}
}

func errTooDeep() *Error {
	return &Error{Status: 400, Type: "invalid_request_error", Code: "invalid_json",
		Message: "We could not parse the JSON body of your request: it nests arrays and objects more than " + strconv.Itoa(maxDepth) + " levels deep."}
}

func errNotObject(v gjson.Result) *Error {
	return &Error{Status: 400, Type: "invalid_request_error", Code: "invalid_type",
		Message: "The request body must be a JSON object, but got " + kindOf(v) + " instead."}
}

// errType answers a value of the wrong JSON type; want reads "a string",
// "an object", "a decimal", ...
func errType(param, want string, got gjson.Result) *Error {
	return Invalid(param, "invalid_type", "Invalid type for '%s': expected %s, but got %s instead.", param, want, kindOf(got))
}

func errMissing(param string) *Error {
	return Invalid(param, "missing_required_parameter", "Missing required parameter: '%s'.", param)
}

func errUnknown(param string) *Error {
	return Invalid(param, "unknown_parameter", "Unknown parameter: '%s'.", param)
}

// errValue answers a string outside its enum, listing the allowed values.
func errValue(param, got string, allowed ...string) *Error {
	var b strings.Builder
	for i, a := range allowed {
		switch {
		case i == 0:
		case i == len(allowed)-1 && len(allowed) == 2:
			b.WriteString(" and ")
		case i == len(allowed)-1:
			b.WriteString(", and ")
		default:
			b.WriteString(", ")
		}
		b.WriteString("'" + a + "'")
	}
	return Invalid(param, "invalid_value", "Invalid value: '%s'. Supported values are: %s.", got, b.String())
}

// errUnsupported refuses something OpenAI would accept but farebox cannot
// honour (server state, server-side tools); the message says why.
func errUnsupported(param, code, message string) *Error {
	return Invalid(param, code, "%s", message)
}

// errHosted refuses a hosted (server-side) tool, tool choice or tool item.
func errHosted(param, what, typ string) *Error {
	return Invalid(param, "unsupported_value", "%s of type '%s' is not supported: %s", what, typ, hostedToolHint)
}

// errRange answers a number outside [min, max]; integer selects OpenAI's
// integer_* codes over decimal_*.
func errRange(param string, got float64, integer, above bool, limit float64) *Error {
	kind, code, cmp, dir := "decimal", "decimal", ">=", "below minimum"
	if integer {
		kind, code = "integer", "integer"
	}
	if above {
		cmp, dir = "<=", "above maximum"
		code += "_above_max_value"
	} else {
		code += "_below_min_value"
	}
	return Invalid(param, code, "Invalid '%s': %s %s value. Expected a value %s %s, but got %s instead.",
		param, kind, dir, cmp, fmtNum(limit), fmtNum(got))
}

func errEmptyArray(param string) *Error {
	return Invalid(param, "empty_array", "Invalid '%s': empty array. Expected an array with minimum length 1, but got an empty array instead.", param)
}

func errTooLong(param string, max, got int) *Error {
	return Invalid(param, "string_above_max_length", "Invalid '%s': string too long. Expected a string with maximum length %d, but got a string with length %d instead.", param, max, got)
}

// kindOf names a JSON value's type the way OpenAI's messages do.
func kindOf(v gjson.Result) string {
	switch v.Type {
	case gjson.String:
		return "a string"
	case gjson.True, gjson.False:
		return "a boolean"
	case gjson.Number:
		if isIntegral(v) {
			return "an integer"
		}
		return "a decimal"
	case gjson.Null:
		return "null"
	case gjson.JSON:
		if v.IsArray() {
			return "an array"
		}
		return "an object"
	}
	return "nothing"
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// where locates a value inside an array of the request, e.g. input[3] or
// input[3].content[1]. It is a plain value and builds its path string only
// when an error needs it, so the hot path builds no strings.
type where struct {
	base string // "input", "tools", "tool_choice.tools"
	i    int
	sub  string // "" or the nested array, e.g. "content", "output"
	j    int
}

// at returns the param path of field under w ("" = w itself).
func (w where) at(field string) string {
	s := w.base + "[" + strconv.Itoa(w.i) + "]"
	if w.sub != "" {
		s += "." + w.sub + "[" + strconv.Itoa(w.j) + "]"
	}
	if field != "" {
		s += "." + field
	}
	return s
}

// in returns the location of element j of w's nested array sub.
func (w where) in(sub string, j int) where {
	w.sub, w.j = sub, j
	return w
}
