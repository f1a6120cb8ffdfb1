package gateway

import (
	"encoding/json"
)

// bazaarExtension is the key of x402's discovery extension: facilitators
// that catalogue resources read it from the 402 (and from the payment,
// which echoes it) and list the model in their discovery endpoint.
const bazaarExtension = "bazaar"

// discoveryExtension is the bazaar declaration of one priced model: a POST
// of a Responses request naming it, answered with a Responses object, with
// the JSON Schema that validates the declaration (x402 specs/extensions/
// bazaar.md, a body method).
func discoveryExtension(rt *route) map[string]json.RawMessage {
	info := map[string]any{
		"input": map[string]any{
			"type": "http", "method": "POST", "bodyType": "json",
			"body": map[string]any{"model": rt.name, "input": "Hello!"},
		},
		"output": map[string]any{
			"type": "json",
			"example": map[string]any{"object": "response", "model": rt.name, "status": "completed",
				"output": []any{map[string]any{"type": "message", "role": "assistant",
					"content": []any{map[string]any{"type": "output_text", "text": "Hello! How can I help?"}}}}},
		},
	}
	body := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"model":        map[string]any{"type": "string", "const": rt.name},
			"input":        map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "array"}}},
			"instructions": map[string]any{"type": "string"},
			"stream":       map[string]any{"type": "boolean"},
			"tools":        map[string]any{"type": "array"},
		},
		"required": []string{"model", "input"},
	}
	schema := map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type":    "object",
		"properties": map[string]any{
			"input": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"type":     map[string]any{"type": "string", "const": "http"},
					"method":   map[string]any{"type": "string", "enum": []string{"POST", "PUT", "PATCH"}},
					"bodyType": map[string]any{"type": "string", "enum": []string{"json", "form-data", "text"}},
					"body":     body,
				},
				"required":             []string{"type", "method", "bodyType", "body"},
				"additionalProperties": false,
			},
			"output": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"type":    map[string]any{"type": "string"},
					"example": map[string]any{"type": "object"},
				},
				"required": []string{"type"},
			},
		},
		"required": []string{"input"},
	}
	b, _ := json.Marshal(map[string]any{"info": info, "schema": schema})
	return map[string]json.RawMessage{bazaarExtension: b}
}
