package responses

// This file classifies every part of OpenAI's CreateResponse request that
// the published spec defines: each top-level field, each input item type
// and each tool type, by what farebox does with it and, for items and
// tools, by who executes them. A test walks the vendored spec
// (schemas/openai/openapi.json) and fails on anything missing here, so a
// field a refreshed spec adds is decided on, never passed through by
// accident.

// Handling is what farebox does with one part of a request.
type Handling string

const (
	// Interpreted: farebox reads it and acts on it (and echoes it, where
	// the response object has it).
	Interpreted Handling = "interpreted"
	// Forwarded: kind-checked and passed to Responses upstreams as sent.
	Forwarded Handling = "forwarded"
	// Refused: a 400 that says why farebox cannot honour it.
	Refused Handling = "refused"
	// Dropped: accepted and left out of what reaches any upstream.
	Dropped Handling = "dropped"
	// Policy: tools.hosted decides (refuse, or drop and say so in the
	// Farebox-Dropped-Tools header).
	Policy Handling = "refused or dropped (tools.hosted)"
)

// Executor is who runs a tool, or the call an input item records.
type Executor string

const (
	// Nobody: a field or an item that runs nothing.
	Nobody Executor = ""
	// Client: the client runs it; farebox passes its calls back.
	Client Executor = "client"
	// Provider: the model provider would run it, on the operator's account.
	Provider Executor = "provider"
)

// SpecClass is the classification of one part of the spec's request.
type SpecClass struct {
	Handling Handling
	Executor Executor
	Why      string
}

// RequestFieldClasses classifies the top-level fields of CreateResponse.
var RequestFieldClasses = map[string]SpecClass{
	"model":                  {Interpreted, Nobody, "picks the route and its price"},
	"input":                  {Interpreted, Nobody, "the whole conversation, every turn"},
	"instructions":           {Interpreted, Nobody, "a system message"},
	"tools":                  {Interpreted, Nobody, "client tools pass; provider tools follow tools.hosted"},
	"tool_choice":            {Interpreted, Nobody, "enforced on the way out"},
	"parallel_tool_calls":    {Interpreted, Nobody, "enforced on the way out"},
	"max_output_tokens":      {Interpreted, Nobody, "a per-token price may lower it to fit the ceiling"},
	"max_tool_calls":         {Interpreted, Nobody, "enforced on the way out"},
	"top_logprobs":           {Interpreted, Nobody, "passed to the upstream and echoed"},
	"temperature":            {Interpreted, Nobody, "passed to the upstream and echoed"},
	"top_p":                  {Interpreted, Nobody, "passed to the upstream and echoed"},
	"stream":                 {Interpreted, Nobody, "SSE or one JSON object"},
	"stream_options":         {Interpreted, Nobody, "include_usage read; only with stream"},
	"store":                  {Dropped, Nobody, "accepted, never honoured: farebox stores nothing (echoed false)"},
	"previous_response_id":   {Refused, Nobody, "needs server state; " + statelessHint},
	"conversation":           {Refused, Nobody, "needs server state; " + statelessHint},
	"background":             {Refused, Nobody, "needs server state; " + statelessHint},
	"metadata":               {Interpreted, Nobody, "checked (16 pairs) and echoed"},
	"text":                   {Interpreted, Nobody, "format and verbosity, passed on and echoed"},
	"reasoning":              {Interpreted, Nobody, "passed on and echoed"},
	"truncation":             {Interpreted, Nobody, "passed on and echoed"},
	"service_tier":           {Interpreted, Nobody, "only tiers that cost the operator no more than the default reach an upstream"},
	"user":                   {Interpreted, Nobody, "echoed"},
	"safety_identifier":      {Interpreted, Nobody, "echoed; the provider sees each payer as its own end user"},
	"prompt_cache_key":       {Interpreted, Nobody, "passed on and echoed"},
	"prompt_cache_retention": {Forwarded, Nobody, "a caching hint for Responses upstreams"},
	"prompt_cache_options":   {Forwarded, Nobody, "a caching hint for Responses upstreams"},
	"include":                {Interpreted, Nobody, "reasoning.encrypted_content decides whether reasoning leaves encrypted"},
	"moderation":             {Forwarded, Nobody, "passed to Responses upstreams"},
	"prompt":                 {Dropped, Provider, "a stored prompt lives on the operator's account and may carry the operator's tools"},
	"context_management":     {Dropped, Provider, "server-side compaction, whose items farebox does not pass on"},
}

// InputItemClasses classifies the input item types of the spec's
// InputItem union ("item_reference" for the reference, whose type may be
// absent).
var InputItemClasses = map[string]SpecClass{
	"message":                 {Interpreted, Nobody, "roles user, assistant, system, developer"},
	"function_call":           {Interpreted, Client, "a call the client ran, paired by call_id"},
	"function_call_output":    {Interpreted, Client, "its output"},
	"custom_tool_call":        {Interpreted, Client, "a custom tool call the client ran"},
	"custom_tool_call_output": {Interpreted, Client, "its output"},
	"local_shell_call":        {Forwarded, Client, "kept whole for Responses upstreams"},
	"local_shell_call_output": {Forwarded, Client, "paired by the call's id"},
	"shell_call":              {Forwarded, Client, "kept whole for Responses upstreams"},
	"shell_call_output":       {Forwarded, Client, "paired by call_id"},
	"apply_patch_call":        {Forwarded, Client, "kept whole for Responses upstreams"},
	"apply_patch_call_output": {Forwarded, Client, "paired by call_id"},
	"computer_call":           {Forwarded, Client, "kept whole for Responses upstreams"},
	"computer_call_output":    {Forwarded, Client, "paired by call_id"},
	"reasoning":               {Interpreted, Nobody, "sent back with encrypted_content for stateless reasoning"},
	"item_reference":          {Refused, Nobody, "farebox keeps no items to refer to"},
	"file_search_call":        {Refused, Provider, "the item of a provider-executed tool"},
	"web_search_call":         {Refused, Provider, "the item of a provider-executed tool"},
	"image_generation_call":   {Refused, Provider, "the item of a provider-executed tool"},
	"code_interpreter_call":   {Refused, Provider, "the item of a provider-executed tool"},
	"tool_search_call":        {Refused, Provider, "the item of a provider-executed tool"},
	"tool_search_output":      {Refused, Provider, "the output of a provider-executed tool"},
	"mcp_list_tools":          {Refused, Provider, "the item of a provider-executed tool"},
	"mcp_approval_request":    {Refused, Provider, "the item of a provider-executed tool"},
	"mcp_approval_response":   {Refused, Provider, "the item of a provider-executed tool"},
	"mcp_call":                {Refused, Provider, "the item of a provider-executed tool"},
	"additional_tools":        {Refused, Provider, "tools loaded by the provider's tool search"},
	"compaction":              {Refused, Provider, "server-side compaction state"},
	"compaction_trigger":      {Refused, Provider, "asks the provider to compact"},
	"program":                 {Refused, Provider, "programmatic tool calling runs on the provider"},
	"program_output":          {Refused, Provider, "programmatic tool calling runs on the provider"},
}

// ToolClasses classifies the tool types of the spec's Tool union.
var ToolClasses = map[string]SpecClass{
	"function":                      {Interpreted, Client, "a client-only function"},
	"namespace":                     {Interpreted, Client, "flattened into its functions, each naming the namespace"},
	"custom":                        {Interpreted, Client, "free-text input, optionally a grammar"},
	"local_shell":                   {Interpreted, Client, "a built-in the client runs"},
	"shell":                         {Interpreted, Client, "local environment; a hosted container follows tools.hosted"},
	"apply_patch":                   {Interpreted, Client, "a built-in the client runs"},
	"computer_use_preview":          {Interpreted, Client, "a built-in the client runs"},
	"computer":                      {Interpreted, Client, "a built-in the client runs"},
	"web_search":                    {Policy, Provider, "runs on the operator's account"},
	"web_search_2025_08_26":         {Policy, Provider, "runs on the operator's account"},
	"web_search_preview":            {Policy, Provider, "runs on the operator's account"},
	"web_search_preview_2025_03_11": {Policy, Provider, "runs on the operator's account"},
	"file_search":                   {Policy, Provider, "runs on the operator's account"},
	"code_interpreter":              {Policy, Provider, "runs on the operator's account"},
	"image_generation":              {Policy, Provider, "runs on the operator's account"},
	"mcp":                           {Policy, Provider, "the provider would call the MCP server"},
	"tool_search":                   {Policy, Provider, "runs on the operator's account"},
	"programmatic_tool_calling":     {Refused, Provider, "the provider would run the client's tools from its own code"},
}
