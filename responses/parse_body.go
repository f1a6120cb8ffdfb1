package responses

import "github.com/tidwall/gjson"

// This file exports the checks and the error wording every client wire
// shares, so a wire's codec refuses a body in the same words as Parse.

// CheckBody runs the checks every body gets before any field is read: not
// nested too deep, valid JSON, no key twice in one object, an object at
// the top. A wire codec calls it first, since it rebuilds a Responses body
// from the fields it reads and would hide a duplicate key it collapsed.
func CheckBody(body []byte) *Error {
	shape := scanShape(body)
	if shape.deep {
		return errTooDeep()
	}
	if !gjson.ValidBytes(body) {
		return errInvalidJSON()
	}
	if shape.dup != "" {
		return errDuplicateKey(shape.dup)
	}
	if root := gjson.ParseBytes(body); !root.IsObject() {
		return errNotObject(root)
	}
	return nil
}

// ErrType answers a value of the wrong JSON type at param; want reads "a
// string", "an object", ...
func ErrType(param, want string, got gjson.Result) *Error { return errType(param, want, got) }

// ErrMissing answers a required parameter that was not sent.
func ErrMissing(param string) *Error { return errMissing(param) }

// ErrUnknown answers a parameter the wire does not define.
func ErrUnknown(param string) *Error { return errUnknown(param) }

// ErrValue answers a string outside its enum, listing the allowed values.
func ErrValue(param, got string, allowed ...string) *Error { return errValue(param, got, allowed...) }

// ErrHosted refuses a provider-executed tool (what names it: "Tool",
// "Tool choice") in the words Parse uses for Responses' hosted tools.
func ErrHosted(param, what, typ string) *Error { return errHosted(param, what, typ) }
