package scripted

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// object appends an object with every declared property (only the required
// ones past fullDepth), in the order the schemas declare them.
func (g *generator) object(b []byte, v view, p place) []byte {
	if p.depth >= hardDepth {
		return append(b, "{}"...)
	}
	var names []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	required := map[string]bool{}
	for _, part := range v.parts {
		part.Get("properties").ForEach(func(k, _ gjson.Result) bool {
			add(k.Str)
			return true
		})
	}
	for _, part := range v.parts {
		for _, r := range part.Get("required").Array() {
			required[r.Str] = true
			add(r.Str)
		}
	}

	fill := p.depth < fullDepth
	type prop struct {
		name string
		v    view
	}
	var props []prop
	for _, n := range names {
		pv := g.propertyView(v, n)
		if !required[n] && (!fill || pv.never) {
			continue
		}
		props = append(props, prop{n, pv})
	}
	if lo, ok := v.maxInt("minProperties"); ok {
		lo = min(lo, maxArgumentBytes/8) // each member takes more than 8 bytes
		for i := 1; len(props) < int(lo) && i <= int(lo)+len(names); i++ {
			n := "key" + strconv.Itoa(i)
			if seen[n] {
				continue
			}
			pv := g.propertyView(v, n)
			if pv.never {
				break // additional properties are not allowed
			}
			props = append(props, prop{n, pv})
		}
	}
	if hi, ok := v.minInt("maxProperties"); ok {
		for i := len(props) - 1; i >= 0 && len(props) > int(hi); i-- {
			if !required[props[i].name] {
				props = append(props[:i], props[i+1:]...)
			}
		}
	}

	b = append(b, '{')
	for i, pr := range props {
		if g.exhausted(b) {
			break
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, pr.name)
		b = append(b, ':')
		b = g.value(b, pr.v, p.child(pr.name, 0))
	}
	return append(b, '}')
}

// propertyView gathers what every part says about property name: its
// properties entry, matching patternProperties, or else additionalProperties.
func (g *generator) propertyView(v view, name string) view {
	var schemas []gjson.Result
	for _, part := range v.parts {
		matched := false
		if s := field(part.Get("properties"), name); s.Exists() {
			schemas = append(schemas, s)
			matched = true
		}
		part.Get("patternProperties").ForEach(func(k, s gjson.Result) bool {
			if re := compiledPattern(k.Str); re != nil && re.MatchString(name) {
				schemas = append(schemas, s)
				matched = true
			}
			return true
		})
		if !matched {
			if ap := part.Get("additionalProperties"); ap.Exists() {
				schemas = append(schemas, ap)
			}
		}
	}
	return g.view(schemas...)
}

// array appends an array: at least one item (minItems if larger) down to
// fullDepth, then only minItems; distinct items when uniqueItems is set.
func (g *generator) array(b []byte, v view, p place) []byte {
	if p.depth >= hardDepth {
		return append(b, "[]"...)
	}
	var prefix []gjson.Result
	var rest []gjson.Result // schemas for items past the prefix
	restNever := false
	for _, part := range v.parts {
		items := part.Get("items")
		if pi := part.Get("prefixItems"); pi.IsArray() {
			if prefix == nil {
				prefix = pi.Array()
			}
		} else if items.IsArray() { // draft-7 tuple form
			if prefix == nil {
				prefix = items.Array()
			}
			items = part.Get("additionalItems")
		}
		switch {
		case items.Type == gjson.False:
			restNever = true
		case items.Exists():
			rest = append(rest, items)
		}
	}

	n := 0
	if lo, ok := v.maxInt("minItems"); ok {
		n = int(lo)
	}
	if p.depth < fullDepth {
		n = max(n, 1, len(prefix))
	}
	if restNever {
		n = min(n, len(prefix))
	}
	if hi, ok := v.minInt("maxItems"); ok {
		n = min(n, int(hi))
	}
	unique := false
	for _, part := range v.parts {
		unique = unique || part.Get("uniqueItems").Bool()
	}
	var contains []gjson.Result
	for _, part := range v.parts {
		if c := part.Get("contains"); c.Exists() {
			contains = append(contains, c)
		}
	}

	name := singular(p.name)
	b = append(b, '[')
	for i := 0; i < n && !g.exhausted(b); i++ {
		if i > 0 {
			b = append(b, ',')
		}
		var schemas []gjson.Result
		if i < len(prefix) {
			schemas = append(schemas, prefix[i])
		} else {
			schemas = append(schemas, rest...)
		}
		if i == 0 {
			schemas = append(schemas, contains...)
		}
		variant := 0
		if unique {
			variant = i
		}
		b = g.value(b, g.view(schemas...), p.child(name, variant))
	}
	return append(b, ']')
}

// maxInt is the largest value of an integer keyword among the parts.
func (v view) maxInt(key string) (int64, bool) {
	var out int64
	found := false
	for _, part := range v.parts {
		if r := part.Get(key); r.Type == gjson.Number {
			if !found || r.Int() > out {
				out = r.Int()
			}
			found = true
		}
	}
	return out, found
}

// minInt is the smallest value of an integer keyword among the parts.
func (v view) minInt(key string) (int64, bool) {
	var out int64
	found := false
	for _, part := range v.parts {
		if r := part.Get(key); r.Type == gjson.Number {
			if !found || r.Int() < out {
				out = r.Int()
			}
			found = true
		}
	}
	return out, found
}

// singular turns an array property's name into a name for its items, so
// "cities" items get city names.
func singular(name string) string {
	switch {
	case strings.HasSuffix(name, "ies"):
		return strings.TrimSuffix(name, "ies") + "y"
	case strings.HasSuffix(name, "ss"):
		return name
	case strings.HasSuffix(name, "s"):
		return strings.TrimSuffix(name, "s")
	}
	return name
}
