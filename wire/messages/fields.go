package messages

// Class is what Decode does with a top-level field of a Messages request.
type Class string

// The classes of a request field.
const (
	// Interpreted fields are read into the canonical request.
	Interpreted Class = "interpreted"
	// Refused fields answer a 400 when they ask for something farebox
	// cannot give (an empty value passes).
	Refused Class = "refused"
	// Dropped fields are accepted and read by nobody: hints about the
	// provider's own service (caching, routing, speed, diagnostics) or
	// state farebox does not keep.
	Dropped Class = "dropped"
	// Hosted fields ask the provider to run something (a code execution
	// container, MCP servers): refused or dropped as the tool policy says.
	Hosted Class = "hosted"
)

// Fields classifies every top-level field of Anthropic's
// MessageNewParams (a test walks the official SDK's type) and the ones
// clients send beyond it (stream, sampling, Claude Code's
// context_management).
var Fields = map[string]Class{
	"model":              Interpreted,
	"messages":           Interpreted,
	"max_tokens":         Interpreted, // max_output_tokens; required except for count_tokens
	"system":             Interpreted, // instructions
	"tools":              Interpreted,
	"tool_choice":        Interpreted,
	"thinking":           Interpreted, // reasoning, with encrypted content included
	"output_config":      Interpreted, // effort -> reasoning.effort, format -> text.format
	"stream":             Interpreted,
	"temperature":        Interpreted,
	"top_p":              Interpreted,
	"top_k":              Dropped, // the canonical form has no top_k
	"metadata":           Dropped, // user_id is never forwarded: the gateway names each payer to the provider
	"stop_sequences":     Refused, // the canonical form has no stop sequences
	"service_tier":       Dropped, // the operator's account decides the tier
	"speed":              Dropped, // a dearer mode the operator did not price
	"inference_geo":      Dropped,
	"cache_control":      Dropped, // prompt caching is the upstream's business
	"diagnostics":        Dropped,
	"context_management": Dropped, // server-side context edits: the client sends the whole conversation
	"container":          Hosted,  // a provider-run code execution container
	"mcp_servers":        Hosted,  // MCP servers the provider would call
}
