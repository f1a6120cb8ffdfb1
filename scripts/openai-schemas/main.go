// Command openai-schemas cuts the part farebox is checked against out of
// OpenAI's published OpenAPI document (openai/openai-openapi, openapi.json):
// the Responses and Models paths and every component schema they, and the
// roots listed below, reach through $ref. scripts/refresh-openai-schemas.sh
// runs it; the output is schemas/openai/openapi.json.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
)

// roots are the components farebox emits or reads, besides those the kept
// paths refer to.
var roots = []string{
	"Response", "ResponseStreamEvent", "ErrorResponse", "Error", "Model", "ListModelsResponse",
	"CreateResponse", "InputItem", "Item", "Tool", "ResponseErrorCode", "ResponseUsage",
	"TokenCountsBody", "TokenCountsResource",
	// Chat Completions, the second client wire (package wire/chat).
	"CreateChatCompletionRequest", "CreateChatCompletionResponse", "CreateChatCompletionStreamResponse",
}

// keptPath reports whether a path of the document is one farebox answers.
func keptPath(p string) bool {
	if strings.Contains(p, "?") {
		return false // the ?beta=true duplicates
	}
	return p == "/responses" || strings.HasPrefix(p, "/responses/") || p == "/models" || strings.HasPrefix(p, "/models/")
}

const refPrefix = "#/components/schemas/"

func main() {
	in := flag.String("in", "", "the full openapi.json")
	out := flag.String("out", "schemas/openai/openapi.json", "where the cut goes")
	commit := flag.String("commit", "", "the openai/openai-openapi commit the document comes from")
	flag.Parse()
	if *in == "" || *commit == "" {
		fmt.Fprintln(os.Stderr, "usage: openai-schemas -in openapi.json -commit SHA [-out FILE]")
		os.Exit(2)
	}
	if err := run(*in, *out, *commit); err != nil {
		fmt.Fprintln(os.Stderr, "openai-schemas:", err)
		os.Exit(1)
	}
}

func run(in, out, commit string) error {
	raw, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers kept as written
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return err
	}
	components, _ := doc["components"].(map[string]any)
	all, _ := components["schemas"].(map[string]any)
	if all == nil {
		return fmt.Errorf("%s has no components.schemas", in)
	}
	paths := map[string]any{}
	allPaths, _ := doc["paths"].(map[string]any)
	var todo []string
	for p, v := range allPaths {
		if keptPath(p) {
			v = strip(v)
			paths[p] = v
			todo = append(todo, refs(v)...)
		}
	}
	todo = append(todo, roots...)
	kept := map[string]any{}
	for len(todo) > 0 {
		name := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if _, done := kept[name]; done {
			continue
		}
		s, ok := all[name]
		if !ok {
			return fmt.Errorf("components.schemas.%s is referred to but missing", name)
		}
		s = strip(s)
		kept[name] = s
		todo = append(todo, refs(s)...)
	}
	cut := map[string]any{
		"openapi": doc["openapi"],
		"info":    doc["info"],
		"x-farebox-source": map[string]any{
			"repository": "https://github.com/openai/openai-openapi",
			"commit":     commit,
			"path":       "openapi.json",
			"note":       "Cut by scripts/refresh-openai-schemas.sh: the /responses and /models paths and the component schemas they and farebox's roots reach; x-oaiMeta (examples for the API reference) removed.",
		},
		"paths":      paths,
		"components": map[string]any{"schemas": kept},
	}
	b, err := json.MarshalIndent(cut, "", " ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	fmt.Fprintf(os.Stderr, "openai-schemas: %d paths, %d of %d schemas, %d bytes\n", len(paths), len(kept), len(all), len(b))
	return os.WriteFile(out, b, 0o644)
}

// strip drops x-oaiMeta (the API reference's examples) at every depth.
func strip(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			if k != "x-oaiMeta" {
				m[k] = strip(e)
			}
		}
		return m
	case []any:
		l := make([]any, len(t))
		for i, e := range t {
			l[i] = strip(e)
		}
		return l
	}
	return v
}

// refs lists the component schemas v refers to, sorted.
func refs(v any) []string {
	set := map[string]bool{}
	var walk func(any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			if r, ok := t["$ref"].(string); ok && strings.HasPrefix(r, refPrefix) {
				set[strings.TrimPrefix(r, refPrefix)] = true
			}
			for _, e := range t {
				walk(e)
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(v)
	out := make([]string, 0, len(set))
	for r := range set {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}
