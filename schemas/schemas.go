// Package schemas holds the JSON Schemas (draft 2020-12) of everything
// farebox sends: the response object, every stream event, the error body
// and the x402 objects. They are written from the facts in docs/wire.md, embedded,
// and used by the tests of every package to validate what farebox emits.
// Beside them, openai/openapi.json is the vendored part of OpenAI's
// published OpenAPI document: what farebox emits validates against it too,
// but for the Deviations named in deviations.go.
//
// A schema's name is its file name without ".json": "response", an event
// type such as "response.output_text.delta", "error" (the stream event),
// "error_body", "x402.payment_required", "x402.v1_payment_required",
// "x402.settle_response".
package schemas

import (
	"bytes"
	"embed"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

//go:embed *.json
var files embed.FS

// base is the URI prefix of every schema's $id; schemas refer to each other
// relative to it, and nothing is ever fetched.
const base = "https://farebox.invalid/schemas/"

var compiled = sync.OnceValues(compile)

func compile() (map[string]*jsonschema.Schema, error) {
	entries, err := files.ReadDir(".")
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noRemote{})
	var names []string
	for _, ent := range entries {
		raw, err := files.ReadFile(ent.Name())
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("schemas: %s: %w", ent.Name(), err)
		}
		if err := c.AddResource(base+ent.Name(), doc); err != nil {
			return nil, fmt.Errorf("schemas: %s: %w", ent.Name(), err)
		}
		names = append(names, strings.TrimSuffix(ent.Name(), ".json"))
	}
	out := make(map[string]*jsonschema.Schema, len(names))
	for _, n := range names {
		if n == "defs" {
			continue
		}
		s, err := c.Compile(base + n + ".json")
		if err != nil {
			return nil, fmt.Errorf("schemas: %s: %w", n, err)
		}
		out[n] = s
	}
	return out, nil
}

// noRemote refuses to load anything not embedded: a typo in a $ref must
// fail, never reach the network.
type noRemote struct{}

func (noRemote) Load(url string) (any, error) {
	return nil, fmt.Errorf("schemas: %s is not an embedded schema", url)
}

// Names lists the schemas Validate knows, sorted.
func Names() []string {
	m, err := compiled()
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Validate checks doc (one JSON value) against the named schema and, for
// those OpenAI's spec defines ("response", "error_body", the 402 body),
// against the spec too (ValidateOpenAI).
func Validate(name string, doc []byte) error {
	v, err := decode(doc)
	if err != nil {
		return err
	}
	return validateValue(name, v)
}

// ValidateEvent checks one stream event's data against the schema of its
// "type" and against the spec's member of ResponseStreamEvent for that
// type; a type farebox does not emit is an error.
func ValidateEvent(data []byte) error {
	v, err := decode(data)
	if err != nil {
		return err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("schemas: an event must be a JSON object")
	}
	typ, ok := obj["type"].(string)
	if !ok {
		return fmt.Errorf(`schemas: event without a string "type"`)
	}
	if !strings.HasPrefix(typ, "response.") && typ != "error" {
		return fmt.Errorf("schemas: %q is not an event type farebox emits", typ)
	}
	if err := validateValue(typ, v); err != nil {
		return err
	}
	return validateOpenAIEvent(v)
}

func validateValue(name string, v any) error {
	m, err := compiled()
	if err != nil {
		return err
	}
	s, ok := m[name]
	if !ok {
		return fmt.Errorf("schemas: no schema named %q", name)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("schemas: %s: %w", name, err)
	}
	if comp := openAIComponentOf(name); comp != "" {
		return validateOpenAI(comp, v)
	}
	return nil
}

// decode parses exactly one JSON value, trailing data refused (numbers
// kept exact, so "integer" means integer).
func decode(doc []byte) (any, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("schemas: invalid JSON: %w", err)
	}
	return v, nil
}
