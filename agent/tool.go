package agent

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Tool is a function the model may call; the client runs it (farebox never
// runs a tool). Parameters is its JSON Schema.
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any
	// Run executes one call with the model's arguments (a JSON object).
	Run func(ctx context.Context, arguments json.RawMessage) (Output, error)
	// Auto marks a tool that runs without asking Config.Approve.
	Auto bool
}

// Output is what a call returns to the model: text, and images for
// models that read them (sent as input_image parts).
type Output struct {
	Text   string
	Images []Image
}

// Image is one image of an Output, as bytes with their MIME type.
type Image struct {
	MIMEType string
	Data     []byte
}

// Text is an Output of plain text.
func Text(s string) Output { return Output{Text: s} }

// Func makes a Tool of a Go function whose argument is a struct: its JSON
// Schema is derived from In (field names from json tags, descriptions from
// jsonschema tags, omitempty fields optional) by github.com/google/jsonschema-go,
// the library the MCP Go SDK uses for the same job.
func Func[In any](name, description string, fn func(ctx context.Context, in In) (string, error)) (Tool, error) {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		return Tool{}, fmt.Errorf("agent: tool %s: %w", name, err)
	}
	params, err := schemaMap(schema)
	if err != nil {
		return Tool{}, fmt.Errorf("agent: tool %s: %w", name, err)
	}
	return Tool{Name: name, Description: description, Parameters: params,
		Run: func(ctx context.Context, args json.RawMessage) (Output, error) {
			var in In
			if len(args) > 0 {
				if err := json.Unmarshal(args, &in); err != nil {
					return Output{}, fmt.Errorf("invalid arguments: %w", err)
				}
			}
			s, err := fn(ctx, in)
			return Text(s), err
		}}, nil
}

// MustFunc is Func for package-level tool definitions: it panics when In
// has no JSON Schema.
func MustFunc[In any](name, description string, fn func(ctx context.Context, in In) (string, error)) Tool {
	t, err := Func(name, description, fn)
	if err != nil {
		panic(err)
	}
	return t
}

// schemaMap turns any JSON Schema value into the map the Responses tool
// definition carries.
func schemaMap(schema any) (map[string]any, error) {
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return map[string]any{"type": "object", "properties": map[string]any{}}, err
	}
	if m["type"] == nil {
		m["type"] = "object"
	}
	return m, nil
}

// outputJSON renders an Output as a function_call_output's `output`: a
// string, or input_text and input_image parts when there are images.
func outputJSON(o Output) any {
	if len(o.Images) == 0 {
		return o.Text
	}
	parts := make([]map[string]any, 0, 1+len(o.Images))
	if o.Text != "" {
		parts = append(parts, map[string]any{"type": "input_text", "text": o.Text})
	}
	for _, im := range o.Images {
		parts = append(parts, map[string]any{"type": "input_image", "detail": "auto",
			"image_url": "data:" + im.MIMEType + ";base64," + base64.StdEncoding.EncodeToString(im.Data)})
	}
	return parts
}
