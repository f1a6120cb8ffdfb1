package schemas

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// openAPIDoc is the part of OpenAI's published OpenAPI document farebox is
// held to (see x-farebox-source in it for the commit, and
// scripts/refresh-openai-schemas.sh to refresh it).
//
//go:embed openai/openapi.json
var openAPIDoc []byte

// OpenAPIDocument returns the vendored document, unmodified.
func OpenAPIDocument() []byte { return openAPIDoc }

const openAIBase = "https://farebox.invalid/openai/openapi.json"

// openAI is the vendored document compiled with the deviations applied:
// the component schemas by name, and each stream event type's component.
type openAI struct {
	components map[string]*jsonschema.Schema
	events     map[string]string // event type -> component name
}

var compiledOpenAI = sync.OnceValues(func() (*openAI, error) { return compileOpenAI(openAPIDoc, Deviations) })

// compileOpenAI compiles doc (an OpenAPI 3.1 document, whose schemas are
// JSON Schema 2020-12) after applying devs. A deviation whose target is
// not in doc is an error: a stale deviation must not hide anything.
func compileOpenAI(raw []byte, devs []Deviation) (*openAI, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("schemas: openai: %w", err)
	}
	doc, _ := v.(map[string]any)
	all := componentSchemas(doc)
	if all == nil {
		return nil, fmt.Errorf("schemas: openai: no components.schemas")
	}
	for name, s := range all {
		all[name] = nullableToAnyOf(recursiveToRef(s, "#/components/schemas/"+name))
	}
	closeEmitted(all)
	for _, d := range devs {
		if d.Patch == nil {
			continue
		}
		if err := d.Patch(all); err != nil {
			return nil, fmt.Errorf("schemas: openai: deviation %s: %w", d.Name, err)
		}
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noRemote{})
	if err := c.AddResource(openAIBase, doc); err != nil {
		return nil, fmt.Errorf("schemas: openai: %w", err)
	}
	out := &openAI{components: map[string]*jsonschema.Schema{}, events: map[string]string{}}
	for name := range all {
		s, err := c.Compile(openAIBase + "#/components/schemas/" + name)
		if err != nil {
			return nil, fmt.Errorf("schemas: openai: %s: %w", name, err)
		}
		out.components[name] = s
	}
	union, _ := all["ResponseStreamEvent"].(map[string]any)
	for _, ref := range unionRefs(union) {
		if typ := constType(all[ref]); typ != "" {
			out.events[typ] = ref
		}
	}
	if len(out.events) == 0 {
		return nil, fmt.Errorf("schemas: openai: ResponseStreamEvent lists no event types")
	}
	return out, nil
}

// componentSchemas is doc's components.schemas.
func componentSchemas(doc map[string]any) map[string]any {
	comps, _ := doc["components"].(map[string]any)
	all, _ := comps["schemas"].(map[string]any)
	return all
}

// unionRefs lists the component names of a oneOf/anyOf union's members.
func unionRefs(union map[string]any) []string {
	var out []string
	for _, key := range []string{"oneOf", "anyOf"} {
		members, _ := union[key].([]any)
		for _, m := range members {
			mm, _ := m.(map[string]any)
			if ref, ok := mm["$ref"].(string); ok {
				out = append(out, strings.TrimPrefix(ref, "#/components/schemas/"))
			}
		}
	}
	return out
}

// constType is the single value a schema allows for "type" (the
// discriminator of the spec's unions), "" when there is none.
func constType(s any) string {
	m, _ := s.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	t, _ := props["type"].(map[string]any)
	if c, ok := t["const"].(string); ok {
		return c
	}
	if enum, _ := t["enum"].([]any); len(enum) == 1 {
		s, _ := enum[0].(string)
		return s
	}
	return ""
}

// ValidateOpenAI checks doc against the named component schema of OpenAI's
// spec ("Response", "ErrorResponse", "Model", ...), with the deviations
// applied.
func ValidateOpenAI(component string, doc []byte) error {
	v, err := decode(doc)
	if err != nil {
		return err
	}
	return validateOpenAI(component, v)
}

func validateOpenAI(component string, v any) error {
	o, err := compiledOpenAI()
	if err != nil {
		return err
	}
	s, ok := o.components[component]
	if !ok {
		return fmt.Errorf("schemas: openai: no component %q", component)
	}
	if err := s.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			pruneUnions(ve)
		}
		return fmt.Errorf("schemas: openai %s: %w", component, err)
	}
	return nil
}

// pruneUnions keeps, under each failed oneOf/anyOf, only the members whose
// discriminator ("type") matched the value: the spec's unions have dozens
// of members, and the reason a message item failed is in the message
// member, not in the thirty others whose type differs.
func pruneUnions(e *jsonschema.ValidationError) {
	for _, c := range e.Causes {
		pruneUnions(c)
	}
	pruneUnevaluated(e)
	switch e.ErrorKind.(type) {
	case *kind.OneOf, *kind.AnyOf:
	default:
		return
	}
	typ := append(append([]string(nil), e.InstanceLocation...), "type")
	var kept []*jsonschema.ValidationError
	for _, c := range e.Causes {
		if !typeMismatch(c, typ) {
			kept = append(kept, c)
		}
	}
	if len(kept) > 0 {
		e.Causes = kept
	}
}

// pruneUnevaluated drops the unevaluatedProperties failures beside a real
// one: a subschema that failed annotates none of its properties, so every
// property would be reported as unexpected too.
func pruneUnevaluated(e *jsonschema.ValidationError) {
	var real, extra []*jsonschema.ValidationError
	for _, c := range e.Causes {
		if _, ok := c.ErrorKind.(*kind.FalseSchema); ok {
			extra = append(extra, c)
		} else {
			real = append(real, c)
		}
	}
	if len(real) > 0 && len(extra) > 0 {
		e.Causes = real
	}
}

// typeMismatch reports whether e holds a const or enum failure at loc.
func typeMismatch(e *jsonschema.ValidationError, loc []string) bool {
	switch e.ErrorKind.(type) {
	case *kind.Const, *kind.Enum:
		if slices.Equal(e.InstanceLocation, loc) {
			return true
		}
	}
	for _, c := range e.Causes {
		if typeMismatch(c, loc) {
			return true
		}
	}
	return false
}

// ValidateOpenAIEvent checks one stream event's data against the member of
// OpenAI's ResponseStreamEvent union its "type" names; a type the spec does
// not list is an error.
func ValidateOpenAIEvent(data []byte) error {
	v, err := decode(data)
	if err != nil {
		return err
	}
	return validateOpenAIEvent(v)
}

func validateOpenAIEvent(v any) error {
	o, err := compiledOpenAI()
	if err != nil {
		return err
	}
	obj, _ := v.(map[string]any)
	typ, _ := obj["type"].(string)
	comp, ok := o.events[typ]
	if !ok {
		return fmt.Errorf("schemas: openai: %q is not a ResponseStreamEvent type", typ)
	}
	return validateOpenAI(comp, v)
}

// OpenAIEventComponent names the spec's component for a stream event type
// ("" when the spec has none).
func OpenAIEventComponent(typ string) string {
	o, err := compiledOpenAI()
	if err != nil {
		return ""
	}
	return o.events[typ]
}

// openAIComponentOf is the spec's component for one of farebox's own
// schema names, "" for those the spec has no counterpart of.
func openAIComponentOf(name string) string {
	switch name {
	case "response":
		return "Response"
	case "error_body", "x402.v1_payment_required":
		return "ErrorResponse" // the 402 body is an OpenAI error body too
	}
	return ""
}

// SourceCommit is the openai/openai-openapi commit the vendored document
// was cut from.
func SourceCommit() string {
	var head struct {
		Source struct {
			Commit string `json:"commit"`
		} `json:"x-farebox-source"`
	}
	_ = json.Unmarshal(openAPIDoc, &head)
	return head.Source.Commit
}

// recursiveToRef rewrites the draft 2019-09 recursion the spec uses in a
// few components ($recursiveAnchor: true at the top, $recursiveRef: "#"
// inside) into the plain $ref to the component it means, since the
// document's dialect, 2020-12, has no such keywords.
func recursiveToRef(v any, self string) any {
	switch t := v.(type) {
	case map[string]any:
		delete(t, "$recursiveAnchor")
		if r, ok := t["$recursiveRef"]; ok && r == "#" {
			delete(t, "$recursiveRef")
			t["$ref"] = self
		}
		for k, e := range t {
			t[k] = recursiveToRef(e, self)
		}
	case []any:
		for i, e := range t {
			t[i] = recursiveToRef(e, self)
		}
	}
	return v
}

// nullableToAnyOf rewrites OpenAPI 3.0's `nullable: true`, which a few
// components (Chat Completions' stream chunk among them) still use, into
// the anyOf with null it means: 2020-12 ignores the keyword, and would
// refuse the nulls the spec allows.
func nullableToAnyOf(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = nullableToAnyOf(e)
		}
		if n, ok := t["nullable"].(bool); ok {
			delete(t, "nullable")
			if n {
				return map[string]any{"anyOf": []any{t, map[string]any{"type": "null"}}}
			}
		}
	case []any:
		for i, e := range t {
			t[i] = nullableToAnyOf(e)
		}
	}
	return v
}

// emittedComponents are the objects farebox writes itself, besides the
// members of the ResponseStreamEvent and OutputItem unions.
var emittedComponents = []string{
	"Response", "ResponseUsage", "OutputTextContent", "SummaryTextContent",
	"ErrorResponse", "Error", "Model", "ListModelsResponse", "TokenCountsResource",
	"CreateChatCompletionResponse", "CreateChatCompletionStreamResponse",
}

// closeEmitted forbids, in every object farebox emits, the properties the
// spec does not define (unevaluatedProperties: false, which sees through
// allOf): the spec leaves its objects open, but an extra field is a
// deviation, and the suite admits only those the Deviations name.
func closeEmitted(all map[string]any) {
	names := append([]string(nil), emittedComponents...)
	for _, union := range []string{"ResponseStreamEvent", "OutputItem"} {
		u, _ := all[union].(map[string]any)
		names = append(names, unionRefs(u)...)
	}
	for _, n := range names {
		if s, ok := all[n].(map[string]any); ok {
			if _, set := s["unevaluatedProperties"]; !set {
				s["unevaluatedProperties"] = false
			}
		}
	}
}
