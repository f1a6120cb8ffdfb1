package schemas

import (
	"strings"
	"testing"
)

// wireResponse is the response object of docs/wire.md §2, as OpenAI sends it.
const wireResponse = `{"id":"resp_1","object":"response","created_at":1749761642,"completed_at":1749761644,
 "status":"completed","error":null,"incomplete_details":null,"model":"m","instructions":null,
 "previous_response_id":null,"output":[
   {"type":"message","id":"msg_1","status":"completed","role":"assistant",
    "content":[{"type":"output_text","text":"...","annotations":[],"logprobs":[]}]},
   {"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather",
    "arguments":"{\"city\":\"Paris\"}","status":"completed"}],
 "tools":[{"type":"function","name":"get_weather","description":null,"parameters":{"type":"object"},"strict":true}],
 "tool_choice":"auto","parallel_tool_calls":true,"truncation":"disabled",
 "text":{"format":{"type":"text"}},"reasoning":null,"temperature":1,"top_p":1,
 "presence_penalty":0,"frequency_penalty":0,"top_logprobs":0,"max_output_tokens":null,
 "max_tool_calls":null,"store":false,"background":false,"service_tier":"default","metadata":{},
 "user":null,"safety_identifier":null,"prompt_cache_key":null,
 "usage":{"input_tokens":92,"input_tokens_details":{"cached_tokens":0,"cache_write_tokens":0},"output_tokens":52,
          "output_tokens_details":{"reasoning_tokens":0},"total_tokens":144}}`

const (
	addr  = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
	txh   = "0x" + "ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12ab12"
	v2req = `{"scheme":"exact","network":"eip155:84532","amount":"1000","asset":"` + addr + `","payTo":"` + addr + `","maxTimeoutSeconds":60,"extra":{"name":"USDC","version":"2"}}`
	v1req = `{"scheme":"exact","network":"base-sepolia","maxAmountRequired":"1000","resource":"http://127.0.0.1:8402/v1/responses","description":"","mimeType":"application/json","payTo":"` + addr + `","maxTimeoutSeconds":60,"asset":"` + addr + `","extra":{"name":"USDC","version":"2"}}`
	oaErr = `{"message":"Payment required.","type":"invalid_request_error","param":null,"code":"payment_required"}`
)

func TestValidateAcceptsWireFacts(t *testing.T) {
	tests := []struct{ name, schema, doc string }{
		{"docs/wire.md §2 response", "response", wireResponse},
		{"response with x402 extra field", "response", strings.Replace(wireResponse, `"usage":`, `"x402":{"success":true},"usage":`, 1)},
		{"created", "response.created", `{"type":"response.created","sequence_number":0,"response":` + inProgress() + `}`},
		{"item added (call)", "response.output_item.added", `{"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_A","name":"search","arguments":"","status":"in_progress"}}`},
		{"item added (message)", "response.output_item.added", `{"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}}`},
		{"part added", "response.content_part.added", `{"type":"response.content_part.added","sequence_number":3,"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[],"logprobs":[]}}`},
		{"text delta", "response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[]}`},
		{"args delta", "response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","sequence_number":4,"item_id":"fc_1","output_index":1,"delta":"{"}`},
		{"args done", "response.function_call_arguments.done", `{"type":"response.function_call_arguments.done","sequence_number":5,"item_id":"fc_1","output_index":1,"name":"search","arguments":"{}"}`},
		{"error event", "error", `{"type":"error","sequence_number":9,"code":"server_error","message":"boom","param":null,"error":{"type":"server_error","code":"server_error","message":"boom","param":null}}`},
		{"error body", "error_body", `{"error":` + oaErr + `}`},
		{"402 body", "x402.v1_payment_required", `{"x402Version":1,"accepts":[` + v1req + `],"error":` + oaErr + `}`},
		{"v2 PaymentRequired", "x402.payment_required", `{"x402Version":2,"resource":{"url":"http://127.0.0.1:8402/v1/responses"},"accepts":[` + v2req + `]}`},
		{"receipt", "x402.settle_response", `{"success":true,"payer":"` + addr + `","transaction":"` + txh + `","network":"eip155:84532"}`},
		{"failed receipt", "x402.settle_response", `{"success":false,"errorReason":"insufficient_funds","payer":"` + addr + `","transaction":"","network":"base-sepolia"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Validate(tt.schema, []byte(tt.doc)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func inProgress() string {
	s := strings.Replace(wireResponse, `"status":"completed","error"`, `"status":"in_progress","error"`, 1)
	s = strings.Replace(s, `"completed_at":1749761644`, `"completed_at":null`, 1)
	return s
}

func TestValidateRefusesWhatBreaksClients(t *testing.T) {
	tests := []struct{ name, schema, doc string }{
		{"response without usage details", "response", strings.Replace(wireResponse, `"input_tokens_details":{"cached_tokens":0,"cache_write_tokens":0},`, ``, 1)},
		{"response without top_logprobs", "response", strings.Replace(wireResponse, `"top_logprobs":0,`, ``, 1)},
		{"output_text without logprobs", "response", strings.Replace(wireResponse, `"annotations":[],"logprobs":[]`, `"annotations":[]`, 1)},
		{"message id without msg_", "response", strings.Replace(wireResponse, `"msg_1"`, `"m1"`, 1)},
		{"hosted tool item in output", "response", strings.Replace(wireResponse, `"type":"function_call","id":"fc_1"`, `"type":"web_search_call","id":"fc_1"`, 1)},
		{"completed with usage null", "response", strings.Replace(wireResponse, `"usage":{"input_tokens":92,"input_tokens_details":{"cached_tokens":0,"cache_write_tokens":0},"output_tokens":52,
          "output_tokens_details":{"reasoning_tokens":0},"total_tokens":144}`, `"usage":null`, 1)},
		{"completed with empty arguments", "response", strings.Replace(wireResponse, `"{\"city\":\"Paris\"}"`, `""`, 1)},
		{"store true", "response", strings.Replace(wireResponse, `"store":false`, `"store":true`, 1)},
		{"created not at seq 0", "response.created", `{"type":"response.created","sequence_number":1,"response":` + inProgress() + `}`},
		{"delta without sequence_number", "response.output_text.delta", `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[]}`},
		{"negative sequence_number", "response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":-1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[]}`},
		{"fractional sequence_number", "response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":1.5,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[]}`},
		{"top-level error key in a normal event", "response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[],"error":null}`},
		{"delta without logprobs", "response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi"}`},
		{"args delta with content_index", "response.function_call_arguments.delta", `{"type":"response.function_call_arguments.delta","sequence_number":4,"item_id":"fc_1","output_index":1,"content_index":0,"delta":"{"}`},
		{"args done without name", "response.function_call_arguments.done", `{"type":"response.function_call_arguments.done","sequence_number":5,"item_id":"fc_1","output_index":1,"arguments":"{}"}`},
		{"args done with empty arguments", "response.function_call_arguments.done", `{"type":"response.function_call_arguments.done","sequence_number":5,"item_id":"fc_1","output_index":1,"name":"search","arguments":""}`},
		{"item added with arguments", "response.output_item.added", `{"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_A","name":"search","arguments":"{}","status":"in_progress"}}`},
		{"flat-only error event", "error", `{"type":"error","sequence_number":9,"code":"server_error","message":"boom","param":null}`},
		{"error body with a string", "error_body", `{"error":"boom"}`},
		{"402 body with null outputSchema", "x402.v1_payment_required", `{"x402Version":1,"accepts":[` + strings.Replace(v1req, `}}`, `},"outputSchema":null}`, 1) + `],"error":` + oaErr + `}`},
		{"402 body without description", "x402.v1_payment_required", `{"x402Version":1,"accepts":[` + strings.Replace(v1req, `"description":"",`, ``, 1) + `],"error":` + oaErr + `}`},
		{"v2 with a legacy network", "x402.payment_required", `{"x402Version":2,"resource":{"url":"http://x/v1/responses"},"accepts":[` + strings.Replace(v2req, `eip155:84532`, `base-sepolia`, 1) + `]}`},
		{"v2 with a decimal-point amount", "x402.payment_required", `{"x402Version":2,"resource":{"url":"http://x/v1/responses"},"accepts":[` + strings.Replace(v2req, `"1000"`, `"0.001"`, 1) + `]}`},
		{"successful receipt without tx", "x402.settle_response", `{"success":true,"payer":"` + addr + `","transaction":"","network":"eip155:84532"}`},
		{"trailing data", "error_body", `{"error":` + oaErr + `} {}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.schema, []byte(tt.doc))
			if err == nil {
				t.Fatalf("%s accepted:\n%s", tt.schema, tt.doc)
			}
			t.Log(err)
		})
	}
}

func TestValidateEventDispatchesOnType(t *testing.T) {
	good := `{"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[]}`
	if err := ValidateEvent([]byte(good)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		`{"type":"x402.payment.settled","sequence_number":1}`, // custom event types break the npm helper
		`{"type":"response","sequence_number":1}`,
		`{"sequence_number":1}`,
		`[]`,
		`{"type":"response.output_text.delta","sequence_number":4,"item_id":"fc_1","output_index":0,"content_index":0,"delta":"Hi","logprobs":[]}`,
	} {
		if err := ValidateEvent([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

func TestEverySchemaCompiles(t *testing.T) {
	names := Names()
	for _, want := range []string{"response", "response.created", "response.in_progress", "response.output_item.added",
		"response.output_item.done", "response.content_part.added", "response.content_part.done",
		"response.output_text.delta", "response.output_text.done", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.completed", "response.incomplete", "response.failed",
		"error", "error_body", "x402.payment_required", "x402.v1_payment_required", "x402.settle_response"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("no schema %q (have %v)", want, names)
		}
	}
	if err := Validate("nope", []byte(`{}`)); err == nil {
		t.Error("an unknown schema name validated")
	}
}
