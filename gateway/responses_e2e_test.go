package gateway_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/farebox/farebox/internal/testkit/inprocess"
	"github.com/farebox/farebox/upstream/scripted"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/requestcases"
	fb "github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/schemas"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

const free = "farebox-scripted-free"

func weatherTool() oresponses.ToolUnionParam {
	return oresponses.ToolUnionParam{OfFunction: &oresponses.FunctionToolParam{
		Name:        "get_weather",
		Description: openai.String("Current weather for a city."),
		Parameters: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"city": map[string]any{"type": "string"}, "unit": map[string]any{"type": "string", "enum": []any{"c", "f"}}},
			"required":             []any{"city", "unit"},
			"additionalProperties": false,
		},
		Strict: openai.Bool(true),
	}}
}

func timeTool() oresponses.ToolUnionParam {
	return oresponses.ToolUnionParam{OfFunction: &oresponses.FunctionToolParam{
		Name:       "get_time",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"zone": map[string]any{"type": "string"}}, "required": []any{"zone"}},
		Strict:     openai.Bool(false),
	}}
}

func userText(s string) oresponses.ResponseNewParamsInputUnion {
	return oresponses.ResponseNewParamsInputUnion{OfString: openai.String(s)}
}

func items(it ...oresponses.ResponseInputItemUnionParam) oresponses.ResponseNewParamsInputUnion {
	return oresponses.ResponseNewParamsInputUnion{OfInputItemList: it}
}

func TestBasicTextNonStreaming(t *testing.T) {
	ts := startServer(t, freeConfig(), gateway.Options{})
	c := ts.client(t)
	res, err := c.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: free, Input: userText("hello farebox")})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.OutputText(); !strings.Contains(got, "hello farebox") {
		t.Errorf("text = %q, want the echo of the prompt", got)
	}
	if res.Status != "completed" || !strings.HasPrefix(res.ID, "resp_") || res.Usage.TotalTokens == 0 {
		t.Errorf("status %q id %q usage %+v", res.Status, res.ID, res.Usage)
	}
	if store := gjson.Get(res.RawJSON(), "store"); store.Type != gjson.False {
		t.Errorf("store must be echoed false, got %s", store.Raw)
	}
}

// collect runs a streaming call and returns its events.
func collect(t *testing.T, c *openai.Client, p oresponses.ResponseNewParams) []oresponses.ResponseStreamEventUnion {
	t.Helper()
	stream := c.Responses.NewStreaming(context.Background(), p)
	var evs []oresponses.ResponseStreamEventUnion
	for stream.Next() {
		evs = append(evs, stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	for i, ev := range evs {
		if ev.SequenceNumber != int64(i) {
			t.Fatalf("event %d (%s) has sequence_number %d", i, ev.Type, ev.SequenceNumber)
		}
	}
	if len(evs) < 3 || evs[0].Type != "response.created" || evs[1].Type != "response.in_progress" {
		t.Fatalf("stream does not start with created, in_progress: %v", types(evs))
	}
	return evs
}

func types(evs []oresponses.ResponseStreamEventUnion) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

func TestStreamingText(t *testing.T) {
	ts := startServer(t, freeConfig(), gateway.Options{})
	evs := collect(t, ts.client(t), oresponses.ResponseNewParams{Model: free, Input: userText("stream this sentence, please")})
	var text strings.Builder
	deltas := 0
	for _, ev := range evs {
		if ev.Type == "response.output_text.delta" {
			text.WriteString(ev.Delta)
			deltas++
		}
	}
	last := evs[len(evs)-1]
	if last.Type != "response.completed" {
		t.Fatalf("last event %s", last.Type)
	}
	if deltas < 2 {
		t.Errorf("%d deltas: the answer should stream in pieces", deltas)
	}
	if got := last.Response.OutputText(); got != text.String() || !strings.Contains(got, "stream this sentence") {
		t.Errorf("final text %q, deltas %q", got, text.String())
	}
}

func TestSystemPrompt(t *testing.T) {
	ts := startServer(t, freeConfig(), gateway.Options{})
	res, err := ts.client(t).Responses.New(context.Background(), oresponses.ResponseNewParams{
		Model: free, Instructions: openai.String("You are terse."), Input: userText("hi"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Instructions.OfString != "You are terse." {
		t.Errorf("instructions echo = %+v", res.Instructions)
	}
}

func TestToolCallRoundTrip(t *testing.T) {
	ts := startServer(t, freeConfig(), gateway.Options{})
	c := ts.client(t)
	ctx := context.Background()
	tools := []oresponses.ToolUnionParam{weatherTool()}
	first, err := c.Responses.New(ctx, oresponses.ResponseNewParams{Model: free, Tools: tools, Input: userText("use get_weather for Paris")})
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Output) != 1 || first.Output[0].Type != "function_call" {
		t.Fatalf("want one function_call, got %+v", first.Output)
	}
	call := first.Output[0]
	var args struct{ City, Unit string }
	if err := json.Unmarshal([]byte(call.Arguments.OfString), &args); err != nil || args.City == "" || (args.Unit != "c" && args.Unit != "f") {
		t.Fatalf("arguments %q do not satisfy the schema: %v", call.Arguments.OfString, err)
	}
	if call.Name != "get_weather" || !strings.HasPrefix(call.CallID, "call_") || !strings.HasPrefix(call.ID, "fc_") {
		t.Errorf("call %+v", call)
	}

	history := []oresponses.ResponseInputItemUnionParam{
		oresponses.ResponseInputItemParamOfMessage("use get_weather for Paris", oresponses.EasyInputMessageRoleUser),
		oresponses.ResponseInputItemParamOfFunctionCall(call.Arguments.OfString, call.CallID, call.Name),
	}
	t.Run("string output", func(t *testing.T) {
		in := append(history[:2:2], callOutput(call.CallID, "sunny, 21 C"))
		res, err := c.Responses.New(ctx, oresponses.ResponseNewParams{Model: free, Tools: tools, Input: items(in...)})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.OutputText(); !strings.Contains(got, "sunny, 21 C") {
			t.Errorf("answer %q does not quote the tool output", got)
		}
	})
	t.Run("part array output with an image", func(t *testing.T) {
		out := oresponses.ResponseFunctionCallOutputItemListParam{
			{OfInputText: &oresponses.ResponseInputTextContentParam{Text: "radar attached"}},
			{OfInputImage: &oresponses.ResponseInputImageContentParam{ImageURL: openai.String("data:image/png;base64,iVBORw0KGgo=")}},
		}
		in := append(history[:2:2], callOutput(call.CallID, out))
		res, err := c.Responses.New(ctx, oresponses.ResponseNewParams{Model: free, Tools: tools, Input: items(in...)})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.OutputText(); !strings.Contains(got, "radar attached") {
			t.Errorf("answer %q does not quote the text part", got)
		}
	})
}

func TestStreamingParallelCallsAreNotInterleaved(t *testing.T) {
	ts := startServer(t, freeConfig(), gateway.Options{})
	evs := collect(t, ts.client(t), oresponses.ResponseNewParams{
		Model: free, Tools: []oresponses.ToolUnionParam{weatherTool(), timeTool()},
		Input: userText("call get_weather and get_time for Oslo"),
	})
	open := ""
	args := map[string]string{}
	var done []string
	for _, ev := range evs {
		switch ev.Type {
		case "response.output_item.added":
			if open != "" {
				t.Fatalf("item %s added while %s is open", ev.Item.ID, open)
			}
			open = ev.Item.ID
		case "response.function_call_arguments.delta":
			if ev.ItemID != open {
				t.Fatalf("delta for %s while %s is open", ev.ItemID, open)
			}
			args[ev.ItemID] += ev.Delta
		case "response.function_call_arguments.done":
			if ev.Arguments != args[ev.ItemID] || !json.Valid([]byte(ev.Arguments)) {
				t.Errorf("done arguments %q, deltas %q", ev.Arguments, args[ev.ItemID])
			}
		case "response.output_item.done":
			if ev.Item.ID != open {
				t.Fatalf("done for %s while %s is open", ev.Item.ID, open)
			}
			done = append(done, ev.Item.Name)
			open = ""
		}
	}
	if strings.Join(done, ",") != "get_weather,get_time" {
		t.Errorf("calls = %v", done)
	}
	final := evs[len(evs)-1].Response
	if len(final.Output) != 2 || final.Output[0].CallID == final.Output[1].CallID {
		t.Errorf("final output %+v", final.Output)
	}
}

func TestImageInputAndMultiTurn(t *testing.T) {
	ts := startServer(t, freeConfig(), gateway.Options{})
	c := ts.client(t)
	img := oresponses.ResponseInputMessageContentListParam{
		oresponses.ResponseInputContentParamOfInputText("what is in this picture?"),
		{OfInputImage: &oresponses.ResponseInputImageParam{ImageURL: openai.String("https://example.com/cat.png"), Detail: oresponses.ResponseInputImageDetailAuto}},
	}
	res, err := c.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: free,
		Input: items(oresponses.ResponseInputItemParamOfMessage(img, oresponses.EasyInputMessageRoleUser))})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.OutputText(), "what is in this picture?") {
		t.Errorf("image turn answer %q", res.OutputText())
	}
	res, err = c.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: free, Input: items(
		oresponses.ResponseInputItemParamOfMessage("my name is Ada", oresponses.EasyInputMessageRoleUser),
		oresponses.ResponseInputItemParamOfMessage("Nice to meet you, Ada.", oresponses.EasyInputMessageRoleAssistant),
		oresponses.ResponseInputItemParamOfMessage("and the second question", oresponses.EasyInputMessageRoleUser),
	)})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.OutputText(); !strings.Contains(got, "and the second question") || strings.Contains(got, "Ada") {
		t.Errorf("multi-turn answer %q should answer the last user turn", got)
	}
}

func TestSDKSeesOpenAIErrors(t *testing.T) {
	ts := startServer(t, freeConfig(), gateway.Options{})
	c := ts.client(t)
	_, err := c.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: "no-such-model", Input: userText("hi")})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("want *openai.Error, got %T %v", err, err)
	}
	if apiErr.StatusCode != 404 || apiErr.Code != "model_not_found" || apiErr.Param != "model" {
		t.Errorf("status %d code %q param %q", apiErr.StatusCode, apiErr.Code, apiErr.Param)
	}
	// The message finishes the thought: what is served, and where the list is.
	if !strings.Contains(apiErr.Message, "This server serves: "+free) || !strings.Contains(apiErr.Message, "GET /v1/models") {
		t.Errorf("unknown model message %q names neither the served models nor GET /v1/models", apiErr.Message)
	}
	_, err = c.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: free, Input: userText("hi"),
		PreviousResponseID: openai.String("resp_123")})
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Code != "previous_response_not_found" {
		t.Errorf("previous_response_id: %v", err)
	}
}

func TestBodyLimit(t *testing.T) {
	cfg := freeConfig()
	cfg.BodyLimit = 1024
	ts := startServer(t, cfg, gateway.Options{})
	res, body := post(t, ts.URL+"/responses", `{"model":"`+free+`","input":"`+strings.Repeat("x", 2000)+`"}`)
	if res.StatusCode != http.StatusRequestEntityTooLarge || gjson.GetBytes(body, "error.code").String() != "request_too_large" {
		t.Errorf("status %d body %s", res.StatusCode, body)
	}
	res, _ = post(t, ts.URL+"/responses", `{"model":"`+free+`","input":"`+strings.Repeat("x", 900)+`"}`)
	if res.StatusCode != http.StatusOK {
		t.Errorf("a body under the limit got %d", res.StatusCode)
	}
}

func TestModelsHealthAndUnknownRoutes(t *testing.T) {
	ts := startServer(t, freeConfig(), gateway.Options{})
	page, err := ts.client(t).Models.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 1 || page.Data[0].ID != free {
		t.Fatalf("models %+v", page.Data)
	}
	if p := gjson.Get(page.Data[0].RawJSON(), "price.amount").String(); p != "0" {
		t.Errorf("price %q", p)
	}
	for _, path := range []string{"/healthz", "/readyz"} {
		res, err := http.Get(strings.TrimSuffix(ts.URL, "/v1") + path)
		if err != nil || res.StatusCode != 200 {
			t.Errorf("%s: %v %v", path, err, res)
		}
	}
	res, body := post(t, ts.URL+"/completions", `{}`)
	if res.StatusCode != 404 || !gjson.GetBytes(body, "error.message").Exists() {
		t.Errorf("unknown route: %d %s", res.StatusCode, body)
	}
	if res.Header.Get("X-Request-Id") == "" {
		t.Error("no request id")
	}
}

func TestShutdownLetsOpenStreamsFinish(t *testing.T) {
	cfg := freeConfig()
	cfg.Models[0].UpstreamConfig = &scripted.Settings{Pace: gateway.Duration(20 * time.Millisecond)}
	ts := startServer(t, cfg, gateway.Options{})
	c := ts.client(t, option.WithRequestTimeout(20*time.Second))
	stream := c.Responses.NewStreaming(context.Background(), oresponses.ResponseNewParams{Model: free,
		Input: userText("a sentence long enough to need several paced deltas before it ends")})
	if !stream.Next() {
		t.Fatal(stream.Err())
	}
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		shut <- ts.Shutdown(ctx)
	}()
	last := ""
	for stream.Next() {
		last = stream.Current().Type
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if last != "response.completed" {
		t.Errorf("stream cut at %q during shutdown", last)
	}
	if err := <-shut; err != nil {
		t.Errorf("shutdown: %v", err)
	}
}

func callOutput[T string | oresponses.ResponseFunctionCallOutputItemListParam](callID string, out T) oresponses.ResponseInputItemUnionParam {
	it := oresponses.ResponseInputItemParamOfFunctionCallOutput(out)
	it.OfFunctionCallOutput.CallID = openai.String(callID)
	return it
}

// rogueModel calls a tool nobody declared: the deny-all policy's case.
type rogueModel struct{}

func (rogueModel) Respond(ctx context.Context, req *fb.Request, out fb.Output) error {
	out.StartCall("", "rm_rf")
	out.Arguments(`{"path":"/"}`)
	return nil
}

func TestUndeclaredToolCallsNeverLeave(t *testing.T) {
	cfg := gateway.Config{Models: []gateway.ModelConfig{{Name: "rogue", Upstream: inprocess.Kind, UpstreamConfig: inprocess.Use(rogueModel{})}}}
	ts := startServer(t, cfg, gateway.Options{})
	for _, stream := range []string{"false", "true"} {
		res, body := post(t, ts.URL+"/responses", `{"model":"rogue","input":"hi","stream":`+stream+`,"tools":[{"type":"function","name":"ls"}]}`)
		if res.StatusCode != 502 || gjson.GetBytes(body, "error.code").String() != "tool_call_denied" || strings.Contains(string(body), `"path"`) {
			t.Errorf("stream=%s: %d %s", stream, res.StatusCode, body)
		}
	}
}

// The malformed-request table the parser is tested with, sent over HTTP:
// each answer is a 400 whose OpenAI error object carries the exact type,
// param and code, and which SDKs are told not to retry.
func TestMalformedRequestsOverHTTP(t *testing.T) {
	ts := startServer(t, freeConfig(), gateway.Options{})
	cases := requestcases.Malformed()
	if len(cases) < 40 {
		t.Fatalf("only %d cases", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			res, body := post(t, ts.URL+"/responses", c.Body)
			if res.StatusCode != 400 || res.Header.Get("X-Should-Retry") != "false" {
				t.Fatalf("status %d, x-should-retry %q: %s", res.StatusCode, res.Header.Get("X-Should-Retry"), body)
			}
			if err := schemas.Validate("error_body", body); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			e := gjson.GetBytes(body, "error")
			if e.Get("type").String() != "invalid_request_error" || e.Get("param").String() != c.Param || e.Get("code").String() != c.Code {
				t.Errorf("got %s, want param %q code %q", e.Raw, c.Param, c.Code)
			}
			if c.Param == "" && e.Get("param").Type != gjson.Null {
				t.Errorf("param must be null: %s", e.Raw)
			}
			if c.Msg != "" && e.Get("message").String() != c.Msg {
				t.Errorf("message %q, want %q", e.Get("message").String(), c.Msg)
			}
		})
	}
}
