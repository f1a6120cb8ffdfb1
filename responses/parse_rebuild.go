package responses

import (
	"strconv"

	"github.com/tidwall/gjson"
)

// Objects farebox forwards but does not otherwise interpret (the calls of
// the built-in client tools and their outputs, a shell's local
// environment, a custom tool's format) are rebuilt from the fields of the
// published API, each checked for its type: a field farebox does not know
// never reaches an upstream, whatever it would make the provider do.

// fieldKind is the JSON type a known field must have.
type fieldKind int

const (
	kString    fieldKind = iota
	kInt                 // an integer
	kStrings             // an array of strings
	kStringMap           // an object of string values
	kObject              // an object of shape sub
	kObjects             // an array of objects of shape sub
	kFileID              // a file of the operator's provider account: refused
	kEnum                // a string, one of enum
)

// field is one known field of a shape.
type field struct {
	name     string
	kind     fieldKind
	required bool
	sub      *shape
	enum     []string
}

// shape is what an object may hold: fields in wire order, or, when union
// is set, one of several shapes chosen by its "type" (kept in the output).
type shape struct {
	fields []field
	union  map[string]*shape
	// unionOrder lists the union's types, for the error naming them.
	unionOrder []string
}

// rebuild appends to b the object v rebuilt as s allows, or answers with
// the 400 for the first field that does not fit; at names a field's param.
func (s *shape) rebuild(b []byte, at func(string) string, v gjson.Result) ([]byte, *Error) {
	if !v.IsObject() {
		return b, errType(at(""), "an object", v)
	}
	b = append(b, '{')
	first := true
	sep := func() {
		if !first {
			b = append(b, ',')
		}
		first = false
	}
	fields := s.fields
	if s.union != nil {
		tv := v.Get("type")
		typ := s.unionOrder[0] // a one-type union's type may be left out, as the SDKs do
		if tv.Type != gjson.Null || len(s.unionOrder) > 1 {
			var err *Error
			if typ, err = reqEnum(at, "type", tv, s.unionOrder...); err != nil {
				return b, err
			}
		}
		sep()
		b = append(b, `"type":`...)
		b = gjson.AppendJSONString(b, typ)
		fields = s.union[typ].fields
	}
	for i := range fields {
		f := &fields[i]
		fv := v.Get(f.name) // known names are plain identifiers: safe as gjson paths
		if fv.Type == gjson.Null {
			if f.required {
				return b, errMissing(at(f.name))
			}
			continue
		}
		sep()
		b = gjson.AppendJSONString(b, f.name)
		b = append(b, ':')
		var err *Error
		if b, err = f.append(b, at, fv); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// append appends the value v of field f.
func (f *field) append(b []byte, at func(string) string, v gjson.Result) ([]byte, *Error) {
	param := func() string { return at(f.name) }
	switch f.kind {
	case kString:
		if v.Type != gjson.String {
			return b, errType(param(), "a string", v)
		}
		return gjson.AppendJSONString(b, v.Str), nil
	case kInt:
		n, err := optInt(param(), v, -1<<53, 1<<53)
		if err != nil {
			return b, err
		}
		return strconv.AppendInt(b, *n, 10), nil
	case kEnum:
		s, err := reqEnum(at, f.name, v, f.enum...)
		if err != nil {
			return b, err
		}
		return gjson.AppendJSONString(b, s), nil
	case kStrings:
		return appendStrings(b, param, v)
	case kStringMap:
		return appendStringMap(b, param, v)
	case kObject:
		return f.sub.rebuild(b, func(s string) string { return join(param(), s) }, v)
	case kObjects:
		if !v.IsArray() {
			return b, errType(param(), "an array", v)
		}
		b = append(b, '[')
		var err *Error
		j := 0
		v.ForEach(func(_, el gjson.Result) bool {
			if j > 0 {
				b = append(b, ',')
			}
			k := j
			b, err = f.sub.rebuild(b, func(s string) string { return join(param()+"["+strconv.Itoa(k)+"]", s) }, el)
			j++
			return err == nil
		})
		return append(b, ']'), err
	case kFileID:
		return b, errFileID(param())
	}
	return b, nil
}

func appendStrings(b []byte, param func() string, v gjson.Result) ([]byte, *Error) {
	if !v.IsArray() {
		return b, errType(param(), "an array", v)
	}
	b = append(b, '[')
	var err *Error
	j := 0
	v.ForEach(func(_, el gjson.Result) bool {
		if el.Type != gjson.String {
			err = errType(param()+"["+strconv.Itoa(j)+"]", "a string", el)
			return false
		}
		if j > 0 {
			b = append(b, ',')
		}
		b = gjson.AppendJSONString(b, el.Str)
		j++
		return true
	})
	return append(b, ']'), err
}

func appendStringMap(b []byte, param func() string, v gjson.Result) ([]byte, *Error) {
	if !v.IsObject() {
		return b, errType(param(), "an object", v)
	}
	b = append(b, '{')
	var err *Error
	j := 0
	v.ForEach(func(k, el gjson.Result) bool {
		if el.Type != gjson.String {
			err = errType(join(param(), k.Str), "a string", el)
			return false
		}
		if j > 0 {
			b = append(b, ',')
		}
		b = gjson.AppendJSONString(b, k.Str)
		b = append(b, ':')
		b = gjson.AppendJSONString(b, el.Str)
		j++
		return true
	})
	return append(b, '}'), err
}

func join(path, field string) string {
	switch {
	case field == "":
		return path
	case path == "":
		return field
	}
	return path + "." + field
}

// errFileID refuses a reference to a stored file: file ids name files in
// the operator's provider account, which a payer has no way to upload to
// through farebox and must not read.
func errFileID(param string) *Error {
	return Invalid(param, "file_id_not_supported", "Invalid '%s': file ids are not accepted here: they name files in the gateway operator's provider account. Send the file inline (file_data, or a data: URL) or by URL (file_url, image_url) instead.", param)
}
