package chat

// Class is what Decode does with a top-level field of
// CreateChatCompletionRequest.
type Class string

// The classes of a request field.
const (
	// Interpreted fields are read into the canonical request.
	Interpreted Class = "interpreted"
	// Forwarded fields are kept as the Responses field of the same name,
	// which Responses upstreams get (or the gateway replaces, as with
	// user and safety_identifier).
	Forwarded Class = "forwarded"
	// Refused fields answer a 400 when they ask for something farebox
	// cannot give (a default value passes).
	Refused Class = "refused"
	// Dropped fields are accepted and read by nobody.
	Dropped Class = "dropped"
	// Hosted fields ask the provider to run a tool: refused or dropped as
	// the tool policy says.
	Hosted Class = "hosted"
)

// Fields classifies every top-level field of the spec's
// CreateChatCompletionRequest; a test fails on a spec field missing here.
var Fields = map[string]Class{
	"model":                  Interpreted,
	"messages":               Interpreted, // items; system and developer messages stay messages of that role
	"tools":                  Interpreted, // function and custom; other types go through the tool policy
	"tool_choice":            Interpreted,
	"parallel_tool_calls":    Interpreted,
	"response_format":        Interpreted, // text.format
	"verbosity":              Interpreted, // text.verbosity
	"max_tokens":             Interpreted, // max_output_tokens
	"max_completion_tokens":  Interpreted, // max_output_tokens
	"reasoning_effort":       Interpreted, // reasoning.effort
	"temperature":            Interpreted,
	"top_p":                  Interpreted,
	"presence_penalty":       Interpreted,
	"frequency_penalty":      Interpreted,
	"stream":                 Interpreted,
	"stream_options":         Interpreted, // include_usage; include_obfuscation accepted
	"metadata":               Forwarded,
	"user":                   Forwarded,
	"safety_identifier":      Forwarded,
	"prompt_cache_key":       Forwarded,
	"prompt_cache_retention": Forwarded,
	"prompt_cache_options":   Forwarded,
	"service_tier":           Forwarded,
	"moderation":             Forwarded,
	"store":                  Dropped, // farebox stores nothing
	"seed":                   Dropped, // best effort even at OpenAI; no upstream of the canonical form takes it
	"prediction":             Dropped, // a latency hint: the answer is the same without it
	"n":                      Refused, // one choice per paid call
	"logprobs":               Refused, // the upstreams do not give them
	"top_logprobs":           Refused,
	"logit_bias":             Refused, // the canonical form cannot carry it
	"stop":                   Refused, // the canonical form has no stop sequences
	"audio":                  Refused, // text only
	"modalities":             Refused, // only ["text"] passes
	"functions":              Refused, // deprecated: send tools
	"function_call":          Refused, // deprecated: send tool_choice
	"web_search_options":     Hosted,  // the provider would search
}
