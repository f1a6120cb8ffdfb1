// Package yamlkeys refuses unknown keys in a YAML tree decoded from a node,
// as yaml.v3's Decoder.KnownFields does for a whole document: a node's
// Decode forgets that setting, and a type that takes some of its keys on
// behalf of another (a model and its upstream kind's keys) decodes from
// nodes.
package yamlkeys

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

// Fields is the set of YAML keys a struct type takes, inlined structs'
// included; t may be a pointer to the struct.
func Fields(t reflect.Type) map[string]reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	out := map[string]reflect.Type{}
	if t.Kind() != reflect.Struct {
		return out
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			for k, v := range Fields(f.Type) {
				out[k] = v
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

// Unknown lists, in yaml.v3's words, every key under n (at any depth)
// that t has no field for; owner names t in the messages about n's own
// keys ("" = t's name). A type that decodes itself (yaml.Unmarshaler) is
// left to check its own keys.
func Unknown(n *yaml.Node, t reflect.Type, owner string) []string {
	w := walk{budget: maxNodes}
	return w.unknown(n, t, owner)
}

// maxNodes bounds the nodes one check visits: aliases can make a small
// document a huge tree, which yaml.v3's decoder refuses on its own.
const maxNodes = 1 << 16

type walk struct{ budget int }

func (w *walk) unknown(n *yaml.Node, t reflect.Type, owner string) []string {
	if w.budget--; w.budget < 0 {
		return nil
	}
	n = resolve(n)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n == nil || reflect.PointerTo(t).Implements(unmarshaler) || t.Implements(unmarshaler) {
		return nil
	}
	switch {
	case n.Kind == yaml.SequenceNode && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		var out []string
		for _, c := range n.Content {
			out = append(out, w.unknown(c, t.Elem(), "")...)
		}
		return out
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Map:
		var out []string
		for i := 1; i < len(n.Content); i += 2 {
			out = append(out, w.unknown(n.Content[i], t.Elem(), "")...)
		}
		return out
	case n.Kind == yaml.MappingNode && t.Kind() == reflect.Struct:
		return w.inStruct(n, t, owner)
	}
	return nil
}

func (w *walk) inStruct(n *yaml.Node, t reflect.Type, owner string) []string {
	if owner == "" {
		owner = t.String()
	}
	fields := Fields(t)
	var out []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Value == "<<" {
			out = append(out, w.merged(v, t, owner)...)
			continue
		}
		ft, ok := fields[k.Value]
		if !ok {
			out = append(out, fmt.Sprintf("line %d: field %s not found in type %s", k.Line, k.Value, owner))
			continue
		}
		out = append(out, w.unknown(v, ft, "")...)
	}
	return out
}

// mergeUnknown checks the mappings a merge key ("<<") brings in.
func (w *walk) merged(v *yaml.Node, t reflect.Type, owner string) []string {
	v = resolve(v)
	if v == nil {
		return nil
	}
	if v.Kind == yaml.SequenceNode {
		var out []string
		for _, c := range v.Content {
			out = append(out, w.unknown(c, t, owner)...)
		}
		return out
	}
	return w.unknown(v, t, owner)
}

func resolve(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth < 64; depth++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.AliasNode {
		return nil
	}
	return n
}

// Split parts a mapping's keys in two: those own takes (merge keys
// included) and the rest, each as a mapping node of its own.
func Split(n *yaml.Node, own map[string]reflect.Type) (mine, rest *yaml.Node) {
	mine = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
	rest = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
	for i := 0; i+1 < len(n.Content); i += 2 {
		dst := rest
		if _, ok := own[n.Content[i].Value]; ok || n.Content[i].Value == "<<" {
			dst = mine
		}
		dst.Content = append(dst.Content, n.Content[i], n.Content[i+1])
	}
	return mine, rest
}

// Merged is the mapping n with its merge keys ("<<: *anchor") expanded in
// their place, the mapping's own keys winning over merged ones and an
// earlier merged mapping over a later one, as yaml.v3 decodes them: so
// keys brought in by a merge are split by owner like the others.
func Merged(n *yaml.Node) *yaml.Node { return merged(n, 0) }

func merged(n *yaml.Node, depth int) *yaml.Node {
	if n.Kind != yaml.MappingNode || depth > 16 || !hasMerge(n) {
		return n
	}
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column}
	seen := map[string]bool{}
	add := func(m *yaml.Node) {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if k := m.Content[i]; !isMerge(k) && !seen[k.Value] {
				seen[k.Value] = true
				out.Content = append(out.Content, k, m.Content[i+1])
			}
		}
	}
	add(n)
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !isMerge(n.Content[i]) {
			continue
		}
		v := resolve(n.Content[i+1])
		if v == nil {
			continue
		}
		if v.Kind == yaml.SequenceNode {
			for _, c := range v.Content {
				if c = resolve(c); c != nil {
					add(merged(c, depth+1))
				}
			}
			continue
		}
		add(merged(v, depth+1))
	}
	return out
}

func hasMerge(n *yaml.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if isMerge(n.Content[i]) {
			return true
		}
	}
	return false
}

func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && (k.Tag == "" || k.Tag == "!" || k.ShortTag() == "!!merge")
}
