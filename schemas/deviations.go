package schemas

import (
	"fmt"
	"strings"
)

// Deviation is one deliberate difference between what farebox sends and
// OpenAI's published spec. Patch, when set, loosens the vendored spec just
// enough to admit it, and fails when its target is gone or already admits
// it, so a deviation the spec no longer needs is noticed; a deviation
// outside any JSON object (the SSE framing) has no patch and is checked
// where the stream is read.
type Deviation struct {
	Name   string
	Reason string
	Patch  func(components map[string]any) error
}

// DeviationDone is the deviation that allows "data: [DONE]" after a
// stream's terminal event.
const DeviationDone = "sse-done-sentinel"

// Deviations lists every deviation farebox makes; anything else that does
// not validate against the spec fails the conformance suite.
var Deviations = []Deviation{
	{Name: DeviationDone,
		Reason: "A stream ends with `data: [DONE]` after its terminal event, as the Open Responses spec requires; OpenAI sends nothing more, and every official SDK skips it."},
	{Name: "usage-null-before-completion",
		Reason: "The response object of response.created and response.in_progress carries `usage: null` (OpenAI's own streams do), where the spec allows only an object or no key; the Open Responses schema requires the key. Every terminal response carries the usage object.",
		Patch:  nullable("Response", "usage")},
	{Name: "user-null",
		Reason: "`user` is echoed as `null` when the request had none, as OpenAI's API does and the Open Responses schema requires, where the spec allows only a string.",
		Patch:  nullable("Response", "user")},
	{Name: "response-echo-keys",
		Reason: "The response object echoes `store` (always false), `presence_penalty` and `frequency_penalty`, as OpenAI's API does and the Open Responses schema requires; the spec's Response lists none of the three.",
		Patch: all(extra("Response", "store", map[string]any{"type": "boolean"}),
			extra("Response", "presence_penalty", map[string]any{"type": "number"}),
			extra("Response", "frequency_penalty", map[string]any{"type": "number"}))},
	{Name: "custom-tool-call-status",
		Reason: "A custom_tool_call item carries `status` (in_progress while its input streams, then completed or incomplete) like every other call item and like OpenAI's API; the spec's CustomToolCall lists no status.",
		Patch:  extra("CustomToolCall", "status", map[string]any{"type": "string", "enum": []any{"in_progress", "completed", "incomplete"}})},
	{Name: "x402-receipt",
		Reason: "The terminal response object of a paid call carries `x402`, the payment's settlement receipt (an x402 SettleResponse), so a client that reads the stream learns what it paid; an extra field on the response object is what every SDK tolerates (a new event type is not).",
		Patch:  extra("Response", "x402", map[string]any{"type": "object"})},
	{Name: "x402-receipt-chat",
		Reason: "On the Chat Completions wire, a paid call's chat.completion and the stream's finish chunk carry `x402`, the settlement receipt, for the same reason as the Responses object does.",
		Patch: all(extra("CreateChatCompletionResponse", "x402", map[string]any{"type": "object"}),
			extra("CreateChatCompletionStreamResponse", "x402", map[string]any{"type": "object"}))},
	{Name: "error-event-nested-error",
		Reason: "The `error` stream event carries, besides the spec's flat code/message/param, the same error as a nested `error` object: only that makes all three official SDKs raise.",
		Patch:  extra("ResponseErrorEvent", "error", map[string]any{"$ref": "#/components/schemas/Error"})},
	{Name: "x402-v1-body",
		Reason: "A 402's error body also carries the x402 v1 offer (`x402Version`, `accepts`), so v1 clients that read only the body can pay; the OpenAI `error` object stays beside it.",
		Patch: all(extra("ErrorResponse", "x402Version", map[string]any{"type": "integer"}),
			extra("ErrorResponse", "accepts", map[string]any{"type": "array"}))},
	{Name: "model-price",
		Reason: "Each model of GET /v1/models carries `price` (amount, currency, unit, and per-token rates), so a client learns what a call costs before it pays.",
		Patch:  extra("Model", "price", map[string]any{"type": "object"})},
	{Name: "input-tokens-quote",
		Reason: "POST /v1/responses/input_tokens answers with `x402`, farebox's quote for the request (per call: the price; per token: the input part and the ceiling), beside the spec's count, so an agent can decide before paying.",
		Patch:  extra("TokenCountsResource", "x402", map[string]any{"type": "object"})},
}

// all applies several patches in order.
func all(patches ...func(map[string]any) error) func(map[string]any) error {
	return func(c map[string]any) error {
		for _, p := range patches {
			if err := p(c); err != nil {
				return err
			}
		}
		return nil
	}
}

// extra admits a property the component does not define.
func extra(component, prop string, schema map[string]any) func(map[string]any) error {
	return func(c map[string]any) error {
		s, ok := c[component].(map[string]any)
		if !ok {
			return fmt.Errorf("no component %s", component)
		}
		if findProperty(c, s, prop) != nil {
			return fmt.Errorf("%s already defines %q", component, prop)
		}
		props, _ := s["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			s["properties"] = props
		}
		props[prop] = schema
		return nil
	}
}

// nullable admits null for a property the component defines.
func nullable(component, prop string) func(map[string]any) error {
	return func(c map[string]any) error {
		s, ok := c[component].(map[string]any)
		if !ok {
			return fmt.Errorf("no component %s", component)
		}
		props := findProperty(c, s, prop)
		if props == nil {
			return fmt.Errorf("%s has no property %q", component, prop)
		}
		if strings.Contains(fmt.Sprint(props[prop]), "type:null") {
			return fmt.Errorf("%s.%s already admits null", component, prop)
		}
		props[prop] = map[string]any{"anyOf": []any{props[prop], map[string]any{"type": "null"}}}
		return nil
	}
}

// findProperty returns the properties object that defines prop in s, its
// allOf members or the components they refer to; nil when none does.
func findProperty(c map[string]any, s map[string]any, prop string) map[string]any {
	if props, _ := s["properties"].(map[string]any); props != nil {
		if _, ok := props[prop]; ok {
			return props
		}
	}
	members, _ := s["allOf"].([]any)
	for _, m := range members {
		mm, _ := m.(map[string]any)
		if ref, ok := mm["$ref"].(string); ok {
			mm, _ = c[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
		}
		if p := findProperty(c, mm, prop); p != nil {
			return p
		}
	}
	return nil
}
