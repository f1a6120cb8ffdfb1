package responses

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func readParseFile(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "parse", name))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func mustParse(tb testing.TB, body []byte) *Request {
	tb.Helper()
	r, err := Parse(body)
	if err != nil {
		tb.Fatalf("Parse: %v\nbody: %s", err, body)
	}
	return r
}

func TestParseStringInputIsOneUserMessage(t *testing.T) {
	r := mustParse(t, []byte(`{"model":"m","input":"hello"}`))
	want := []Item{{Type: ItemMessage, Role: "user", Content: []Part{{Type: "input_text", Text: "hello"}}, ContentIsString: true}}
	if !reflect.DeepEqual(r.Input, want) {
		t.Fatalf("input = %+v, want %+v", r.Input, want)
	}
	if r.Model != "m" {
		t.Errorf("model = %q", r.Model)
	}
}

func TestParseDefaults(t *testing.T) {
	r := mustParse(t, []byte(`{"model":"m","input":"hi"}`))
	if r.ToolChoice.Mode != ChoiceAuto || !r.ParallelToolCalls || r.Truncation != "disabled" ||
		r.ServiceTier != "default" || r.Stream || r.Store || r.Instructions != nil || r.Tools != nil ||
		r.Text != nil || r.Reasoning != nil || r.Metadata != nil || r.MaxOutputTokens != nil {
		t.Fatalf("defaults wrong: %+v", r)
	}
	if got := string(r.ToolChoiceJSON()); got != `"auto"` {
		t.Errorf("tool_choice echo = %s", got)
	}
}

func TestParseEveryTopLevelField(t *testing.T) {
	r := mustParse(t, readParseFile(t, "every_field.json"))
	checks := []struct {
		name      string
		got, want any
	}{
		{"parallel_tool_calls", r.ParallelToolCalls, false},
		{"max_output_tokens", *r.MaxOutputTokens, int64(16)},
		{"max_tool_calls", *r.MaxToolCalls, int64(3)},
		{"temperature", *r.Temperature, 2.0},
		{"top_p", *r.TopP, 0.0},
		{"top_logprobs", *r.TopLogprobs, int64(20)},
		{"presence_penalty", *r.PresencePenalty, -2.0},
		{"frequency_penalty", *r.FrequencyPenalty, 1.5},
		{"stream", r.Stream, true},
		{"include_usage", r.IncludeUsage, true},
		{"store is never kept", r.Store, false},
		{"metadata keeps order", r.Metadata, []MetadataPair{{"z", "1"}, {"a", "2"}}},
		{"text", string(r.Text), `{"format":{"type":"json_schema","name":"answer","schema":{"type":"object","properties":{"a":{"type":"string"}}},"strict":true},"verbosity":"low"}`},
		{"truncation", r.Truncation, "auto"},
		{"user", *r.User, "u1"},
		{"safety_identifier", *r.SafetyID, "s1"},
		{"prompt_cache_key", *r.PromptCache, "k1"},
		{"include", r.Include, []string{"message.output_text.logprobs"}},
		{"reasoning", string(r.Reasoning), `{"effort":"high","summary":"detailed"}`},
		{"service_tier", r.ServiceTier, "flex"},
		{"tool_choice", r.ToolChoice.Mode, ChoiceNone},
		{"instructions null", r.Instructions == nil, true},
		{"tools empty", len(r.Tools), 0},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.name, c.got, c.want)
		}
	}
}

func TestParseConversationItems(t *testing.T) {
	r := mustParse(t, readParseFile(t, "conversation.json"))
	if r.Instructions == nil || *r.Instructions != "You are a travel assistant. Use the tools when they help." {
		t.Errorf("instructions = %v", r.Instructions)
	}
	want := []Item{
		{Type: ItemMessage, Role: "user", ContentIsString: true, Content: []Part{{Type: "input_text", Text: "What's the weather in Paris, and find me a hotel there?"}}},
		{Type: ItemReasoning, ID: "rs_01", Summary: json.RawMessage(`[{"type":"summary_text","text":"Need weather and hotels."}]`), EncryptedContent: "gAAAAABo-opaque"},
		{Type: ItemFunctionCall, ID: "fc_01", CallID: "call_weather_1", Name: "get_weather", Arguments: `{"city":"Paris","unit":"celsius"}`, Status: "completed"},
		{Type: ItemFunctionCall, ID: "fc_02", CallID: "call_hotels_1", Name: "search_hotels", Arguments: `{"city":"Paris","max_price":250}`, Status: "completed"},
		{Type: ItemFunctionCallOutput, CallID: "call_weather_1", OutputText: `{"temp_c":18,"sky":"cloudy"}`, OutputIsString: true},
		{Type: ItemFunctionCallOutput, CallID: "call_hotels_1", Output: []Part{
			{Type: "input_text", Text: "Hotel Lumiere, 210 EUR, 4.5 stars"},
			{Type: "input_image", ImageURL: "https://example.com/lumiere.jpg", Detail: "low"}}},
		{Type: ItemMessage, Role: "assistant", ID: "msg_01", Status: "completed", Content: []Part{
			{Type: "output_text", Text: "It is 18 C and cloudy in Paris. Hotel Lumiere has a room for 210 EUR."}}},
		{Type: ItemMessage, Role: "user", Content: []Part{
			{Type: "input_text", Text: "Book it for two nights from Friday, and show me this map."},
			{Type: "input_image", ImageURL: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", Detail: "auto"}}},
	}
	if len(r.Input) != len(want) {
		t.Fatalf("got %d items, want %d", len(r.Input), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(r.Input[i], want[i]) {
			t.Errorf("input[%d] =\n %+v\nwant\n %+v", i, r.Input[i], want[i])
		}
	}
	if got, want := len(r.Tools), 3; got != want {
		t.Fatalf("tools = %d, want %d", got, want)
	}
	if string(r.Tools[2].Parameters) != `{"type":"object","properties":{"hotel":{"type":"string"},"nights":{"type":"integer"},"from":{"type":"string"}},"required":["hotel","nights"]}` {
		t.Errorf("nested tool parameters not kept one-line: %s", r.Tools[2].Parameters)
	}
	if !r.Stream || *r.Temperature != 0.7 || *r.MaxOutputTokens != 1024 {
		t.Errorf("scalars wrong: stream %v temperature %v max %v", r.Stream, *r.Temperature, *r.MaxOutputTokens)
	}
}

func TestParseMessageShapes(t *testing.T) {
	cases := []struct {
		name string
		item string
		want Item
	}{
		{"untyped string", `{"role":"user","content":"x"}`,
			Item{Type: ItemMessage, Role: "user", ContentIsString: true, Content: []Part{{Type: "input_text", Text: "x"}}}},
		{"typed system", `{"type":"message","role":"system","content":"s"}`,
			Item{Type: ItemMessage, Role: "system", ContentIsString: true, Content: []Part{{Type: "input_text", Text: "s"}}}},
		{"developer parts", `{"role":"developer","content":[{"type":"input_text","text":"d"}]}`,
			Item{Type: ItemMessage, Role: "developer", Content: []Part{{Type: "input_text", Text: "d"}}}},
		{"assistant string becomes output_text", `{"role":"assistant","content":"a"}`,
			Item{Type: ItemMessage, Role: "assistant", ContentIsString: true, Content: []Part{{Type: "output_text", Text: "a"}}}},
		{"assistant refusal and output_text", `{"type":"message","role":"assistant","content":[{"type":"output_text","text":"t","annotations":[{"type":"url_citation"}]},{"type":"refusal","refusal":"no"}]}`,
			Item{Type: ItemMessage, Role: "assistant", Content: []Part{{Type: "output_text", Text: "t"}, {Type: "refusal", Text: "no"}}}},
		{"assistant may carry input_text", `{"role":"assistant","content":[{"type":"input_text","text":"t"}]}`,
			Item{Type: ItemMessage, Role: "assistant", Content: []Part{{Type: "input_text", Text: "t"}}}},
		{"file by data", `{"role":"user","content":[{"type":"input_file","file_data":"ZGF0YQ==","filename":"a.txt"}]}`,
			Item{Type: ItemMessage, Role: "user", Content: []Part{{Type: "input_file", FileData: "ZGF0YQ==", Filename: "a.txt"}}}},
		{"file by url", `{"role":"user","content":[{"type":"input_file","file_url":"https://x/y.pdf"}]}`,
			Item{Type: ItemMessage, Role: "user", Content: []Part{{Type: "input_file", FileURL: "https://x/y.pdf"}}}},
		{"empty text is text", `{"role":"user","content":[{"type":"input_text","text":""}]}`,
			Item{Type: ItemMessage, Role: "user", Content: []Part{{Type: "input_text", Text: ""}}}},
		{"unknown item keys ignored", `{"role":"user","content":"x","phase":"final","extra":{"a":1}}`,
			Item{Type: ItemMessage, Role: "user", ContentIsString: true, Content: []Part{{Type: "input_text", Text: "x"}}}},
		{"reasoning without id", `{"type":"reasoning","summary":[],"encrypted_content":null,"content":null}`,
			Item{Type: ItemReasoning, Summary: json.RawMessage(`[]`)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := mustParse(t, []byte(`{"model":"m","input":[`+c.item+`]}`))
			if !reflect.DeepEqual(r.Input[0], c.want) {
				t.Fatalf("got  %+v\nwant %+v", r.Input[0], c.want)
			}
		})
	}
}

func TestParseFunctionCallOutputForms(t *testing.T) {
	r := mustParse(t, []byte(`{"model":"m","input":[
		{"type":"function_call","call_id":"c1","name":"f","arguments":""},
		{"type":"function_call","call_id":"c2","name":"f","arguments":"{}"},
		{"type":"function_call_output","call_id":"c2","output":[{"type":"input_text","text":"seen"},{"type":"input_image","image_url":"data:image/png;base64,AA=="},{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0=","filename":"a.pdf"}]},
		{"type":"function_call_output","call_id":"c1","output":"","status":"completed","id":"fco_1"}]}`))
	if got := r.Input[0].Arguments; got != "" {
		t.Errorf("empty arguments changed to %q", got)
	}
	out := r.Input[2]
	if out.OutputIsString || len(out.Output) != 3 || out.Output[1].ImageURL != "data:image/png;base64,AA==" || out.Output[2].FileData != "data:application/pdf;base64,JVBERi0=" {
		t.Errorf("array output = %+v", out)
	}
	if s := r.Input[3]; !s.OutputIsString || s.OutputText != "" || s.ID != "fco_1" || s.Status != "completed" {
		t.Errorf("string output = %+v", s)
	}
}

func TestParseSchemaIsCompactedToOneLine(t *testing.T) {
	r := mustParse(t, []byte("{\"model\":\"m\",\"input\":\"x\",\"tools\":[{\"type\":\"function\",\"name\":\"f\",\"parameters\":{\n  \"type\" : \"object\",\n\t\"properties\": {\"a b\": {\"type\":\"string\", \"description\": \"keeps \\\" spaces \\\\\"}}\n}}]}"))
	want := `{"type":"object","properties":{"a b":{"type":"string","description":"keeps \" spaces \\"}}}`
	if got := string(r.Tools[0].Parameters); got != want {
		t.Fatalf("parameters = %s\nwant %s", got, want)
	}
	if bytes.ContainsAny(r.Tools[0].JSON(), "\n\r") {
		t.Fatal("tool echo spans lines")
	}
}

func TestParseCopiesNothingFromTheCallersBuffer(t *testing.T) {
	body := []byte(`{"model":"m","input":[{"role":"user","content":"hello"}],"tools":[{"type":"function","name":"f","parameters":{"type":"object"}}]}`)
	r := mustParse(t, body)
	for i := range body {
		body[i] = 'X'
	}
	if r.Model != "m" || r.Input[0].Content[0].Text != "hello" || string(r.Tools[0].Parameters) != `{"type":"object"}` {
		t.Fatalf("request aliases the body: %+v", r)
	}
}
