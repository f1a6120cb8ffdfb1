package responses

import "encoding/json"

// Request is one parsed and validated POST /v1/responses body. It is built
// by Parse from the raw JSON with gjson; it never borrows openai-go's param
// types (they silently drop untyped messages and lose tool_choice names).
type Request struct {
	Model        string
	Input        []Item
	Instructions *string // nil when absent or null

	// Tools holds the canonical, client-only tools after the deny-all
	// policy: every declared tool the client executes (the functions of a
	// namespace flattened, each naming its namespace), allowed fields only.
	Tools []Tool
	// DroppedTools lists the types of the provider-executed tools the
	// policy dropped (HostedDrop), in the client's order, each once.
	DroppedTools []string
	ToolChoice   ToolChoice
	// ParallelToolCalls defaults to true.
	ParallelToolCalls bool

	MaxOutputTokens  *int64
	MaxToolCalls     *int64
	Temperature      *float64
	TopP             *float64
	TopLogprobs      *int64
	PresencePenalty  *float64
	FrequencyPenalty *float64

	Stream       bool
	IncludeUsage bool // stream_options.include_obfuscation etc. are accepted and ignored
	Store        bool // always echoed as false: farebox stores nothing
	Metadata     []MetadataPair
	Text         json.RawMessage // the "text" object as sent ({format, verbosity}); nil = default
	Truncation   string          // "auto" | "disabled" (default "disabled")
	User         *string
	SafetyID     *string
	PromptCache  *string
	Include      []string
	Reasoning    json.RawMessage // the "reasoning" object as sent; nil = null
	ServiceTier  string          // as sent, default "default"
	// Provider is what the operator's provider account sees of the end
	// user, decided by the gateway: upstreams send it in place of the
	// client's own user, safety_identifier and prompt_cache_key, which
	// are only echoed back.
	Provider ProviderView
	// Passthrough holds the top-level fields of the real API that farebox
	// does not interpret (client_metadata, prompt, context_management, ...),
	// one line each, in the client's order: Responses upstreams get them,
	// others do not.
	Passthrough []Field
}

// ProviderView is how a call's end user appears to the operator's
// provider: each payer as its own user, never in the client's words.
type ProviderView struct {
	// SafetyID is sent as safety_identifier ("" = none): a keyed hash
	// standing for the payer, so the provider's abuse monitoring sees
	// each payer apart instead of blaming the operator's organisation.
	SafetyID string
	// CacheKey is sent as prompt_cache_key ("" = none): the client's key
	// namespaced per payer, so no payer shares another's prompt cache.
	CacheKey string
	// Moderation lets the client's moderation field through (the provider
	// runs a moderation model on the operator's bill): off unless the
	// operator allows it for the model.
	Moderation bool
}

// Field is one top-level JSON field, its value as sent (one line).
type Field struct {
	Key   string
	Value json.RawMessage
}

// IncludesEncryptedReasoning reports whether include asks for
// reasoning.encrypted_content, which a stateless client needs to send the
// model's reasoning back.
func (r *Request) IncludesEncryptedReasoning() bool {
	for _, s := range r.Include {
		if s == "reasoning.encrypted_content" {
			return true
		}
	}
	return false
}

// MetadataPair is one metadata entry; order is kept so the echo is stable.
type MetadataPair struct{ Key, Value string }

// ItemType names an input item kind farebox accepts.
type ItemType string

// The input item kinds a stateless gateway can take: messages, reasoning,
// and the calls of client-executed tools with their outputs.
const (
	ItemMessage            ItemType = "message"
	ItemFunctionCall       ItemType = "function_call"
	ItemFunctionCallOutput ItemType = "function_call_output"
	ItemReasoning          ItemType = "reasoning"
	ItemCustomCall         ItemType = "custom_tool_call"
	ItemCustomCallOutput   ItemType = "custom_tool_call_output"
	// ItemClientCall and ItemClientCallOutput are the calls of the built-in
	// client tools (local_shell_call, shell_call, apply_patch_call,
	// computer_call) and their outputs: kept whole in Raw, Wire naming the
	// type.
	ItemClientCall       ItemType = "client_call"
	ItemClientCallOutput ItemType = "client_call_output"
)

// Item is one input item.
type Item struct {
	Type ItemType
	ID   string // optional client-supplied id

	// message
	Role    string // user | assistant | system | developer
	Content []Part // a string content becomes one input_text (or output_text for assistant) part
	// ContentIsString records that content was sent as a plain string.
	ContentIsString bool

	// function_call, custom_tool_call and their outputs
	CallID    string
	Name      string // function_call, custom_tool_call
	Namespace string // function_call, custom_tool_call: the tool's namespace, "" = none
	Arguments string // function_call: the JSON string as sent; custom_tool_call: the input
	Status    string // optional

	// Wire is the item's type on the wire for ItemClientCall and
	// ItemClientCallOutput; Raw is the whole item as sent, one line.
	Wire string
	Raw  json.RawMessage

	// function_call_output: Output is the parts of an array output; a string
	// output is OutputText with OutputIsString set.
	Output         []Part
	OutputText     string
	OutputIsString bool

	// reasoning
	Summary          json.RawMessage
	EncryptedContent string
}

// Part is one content part of a message or a function_call_output.
type Part struct {
	Type     string // input_text | input_image | input_file | output_text | refusal
	Text     string // input_text, output_text; refusal text for refusal
	ImageURL string // input_image
	Detail   string // input_image
	FileURL  string // input_file
	FileData string // input_file
	Filename string // input_file
}

// ToolKind names who-executes-it classes of tools the client runs.
type ToolKind string

// The client-executed tool kinds. A namespace is not a kind: its functions
// are ToolFunction tools with Namespace set.
const (
	ToolFunction    ToolKind = "function"
	ToolCustom      ToolKind = "custom"
	ToolLocalShell  ToolKind = "local_shell"
	ToolShell       ToolKind = "shell"
	ToolApplyPatch  ToolKind = "apply_patch"
	ToolComputerUse ToolKind = "computer_use_preview"
)

// Tool is a canonical client-side tool: only these fields survive the
// deny-all policy, whatever else the client sent.
type Tool struct {
	// Kind is "" or ToolFunction for a function tool.
	Kind ToolKind
	// Namespace and NamespaceDesc name the namespace tool a function was
	// declared in ("" = top level).
	Namespace     string
	NamespaceDesc *string
	// Format is a custom tool's input format ({"type":"text"} or a
	// grammar), nil = free text.
	Format json.RawMessage
	// Config is a built-in client tool's declaration (local_shell, shell,
	// apply_patch, computer_use_preview) rebuilt from its known fields.
	Config json.RawMessage

	Name        string          // a built-in client tool's name is its type
	Description string          // "" when absent
	Parameters  json.RawMessage // a JSON Schema object; {"type":"object","properties":{}} when absent
	Strict      bool            // defaults to true in Responses
	HasDesc     bool            // description was present
}

// ToolChoiceMode is the resolved tool_choice.
type ToolChoiceMode string

// tool_choice modes.
const (
	ChoiceAuto     ToolChoiceMode = "auto"
	ChoiceNone     ToolChoiceMode = "none"
	ChoiceRequired ToolChoiceMode = "required"
	ChoiceFunction ToolChoiceMode = "function"      // one named function forced
	ChoiceAllowed  ToolChoiceMode = "allowed_tools" // a hard subset, with AllowedMode auto|required
)

// ToolChoice is tool_choice in every form clients send, resolved.
type ToolChoice struct {
	Mode        ToolChoiceMode
	Name        string         // ChoiceFunction: the forced tool
	Allowed     []string       // ChoiceAllowed: the permitted tool names
	AllowedMode ToolChoiceMode // ChoiceAllowed: auto | required
}

// Permits reports whether a call to the named tool may leave farebox under
// the declared tools and this tool_choice (the deny-all policy on the way out).
func (r *Request) Permits(name string) bool {
	if r.ToolChoice.Mode == ChoiceNone {
		return false
	}
	declared := false
	for i := range r.Tools {
		if r.Tools[i].Name == name {
			declared = true
			break
		}
	}
	if !declared {
		return false
	}
	switch r.ToolChoice.Mode {
	case ChoiceFunction:
		return name == r.ToolChoice.Name
	case ChoiceAllowed:
		for _, a := range r.ToolChoice.Allowed {
			if a == name {
				return true
			}
		}
		return false
	}
	return true
}
