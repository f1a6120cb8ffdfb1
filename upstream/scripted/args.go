package scripted

import (
	"bytes"
	"encoding/json"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// Arguments returns a JSON object that validates against schema, a tool's
// JSON Schema "parameters". It is deterministic: the same schema always
// yields the same text, property order following the schema.
//
// Supported: type (and type lists, null chosen last), const, enum,
// properties/required (every property is filled down to a depth, then only
// the required ones), additionalProperties, patternProperties,
// min/maxProperties, items/prefixItems (and draft-7 tuple items),
// min/maxItems, uniqueItems, contains, strings (min/maxLength, common
// formats, pattern), numbers (minimum, maximum, exclusive bounds in both the
// draft-4 and the later form, multipleOf), $ref to "#..." pointers
// ($defs, definitions), allOf (merged), anyOf/oneOf (first branch that is
// not null). Not supported: not, if/then/else, dependent schemas,
// propertyNames, unevaluated*, $dynamicRef, external or anchor $refs (they
// count as the empty schema), ECMA-only regex syntax (the pattern is then
// not checked). oneOf branches are assumed disjoint, as in tagged unions.
// An unsatisfiable schema yields a best-effort value. Schemas come from
// clients, so the work is bounded: arguments stop growing past
// maxArgumentBytes (a schema demanding more gets a value that does not
// validate), and numbers with huge exponents are ignored as bounds.
func Arguments(schema json.RawMessage) string {
	root := gjson.ParseBytes(schema)
	if !root.IsObject() && root.Type != gjson.True {
		return "{}"
	}
	g := &generator{root: root, refs: map[string]gjson.Result{}}
	v := g.view(root)
	out := g.value(nil, v, place{root: true})
	if len(out) == 0 || out[0] != '{' {
		return "{}" // arguments are an object, whatever the schema says
	}
	return string(out)
}

const (
	// fullDepth is the nesting below which every declared property and at
	// least one array item are generated; deeper, only what is required.
	fullDepth = 4
	// hardDepth stops recursive schemas whose required parts never end.
	hardDepth = 24
	// expandBudget bounds $ref/allOf expansion of one schema (ref cycles).
	expandBudget = 128
	// maxArgumentBytes bounds the arguments of one call; past it, objects
	// and arrays stop taking members.
	maxArgumentBytes = 16 << 10
	// maxWork bounds the schema bytes read and pattern candidates tried for
	// one call; past it, objects and arrays stop taking members and
	// patterns are no longer searched.
	maxWork = 4 << 20
)

// generator builds instances of one root schema.
type generator struct {
	root gjson.Result
	refs map[string]gjson.Result // resolved $refs (misses too)
	work int                     // bytes of schema and candidates handled
}

// exhausted reports whether the value being built or the work done has
// reached its bound.
func (g *generator) exhausted(b []byte) bool {
	return len(b) > maxArgumentBytes || g.work > maxWork
}

// place says where a value goes: the property name (a hint for plausible
// values), which of several unique siblings it is, and how deep it sits.
type place struct {
	name    string
	variant int
	depth   int
	root    bool
}

func (p place) child(name string, variant int) place {
	return place{name: name, variant: variant, depth: p.depth + 1}
}

// view is a conjunction of schemas that one value must satisfy: a schema
// with its $ref targets, allOf members and chosen anyOf/oneOf branch.
type view struct {
	parts []gjson.Result
	never bool // a false schema is part of the conjunction
}

func (g *generator) view(schemas ...gjson.Result) view {
	var v view
	budget := expandBudget
	for _, s := range schemas {
		g.expand(&v, s, &budget)
	}
	return v
}

func (g *generator) expand(v *view, s gjson.Result, budget *int) {
	switch {
	case s.Type == gjson.False:
		v.never = true
		return
	case !s.IsObject():
		return // true, or not a schema: no constraint
	}
	if *budget--; *budget < 0 {
		return
	}
	v.parts = append(v.parts, s)
	g.work += len(s.Raw)
	if ref := s.Get("$ref"); ref.Type == gjson.String {
		if target, ok := g.resolve(ref.Str); ok {
			g.expand(v, target, budget)
		}
	}
	for _, sub := range s.Get("allOf").Array() {
		g.expand(v, sub, budget)
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if branches := s.Get(key).Array(); len(branches) > 0 {
			g.expand(v, g.pickBranch(s, branches), budget)
		}
	}
}

// pickBranch chooses the first branch that is not null-only and whose
// type agrees with the schema's own; failing that, the first branch.
func (g *generator) pickBranch(s gjson.Result, branches []gjson.Result) gjson.Result {
	own := declaredTypes(s)
	for _, b := range branches {
		bt := declaredTypes(g.followRefs(b))
		if len(bt) == 1 && bt[0] == "null" {
			continue
		}
		if b.Type == gjson.False {
			continue
		}
		if own == nil || bt == nil || len(intersectTypes(own, bt)) > 0 {
			return b
		}
	}
	return branches[0]
}

// followRefs follows a short chain of $refs to the schema that declares
// something (for a glance at its type, without expanding it).
func (g *generator) followRefs(s gjson.Result) gjson.Result {
	for range 8 {
		ref := s.Get("$ref")
		if ref.Type != gjson.String || s.Get("type").Exists() {
			return s
		}
		target, ok := g.resolve(ref.Str)
		if !ok {
			return s
		}
		s = target
	}
	return s
}

// resolve follows a same-document reference ("#", "#/$defs/x"), once per
// reference.
func (g *generator) resolve(ref string) (gjson.Result, bool) {
	if r, ok := g.refs[ref]; ok {
		return r, r.Exists()
	}
	r, ok := g.resolvePointer(ref)
	if !ok {
		r = gjson.Result{}
	}
	g.refs[ref] = r
	g.work += len(g.root.Raw) / 4 // a walk down the document, roughly
	return r, ok
}

func (g *generator) resolvePointer(ref string) (gjson.Result, bool) {
	if !strings.HasPrefix(ref, "#") {
		return gjson.Result{}, false
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return gjson.Result{}, false
	}
	cur := g.root
	if frag == "" {
		return cur, true
	}
	if !strings.HasPrefix(frag, "/") {
		return gjson.Result{}, false // an $anchor: not supported
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch {
		case cur.IsObject():
			cur = field(cur, tok)
		case cur.IsArray():
			i, err := strconv.Atoi(tok)
			arr := cur.Array()
			if err != nil || i < 0 || i >= len(arr) {
				return gjson.Result{}, false
			}
			cur = arr[i]
		default:
			return gjson.Result{}, false
		}
		if !cur.Exists() {
			return gjson.Result{}, false
		}
	}
	return cur, true
}

// field looks a key up literally (gjson paths would read dots and
// wildcards in user-chosen property names).
func field(obj gjson.Result, key string) gjson.Result {
	var out gjson.Result
	obj.ForEach(func(k, v gjson.Result) bool {
		if k.Str == key {
			out = v
			return false
		}
		return true
	})
	return out
}

// first returns the first value of key among the parts.
func (v view) first(key string) (gjson.Result, bool) {
	for _, p := range v.parts {
		if r := p.Get(key); r.Exists() {
			return r, true
		}
	}
	return gjson.Result{}, false
}

func declaredTypes(s gjson.Result) []string {
	t := s.Get("type")
	switch {
	case t.Type == gjson.String:
		return []string{t.Str}
	case t.IsArray():
		var out []string
		for _, x := range t.Array() {
			out = append(out, x.Str)
		}
		return out
	}
	return nil
}

// intersectTypes keeps the types of a allowed by b (integer is a number).
func intersectTypes(a, b []string) []string {
	var out []string
	for _, t := range a {
		for _, u := range b {
			switch {
			case t == u, t == "integer" && u == "number":
				out = append(out, t)
			case t == "number" && u == "integer":
				out = append(out, "integer")
			default:
				continue
			}
			break
		}
	}
	return out
}

// keywordType guesses the type of a schema without "type" from its keywords.
var keywordType = []struct {
	typ  string
	keys []string
}{
	{"object", []string{"properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties"}},
	{"array", []string{"items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"}},
	{"string", []string{"minLength", "maxLength", "pattern", "format"}},
	{"number", []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}},
}

// typ picks the JSON type to generate: the first non-null type every part
// allows.
func (v view) typ(p place) string {
	var allowed []string
	declared := false
	for _, part := range v.parts {
		ts := declaredTypes(part)
		if ts == nil {
			continue
		}
		if !declared {
			allowed, declared = ts, true
			continue
		}
		if both := intersectTypes(allowed, ts); len(both) > 0 {
			allowed = both
		}
	}
	for _, t := range allowed {
		if t != "null" {
			return t
		}
	}
	if declared && len(allowed) > 0 {
		return allowed[0]
	}
	for _, kt := range keywordType {
		for _, k := range kt.keys {
			if _, ok := v.first(k); ok {
				return kt.typ
			}
		}
	}
	if p.root {
		return "object"
	}
	return "string"
}

// value appends one instance of v.
func (g *generator) value(b []byte, v view, p place) []byte {
	if c, ok := v.first("const"); ok {
		return append(b, c.Raw...)
	}
	if e, ok := v.pickEnum(p.variant); ok {
		return append(b, e.Raw...)
	}
	switch v.typ(p) {
	case "object":
		return g.object(b, v, p)
	case "array":
		return g.array(b, v, p)
	case "string":
		return appendString(b, g.str(v, p))
	case "integer":
		return append(b, v.number(p, true)...)
	case "number":
		return append(b, v.number(p, false)...)
	case "boolean":
		return strconv.AppendBool(b, p.variant%2 == 0)
	default:
		return append(b, "null"...)
	}
}

// pickEnum picks the variant-th value of the first enum that every other
// enum of the view also lists.
func (v view) pickEnum(variant int) (gjson.Result, bool) {
	var lists [][]gjson.Result
	for _, part := range v.parts {
		if e := part.Get("enum"); e.IsArray() && len(e.Array()) > 0 {
			lists = append(lists, e.Array())
		}
	}
	if len(lists) == 0 {
		return gjson.Result{}, false
	}
	first := lists[0]
	others := make([]map[string]bool, len(lists)-1)
	for i, l := range lists[1:] {
		others[i] = make(map[string]bool, len(l))
		for _, y := range l {
			others[i][compactJSON(y.Raw)] = true
		}
	}
	for i := range first {
		cand := first[(variant+i)%len(first)]
		key := compactJSON(cand.Raw)
		inAll := true
		for _, set := range others {
			inAll = inAll && set[key]
		}
		if inAll {
			return cand, true
		}
	}
	return first[variant%len(first)], true
}

func compactJSON(raw string) string {
	var buf bytes.Buffer
	if json.Compact(&buf, []byte(raw)) != nil {
		return raw
	}
	return buf.String()
}

// appendString appends s as a JSON string without HTML escaping.
func appendString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
}

// compiledPattern compiles a JSON Schema pattern with Go's RE2 syntax;
// ECMA-only constructs (lookaround, backreferences) fail and are skipped.
func compiledPattern(p string) *regexp.Regexp {
	re, err := regexp.Compile(p)
	if err != nil {
		return nil
	}
	return re
}
