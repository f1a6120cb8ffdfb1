package responses

// The prefixes of a reasoning item's encrypted_content that say which
// provider's block it carries, shared by the Anthropic upstream (which
// sends such blocks back byte for byte) and the Messages wire (which shows
// them to Anthropic clients): a thinking block's signature, a
// redacted_thinking block's data, and, on the Messages wire, a Responses
// upstream's own encrypted reasoning shown as a thinking signature.
const (
	AnthropicThinkingPrefix  = "anthropic.thinking:"
	AnthropicRedactedPrefix  = "anthropic.redacted:"
	ResponsesReasoningPrefix = "farebox.responses:"
	GeminiThoughtPrefix      = "gemini.thought:"
)
