// Package requestcases holds malformed and unsupported Responses requests
// with the exact answer OpenAI's wording and farebox's rules give each, so
// the parser's unit test and the gateway's HTTP test check the same table.
package requestcases

import (
	"slices"
	"strings"
)

// Case is one refused request: its body and the 400 answer's param, code
// and (where docs/wire.md fixes the wording) message.
type Case struct {
	Name, Body, Param, Code string
	Msg                     string // "" = not checked
}

// maxDepth is the parser's nesting limit (responses.maxDepth).
const maxDepth = 256

// base builds a body from a valid minimal request plus extra top-level
// fields (a JSON fragment starting with a comma).
func base(extra string) string { return `{"model":"m","input":"hi"` + extra + `}` }

// in builds a body whose input is the given items.
func in(items string) string { return `{"model":"m","input":[` + items + `]}` }

const fnTools = `,"tools":[{"type":"function","name":"a"},{"type":"function","name":"b"}]`

// Malformed returns the table: at least 40 requests, each a 400
// invalid_request_error.
func Malformed() []Case {
	return slices.Concat(bodyCases(), fieldCases(), metadataCases(), textCases(), itemCases(), toolCases(), toolChoiceCases())
}

// longName is a key or name one character over the 64 allowed.
var longName = strings.Repeat("k", 65)

// bodyCases: the body itself: not JSON, too deep, not an object.
func bodyCases() []Case {
	return []Case{
		{"invalid json", `{"model":`, "", "invalid_json", ""},
		{"empty body", ``, "", "invalid_json", ""},
		{"trailing garbage", `{"model":"m","input":"x"} x`, "", "invalid_json", ""},
		{"nested too deep", `{"model":"m","input":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`, "", "invalid_json", ""},
		{"array body", `[{"model":"m"}]`, "", "invalid_type", "The request body must be a JSON object, but got an array instead."},
		{"string body", `"hi"`, "", "invalid_type", ""},
	}
}

// fieldCases: required, unknown and wrongly typed top-level fields, and what a stateless gateway refuses.
func fieldCases() []Case {
	return []Case{
		// Required, unknown and wrongly typed top-level fields.
		{"missing model", `{"input":"x"}`, "model", "missing_required_parameter", "Missing required parameter: 'model'."},
		{"null model", `{"model":null,"input":"x"}`, "model", "missing_required_parameter", ""},
		{"model not a string", `{"model":4,"input":"x"}`, "model", "invalid_type", "Invalid type for 'model': expected a string, but got an integer instead."},
		{"empty model", `{"model":"","input":"x"}`, "model", "empty_string", ""},
		{"missing input", `{"model":"m"}`, "input", "missing_required_parameter", "Missing required parameter: 'input'."},
		{"input a number", `{"model":"m","input":3}`, "input", "invalid_type", ""},
		{"a file by id", in(`{"role":"user","content":[{"type":"input_file","file_id":"file-1"}]}`), "input[0].content[0].file_id", "file_id_not_supported", ""},
		{"an image by id", in(`{"role":"user","content":[{"type":"input_image","file_id":"file-1"}]}`), "input[0].content[0].file_id", "file_id_not_supported", ""},
		{"a key twice", `{"model":"m","input":"x","tools":[{"type":"shell","environment":{"type":"local","type":"container_auto"}}]}`, "tools[0].environment.type", "duplicate_key", ""},
		{"empty input array", `{"model":"m","input":[]}`, "input", "empty_array", ""},
		{"unknown parameter", base(`,"n":2`), "n", "unknown_parameter", "Unknown parameter: 'n'."},
		{"chat max_tokens", base(`,"max_tokens":20`), "max_tokens", "unknown_parameter", "Unknown parameter: 'max_tokens'."},
		{"temperature a string", base(`,"temperature":"hot"`), "temperature", "invalid_type", "Invalid type for 'temperature': expected a decimal, but got a string instead."},
		{"temperature above 2", base(`,"temperature":2.5`), "temperature", "decimal_above_max_value", "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 2.5 instead."},
		{"top_p below 0", base(`,"top_p":-0.1`), "top_p", "decimal_below_min_value", ""},
		{"presence_penalty above 2", base(`,"presence_penalty":3`), "presence_penalty", "decimal_above_max_value", ""},
		{"frequency_penalty below -2", base(`,"frequency_penalty":-2.01`), "frequency_penalty", "decimal_below_min_value", ""},
		{"max_output_tokens below 16", base(`,"max_output_tokens":15`), "max_output_tokens", "integer_below_min_value", "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 15 instead."},
		{"max_output_tokens a decimal", base(`,"max_output_tokens":100.5`), "max_output_tokens", "invalid_type", ""},
		{"max_tool_calls zero", base(`,"max_tool_calls":0`), "max_tool_calls", "integer_below_min_value", ""},
		{"top_logprobs above 20", base(`,"top_logprobs":21`), "top_logprobs", "integer_above_max_value", ""},
		{"stream a string", base(`,"stream":"true"`), "stream", "invalid_type", "Invalid type for 'stream': expected a boolean, but got a string instead."},
		{"stream a number", base(`,"stream":1`), "stream", "invalid_type", ""},
		{"stream_options without stream", base(`,"stream_options":{"include_obfuscation":false}`), "stream_options", "invalid_value", ""},
		{"stream_options not an object", base(`,"stream":true,"stream_options":true`), "stream_options", "invalid_type", ""},
		{"store a string", base(`,"store":"no"`), "store", "invalid_type", ""},
		{"parallel_tool_calls a string", base(`,"parallel_tool_calls":"yes"`), "parallel_tool_calls", "invalid_type", ""},
		{"instructions an object", base(`,"instructions":{"a":1}`), "instructions", "invalid_type", ""},
		{"truncation bad", base(`,"truncation":"middle"`), "truncation", "invalid_value", "Invalid value: 'middle'. Supported values are: 'auto' and 'disabled'."},
		{"service_tier bad", base(`,"service_tier":"gold"`), "service_tier", "invalid_value", "Invalid value: 'gold'. Supported values are: 'auto', 'default', 'flex', 'scale', 'priority', 'fast', and 'ultrafast'."},
		{"include not strings", base(`,"include":["a",1]`), "include[1]", "invalid_type", ""},
		{"user a number", base(`,"user":1`), "user", "invalid_type", ""},
		{"reasoning a string", base(`,"reasoning":"high"`), "reasoning", "invalid_type", ""},
		{"reasoning effort a number", base(`,"reasoning":{"effort":1}`), "reasoning.effort", "invalid_type", ""},

		// Stateless refusals.
		{"previous_response_id", base(`,"previous_response_id":"resp_x"`), "previous_response_id", "previous_response_not_found", "Previous response with id 'resp_x' not found."},
		{"previous_response_id a number", base(`,"previous_response_id":5`), "previous_response_id", "invalid_type", ""},
		{"conversation id", base(`,"conversation":"conv_1"`), "conversation", "unsupported_parameter", ""},
		{"conversation object", base(`,"conversation":{"id":"conv_1"}`), "conversation", "unsupported_parameter", ""},
		{"background true", base(`,"background":true`), "background", "unsupported_value", ""},
	}
}

// metadataCases: metadata beyond its limits.
func metadataCases() []Case {
	var many strings.Builder
	for i := 0; i < 17; i++ {
		if i > 0 {
			many.WriteByte(',')
		}
		many.WriteString(`"k` + strings.Repeat("x", i) + `":"v"`)
	}
	return []Case{
		{"metadata not an object", base(`,"metadata":["a"]`), "metadata", "invalid_type", ""},
		{"metadata 17 pairs", base(`,"metadata":{` + many.String() + `}`), "metadata", "object_above_max_properties", "Invalid 'metadata': too many properties. Expected an object with at most 16 properties, but got an object with 17 properties instead."},
		{"metadata key too long", base(`,"metadata":{"` + longName + `":"v"}`), "metadata", "string_above_max_length", ""},
		{"metadata value too long", base(`,"metadata":{"k":"` + strings.Repeat("v", 513) + `"}`), "metadata.k", "string_above_max_length", "Invalid 'metadata.k': string too long. Expected a string with maximum length 512, but got a string with length 513 instead."},
		{"metadata value a number", base(`,"metadata":{"foo":1}`), "metadata.foo", "invalid_type", "Invalid type for 'metadata.foo': expected a string, but got an integer instead."},
	}
}

// textCases: text.format and verbosity.
func textCases() []Case {
	return []Case{
		{"text a string", base(`,"text":"json"`), "text", "invalid_type", ""},
		{"text format type bad", base(`,"text":{"format":{"type":"xml"}}`), "text.format.type", "invalid_value", ""},
		{"json_schema without name", base(`,"text":{"format":{"type":"json_schema","schema":{}}}`), "text.format.name", "missing_required_parameter", ""},
		{"json_schema without schema", base(`,"text":{"format":{"type":"json_schema","name":"n"}}`), "text.format.schema", "missing_required_parameter", ""},
		{"json_schema bad name", base(`,"text":{"format":{"type":"json_schema","name":"a b","schema":{}}}`), "text.format.name", "invalid_value", ""},
		{"verbosity bad", base(`,"text":{"verbosity":"loud"}`), "text.verbosity", "invalid_value", ""},
	}
}

// itemCases: input items, and call_id pairing in OpenAI's words.
func itemCases() []Case {
	return []Case{
		// Input items.
		{"item not an object", in(`"hi"`), "input[0]", "invalid_type", ""},
		{"item without type or role", in(`{"foo":1}`), "input[0].type", "missing_required_parameter", ""},
		{"item type a number", in(`{"type":1}`), "input[0].type", "invalid_type", ""},
		{"unknown item type", in(`{"role":"user","content":"a"},{"type":"telepathy"}`), "input[1].type", "invalid_value", ""},
		{"item_reference", in(`{"type":"item_reference","id":"msg_1"}`), "input[0].type", "unsupported_value", ""},
		{"web_search_call item", in(`{"type":"web_search_call","id":"ws_1","status":"completed"}`), "input[0].type", "unsupported_value", ""},
		{"mcp_list_tools item", in(`{"type":"mcp_list_tools"}`), "input[0].type", "unsupported_value", ""},
		{"message without role", in(`{"type":"message","content":"x"}`), "input[0].role", "missing_required_parameter", ""},
		{"bad role", in(`{"role":"tool","content":"x"}`), "input[0].role", "invalid_value", "Invalid value: 'tool'. Supported values are: 'user', 'assistant', 'system', and 'developer'."},
		{"message without content", in(`{"role":"user"}`), "input[0].content", "missing_required_parameter", ""},
		{"content a number", in(`{"role":"user","content":5}`), "input[0].content", "invalid_type", ""},
		{"part not an object", in(`{"role":"user","content":["x"]}`), "input[0].content[0]", "invalid_type", ""},
		{"part unknown type", in(`{"role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_audio"}]}`), "input[0].content[1].type", "invalid_value", ""},
		{"output_text in a user message", in(`{"role":"user","content":[{"type":"output_text","text":"a"}]}`), "input[0].content[0].type", "invalid_value", ""},
		{"input_text without text", in(`{"role":"user","content":[{"type":"input_text"}]}`), "input[0].content[0].text", "missing_required_parameter", ""},
		{"input_image without source", in(`{"role":"user","content":[{"type":"input_image","detail":"low"}]}`), "input[0].content[0]", "missing_required_parameter", ""},
		{"input_image bad detail", in(`{"role":"user","content":[{"type":"input_image","image_url":"https://x","detail":"max"}]}`), "input[0].content[0].detail", "invalid_value", ""},
		{"input_file without source", in(`{"role":"user","content":[{"type":"input_file","filename":"a"}]}`), "input[0].content[0]", "missing_required_parameter", ""},
		{"bad item status", in(`{"role":"assistant","content":"a","status":"done"}`), "input[0].status", "invalid_value", ""},
		{"function_call without call_id", in(`{"type":"function_call","name":"f","arguments":"{}"}`), "input[0].call_id", "missing_required_parameter", ""},
		{"function_call call_id a number", in(`{"role":"user","content":"a"},{"role":"user","content":"b"},{"role":"user","content":"c"},{"type":"function_call","call_id":7,"name":"f","arguments":"{}"}`), "input[3].call_id", "invalid_type", "Invalid type for 'input[3].call_id': expected a string, but got an integer instead."},
		{"function_call arguments an object", in(`{"type":"function_call","call_id":"c","name":"f","arguments":{"a":1}}`), "input[0].arguments", "invalid_type", ""},
		{"function_call without name", in(`{"type":"function_call","call_id":"c","arguments":"{}"}`), "input[0].name", "missing_required_parameter", ""},
		{"function_call_output without output", in(`{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c"}`), "input[1].output", "missing_required_parameter", ""},
		{"function_call_output output a number", in(`{"type":"function_call_output","call_id":"c","output":1}`), "input[0].output", "invalid_type", ""},
		{"function_call_output output_text part", in(`{"type":"function_call_output","call_id":"c","output":[{"type":"output_text","text":"a"}]}`), "input[0].output[0].type", "invalid_value", ""},
		{"custom_tool_call without output", in(`{"type":"custom_tool_call","call_id":"c","name":"x","input":"y"}`), "input", "", "No tool output found for function call c."},
		{"custom_tool_call input an object", in(`{"type":"custom_tool_call","call_id":"c","name":"x","input":{}}`), "input[0].input", "invalid_type", ""},
		{"computer_call_output without call", in(`{"role":"user","content":"a"},{"type":"computer_call_output","call_id":"c","output":{}}`), "input", "", "No tool call found for function call output with call_id c."},
		{"shell_call without call_id", in(`{"type":"shell_call","action":{"commands":["ls"]}}`), "input[0].call_id", "missing_required_parameter", ""},
		{"reasoning without summary", in(`{"type":"reasoning","id":"rs_1"}`), "input[0].summary", "missing_required_parameter", ""},

		// call_id pairing, in OpenAI's words.
		{"call without output", in(`{"role":"user","content":"a"},{"type":"function_call","call_id":"call_9","name":"f","arguments":"{}"}`), "input", "", "No tool output found for function call call_9."},
		{"output without call", in(`{"type":"function_call_output","call_id":"call_7","output":"x"}`), "input", "", "No tool call found for function call output with call_id call_7."},
		{"output before its call", in(`{"type":"function_call_output","call_id":"c","output":"x"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}`), "input", "", "No tool call found for function call output with call_id c."},
		{"duplicate call_id", in(`{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call","call_id":"c","name":"g","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"x"}`), "input[1].call_id", "invalid_value", ""},
		{"two outputs for one call", in(`{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"x"},{"type":"function_call_output","call_id":"c","output":"y"}`), "input[2].call_id", "invalid_value", ""},
	}
}

// toolCases: the deny-all tool policy.
func toolCases() []Case {
	return []Case{
		{"tools not an array", base(`,"tools":{"type":"function"}`), "tools", "invalid_type", ""},
		{"tool not an object", base(`,"tools":["f"]`), "tools[0]", "invalid_type", ""},
		{"tool without type", base(`,"tools":[{"name":"f"}]`), "tools[0].type", "missing_required_parameter", ""},
		{"unknown tool type", base(`,"tools":[{"type":"teleport"}]`), "tools[0].type", "invalid_value", "Invalid value: 'teleport'. Supported values are: 'function', 'namespace', 'custom', 'local_shell', 'shell', 'apply_patch', and 'computer_use_preview'."},
		{"namespace without tools", base(`,"tools":[{"type":"namespace","name":"ns"}]`), "tools[0].tools", "missing_required_parameter", ""},
		{"namespace function without name", base(`,"tools":[{"type":"namespace","name":"ns","tools":[{"type":"function"}]}]`), "tools[0].tools[0].name", "missing_required_parameter", ""},
		{"namespace duplicate function", base(`,"tools":[{"type":"function","name":"a"},{"type":"namespace","name":"ns","tools":[{"type":"function","name":"a"}]}]`), "tools[1].tools[0].name", "invalid_value", ""},
		{"custom tool without name", base(`,"tools":[{"type":"custom"}]`), "tools[0].name", "missing_required_parameter", ""},
		{"custom tool bad grammar syntax", base(`,"tools":[{"type":"custom","name":"g","format":{"type":"grammar","syntax":"ebnf","definition":"x"}}]`), "tools[0].format.syntax", "invalid_value", ""},
		{"tool_choice undeclared custom", base(fnTools + `,"tool_choice":{"type":"custom","name":"a"}`), "tool_choice.name", "invalid_value", ""},
		{"tool_choice undeclared shell", base(fnTools + `,"tool_choice":{"type":"shell"}`), "tool_choice.type", "invalid_value", ""},
		{"tool without name", base(`,"tools":[{"type":"function","parameters":{}}]`), "tools[0].name", "missing_required_parameter", ""},
		{"nested tool without name", base(`,"tools":[{"type":"function","function":{"parameters":{}}}]`), "tools[0].function.name", "missing_required_parameter", ""},
		{"nested function not an object", base(`,"tools":[{"type":"function","function":"f"}]`), "tools[0].function", "invalid_type", ""},
		{"tool name with a space", base(`,"tools":[{"type":"function","name":"get weather"}]`), "tools[0].name", "invalid_value", ""},
		{"tool name with a dot", base(`,"tools":[{"type":"function","function":{"name":"a.b"}}]`), "tools[0].function.name", "invalid_value", ""},
		{"tool name too long", base(`,"tools":[{"type":"function","name":"` + longName + `"}]`), "tools[0].name", "string_above_max_length", ""},
		{"duplicate tool names", base(`,"tools":[{"type":"function","name":"a"},{"type":"function","function":{"name":"a"}}]`), "tools[1].function.name", "invalid_value", ""},
		{"parameters an array", base(`,"tools":[{"type":"function","name":"a","parameters":[]}]`), "tools[0].parameters", "invalid_type", ""},
		{"strict a string", base(`,"tools":[{"type":"function","name":"a","strict":"yes"}]`), "tools[0].strict", "invalid_type", ""},
		{"description a number", base(`,"tools":[{"type":"function","name":"a","description":1}]`), "tools[0].description", "invalid_type", ""},
	}
}

// toolChoiceCases: tool_choice against the declared tools.
func toolChoiceCases() []Case {
	return []Case{
		{"tool_choice bad string", base(fnTools + `,"tool_choice":"any"`), "tool_choice", "invalid_value", ""},
		{"tool_choice a number", base(fnTools + `,"tool_choice":1`), "tool_choice", "invalid_type", ""},
		{"tool_choice required without tools", base(`,"tool_choice":"required"`), "tool_choice", "invalid_value", ""},
		{"tool_choice undeclared function", base(fnTools + `,"tool_choice":{"type":"function","name":"zz"}`), "tool_choice.name", "invalid_value", ""},
		{"tool_choice forced without tools", base(`,"tool_choice":{"type":"function","name":"a"}`), "tool_choice.name", "invalid_value", ""},
		{"tool_choice chat form undeclared", base(fnTools + `,"tool_choice":{"type":"function","function":{"name":"zz"}}`), "tool_choice.function.name", "invalid_value", ""},
		{"tool_choice function without name", base(fnTools + `,"tool_choice":{"type":"function"}`), "tool_choice.name", "missing_required_parameter", ""},
		{"tool_choice without type", base(fnTools + `,"tool_choice":{"name":"a"}`), "tool_choice.type", "missing_required_parameter", ""},
		{"tool_choice unknown type", base(fnTools + `,"tool_choice":{"type":"magic"}`), "tool_choice.type", "invalid_value", ""},
		{"allowed_tools undeclared", base(fnTools + `,"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"a"},{"type":"function","name":"zz"}]}`), "tool_choice.tools[1].name", "invalid_value", ""},
		{"allowed_tools chat form undeclared", base(fnTools + `,"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","function":{"name":"zz"}}]}`), "tool_choice.tools[0].function.name", "invalid_value", ""},
		{"allowed_tools bad mode", base(fnTools + `,"tool_choice":{"type":"allowed_tools","mode":"always","tools":[{"type":"function","name":"a"}]}`), "tool_choice.mode", "invalid_value", ""},
		{"allowed_tools empty", base(fnTools + `,"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[]}`), "tool_choice.tools", "empty_array", ""},
		{"allowed_tools missing", base(fnTools + `,"tool_choice":{"type":"allowed_tools","mode":"auto"}`), "tool_choice.tools", "missing_required_parameter", ""},
	}
}

// HostedRefused returns requests declaring provider-executed tools, each a
// 400 when the gateway's tools.hosted policy is refuse (under drop they
// pass without the tool).
func HostedRefused() []Case {
	return []Case{
		{"web_search tool", base(`,"tools":[{"type":"function","name":"a"},{"type":"web_search"}]`), "tools[1].type", "unsupported_value", ""},
		{"web_search_preview dated tool", base(`,"tools":[{"type":"web_search_preview_2025_03_11"}]`), "tools[0].type", "unsupported_value", ""},
		{"file_search tool", base(`,"tools":[{"type":"file_search","vector_store_ids":["vs_1"]}]`), "tools[0].type", "unsupported_value", ""},
		{"code_interpreter tool", base(`,"tools":[{"type":"code_interpreter","container":{"type":"auto"}}]`), "tools[0].type", "unsupported_value", ""},
		{"image_generation tool", base(`,"tools":[{"type":"image_generation"}]`), "tools[0].type", "unsupported_value", ""},
		{"mcp tool", base(`,"tools":[{"type":"mcp","server_label":"x","server_url":"https://x"}]`), "tools[0].type", "unsupported_value", ""},
		{"tool_choice hosted", base(fnTools + `,"tool_choice":{"type":"web_search_preview"}`), "tool_choice.type", "unsupported_value", ""},
		{"allowed_tools hosted", base(fnTools + `,"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[{"type":"file_search"}]}`), "tool_choice.tools[0].type", "unsupported_value", ""},
		{"shell in a hosted container", base(`,"tools":[{"type":"shell","environment":{"type":"container_auto"}}]`), "tools[0].type", "unsupported_value", ""},
	}
}
