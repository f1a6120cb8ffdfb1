package chat

import (
	"bytes"
	"encoding/json"
	"flag"
	"path/filepath"
	"testing"

	"github.com/farebox/farebox/internal/testkit/upstreamtest"
	"github.com/farebox/farebox/responses"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

const weatherTools = `[
 {"type":"function","name":"get_weather","description":"Weather for a city","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false},"strict":true},
 {"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{"zone":{"type":"string"}}}}},
 {"type":"function","name":"no_params","strict":false}]`

// requestShapes are the Responses request shapes whose Chat translation is
// pinned, byte for byte, by testdata/requests/<name>.json.
var requestShapes = []struct {
	name string
	cfg  Config
	body string
}{
	{"string_input", Config{}, `{"model":"client-model","input":"Hello"}`},
	{"upstream_model_name", Config{Model: "llama3.1:8b"}, `{"model":"client-model","input":"Hello"}`},
	{"instructions_and_roles", Config{}, `{"model":"m","instructions":"Be brief.","input":[
		{"role":"developer","content":"Answer in French."},
		{"type":"message","role":"system","content":[{"type":"input_text","text":"System part"}]},
		{"role":"user","content":"Hi"},
		{"role":"assistant","content":[{"type":"output_text","text":"Bonjour","annotations":[]}]},
		{"role":"user","content":[{"type":"input_text","text":"And again"}]}]}`},
	{"user_parts", Config{}, `{"model":"m","input":[{"role":"user","content":[
		{"type":"input_text","text":"What is in these?"},
		{"type":"input_image","image_url":"https://example.com/cat.png","detail":"low"},
		{"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0=","filename":"a.pdf"}]}]}`},
	{"tools_flat_and_nested", Config{}, `{"model":"m","input":"x","tools":` + weatherTools + `}`},
	{"tool_choice_none", Config{}, `{"model":"m","input":"x","tool_choice":"none","tools":` + weatherTools + `}`},
	{"tool_choice_required", Config{}, `{"model":"m","input":"x","tool_choice":"required","tools":` + weatherTools + `}`},
	{"tool_choice_function", Config{}, `{"model":"m","input":"x","tool_choice":{"type":"function","name":"get_time"},"tools":` + weatherTools + `}`},
	{"tool_choice_function_chat_form", Config{}, `{"model":"m","input":"x","tool_choice":{"type":"function","function":{"name":"get_time"}},"tools":` + weatherTools + `}`},
	{"tool_choice_allowed_auto", Config{}, `{"model":"m","input":"x","tool_choice":{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"get_weather"},{"type":"function","name":"no_params"}]},"tools":` + weatherTools + `}`},
	{"tool_choice_allowed_required", Config{}, `{"model":"m","input":"x","tool_choice":{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"get_time"}]},"tools":` + weatherTools + `}`},
	{"tool_round_trip", Config{}, `{"model":"m","tools":` + weatherTools + `,"input":[
		{"role":"user","content":"Weather in Paris and the time?"},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Let me look.","annotations":[]}]},
		{"type":"function_call","call_id":"call_A","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},
		{"type":"function_call","call_id":"call_B","name":"no_params","arguments":""},
		{"type":"function_call_output","call_id":"call_A","output":"sunny"},
		{"type":"function_call_output","call_id":"call_B","output":[{"type":"input_text","text":"line 1"},{"type":"input_text","text":"line 2"}]},
		{"role":"user","content":"Thanks"}]}`},
	{"calls_without_assistant_message", Config{}, `{"model":"m","tools":` + weatherTools + `,"input":[
		{"role":"user","content":"Paris?"},
		{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"thinking"}]},
		{"type":"function_call","call_id":"call_A","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},
		{"type":"function_call_output","call_id":"call_A","output":"rain"},
		{"type":"function_call","call_id":"call_C","name":"get_time","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_C","output":"noon"}]}`},
	{"tool_output_images", Config{}, `{"model":"m","tools":` + weatherTools + `,"input":[
		{"role":"user","content":"Screenshot both"},
		{"type":"function_call","call_id":"call_A","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},
		{"type":"function_call","call_id":"call_B","name":"get_time","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_A","output":[{"type":"input_text","text":"see image"},{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo=","detail":"auto"}]},
		{"type":"function_call_output","call_id":"call_B","output":[{"type":"input_image","image_url":"https://example.com/clock.png"}]}]}`},
	{"sampling_and_json_schema", Config{}, `{"model":"m","input":"x","max_output_tokens":256,"temperature":0.2,"top_p":0.9,
		"presence_penalty":0.5,"frequency_penalty":0.25,"parallel_tool_calls":false,"tools":` + weatherTools + `,
		"reasoning":{"effort":"low"},
		"text":{"format":{"type":"json_schema","name":"answer","strict":true,"schema":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}}}}`},
	{"json_object_and_max_tokens", Config{MaxTokensField: "max_tokens"}, `{"model":"m","input":"x","max_output_tokens":64,"text":{"format":{"type":"json_object"}}}`},
}

func TestTranslationIsPinned(t *testing.T) {
	for _, tc := range requestShapes {
		t.Run(tc.name, func(t *testing.T) {
			m, err := New(Config{BaseURL: "http://unused", Model: tc.cfg.Model, MaxTokensField: tc.cfg.MaxTokensField, NoImages: tc.cfg.NoImages})
			if err != nil {
				t.Fatal(err)
			}
			got, err := translate(upstreamtest.Parse(t, tc.body), m.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, got, "", "  "); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
			upstreamtest.Golden(t, filepath.Join("testdata", "requests", tc.name+".json"), pretty.Bytes(), *update)
		})
	}
}

func TestTranslationRefusesWhatChatCannotCarry(t *testing.T) {
	cases := []struct {
		name, body, param, code string
		cfg                     Config
	}{
		{"image in tool output, model takes no images", `{"model":"m","input":[
			{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},
			{"type":"function_call_output","call_id":"c","output":[{"type":"input_image","image_url":"https://x/y.png"}]}],
			"tools":[{"type":"function","name":"f"}]}`, "input[1].output[0]", "image_input_unsupported", Config{NoImages: true}},
		{"image in user message, model takes no images", `{"model":"m","input":[{"role":"user","content":[
			{"type":"input_text","text":"x"},{"type":"input_image","image_url":"https://x/y.png"}]}]}`,
			"input[0].content[1]", "image_input_unsupported", Config{NoImages: true}},
		{"file by url", `{"model":"m","input":[{"role":"user","content":[{"type":"input_file","file_url":"https://x/a.pdf"}]}]}`,
			"input[0].content[0]", "unsupported_content", Config{}},
		{"shell tool", `{"model":"m","input":"x","tools":[{"type":"shell"}]}`, "tools", "unsupported_value", Config{}},
		{"shell_call item", `{"model":"m","input":[{"type":"shell_call","call_id":"c","action":{"commands":["ls"]}},
			{"type":"shell_call_output","call_id":"c","output":[]}]}`, "input[0].type", "unsupported_value", Config{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, perr := responses.Parse([]byte(tc.body))
			if perr != nil {
				t.Fatalf("responses.Parse refused the request: %v", perr)
			}
			_, err := translate(req, tc.cfg)
			var rerr *responses.Error
			if !asError(err, &rerr) {
				t.Fatalf("got %v, want a *responses.Error", err)
			}
			if rerr.Status != 400 || rerr.Param != tc.param || rerr.Code != tc.code {
				t.Errorf("got %d %q %q (%s), want 400 %q %q", rerr.Status, rerr.Param, rerr.Code, rerr.Message, tc.param, tc.code)
			}
		})
	}
}

func asError(err error, target **responses.Error) bool {
	e, ok := err.(*responses.Error)
	if ok {
		*target = e
	}
	return ok
}
