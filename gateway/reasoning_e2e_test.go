package gateway_test

import (
	"context"
	"strings"
	"testing"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/schemas"
	"github.com/openai/openai-go/v3"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
	"github.com/tidwall/gjson"
)

// A reasoning model behind an openai (Responses) upstream, driven with
// openai-go as Codex drives it (store false, include
// reasoning.encrypted_content, a function and a custom tool): the
// encrypted reasoning item and both calls reach the client with the real
// events, and on the next turn the reasoning item goes back upstream with
// the function_call_output and the custom_tool_call_output.
func TestReasoningAndCustomToolRoundTripThroughResponsesUpstream(t *testing.T) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	cfg := gateway.Config{Models: []gateway.ModelConfig{{Name: "reasoner", Upstream: "openai", UpstreamConfig: endpoint("openai", up.URL(), "reason"), Price: "0"}}}
	ts := startServer(t, cfg, gateway.Options{})
	c := ts.client(t)
	ctx := context.Background()

	tools := []oresponses.ToolUnionParam{weatherTool(), {OfCustom: &oresponses.CustomToolParam{Name: "apply_patch", Description: openai.String("Edit files with a patch.")}},
		{OfWebSearch: &oresponses.WebSearchToolParam{Type: oresponses.WebSearchToolTypeWebSearch}}}
	params := oresponses.ResponseNewParams{
		Model: "reasoner", Tools: tools, Store: openai.Bool(false),
		Include:   []oresponses.ResponseIncludable{oresponses.ResponseIncludableReasoningEncryptedContent},
		Reasoning: shared.ReasoningParam{Summary: shared.ReasoningSummaryAuto},
		Input:     items(oresponses.ResponseInputItemParamOfMessage("patch it and check the weather", oresponses.EasyInputMessageRoleUser)),
	}
	stream := c.Responses.NewStreaming(ctx, params)
	counts := map[string]int{}
	var final oresponses.Response
	for stream.Next() {
		ev := stream.Current()
		counts[ev.Type]++
		if err := schemas.ValidateEvent([]byte(ev.RawJSON())); err != nil {
			t.Fatalf("%v\n%s", err, ev.RawJSON())
		}
		if ev.Type == "response.completed" {
			final = ev.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done",
		"response.function_call_arguments.done"} {
		if counts[typ] == 0 {
			t.Errorf("no %s event: %v", typ, counts)
		}
	}
	if len(final.Output) != 3 {
		t.Fatalf("output %s", final.RawJSON())
	}
	rs, fc, ctc := final.Output[0].AsReasoning(), final.Output[1].AsFunctionCall(), final.Output[2].AsCustomToolCall()
	if !strings.HasPrefix(rs.EncryptedContent, "enc:") || len(rs.Summary) != 2 || rs.Summary[0].Text != "Reading the request." {
		t.Fatalf("reasoning %s", final.Output[0].RawJSON())
	}
	if fc.Name != "get_weather" || ctc.Name != "apply_patch" || ctc.Input != "*** Begin Patch\n*** End Patch\n" {
		t.Fatalf("calls %s", final.RawJSON())
	}
	if got := final.Usage.OutputTokensDetails.ReasoningTokens; got != 5 {
		t.Errorf("reasoning_tokens %d, want 5", got)
	}
	first, err := up.WaitRequest(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(first.Body), "web_search") {
		t.Errorf("a provider-executed tool reached the upstream: %s", first.Body)
	}
	if got := gjson.GetBytes(first.Body, "reasoning.summary").Str; got != "auto" {
		t.Errorf("reasoning.summary %q not forwarded: %s", got, first.Body)
	}

	rsParam, fcParam, ctcParam := rs.ToParam(), fc.ToParam(), ctc.ToParam()
	params.Input = items(
		oresponses.ResponseInputItemParamOfMessage("patch it and check the weather", oresponses.EasyInputMessageRoleUser),
		oresponses.ResponseInputItemUnionParam{OfReasoning: &rsParam},
		oresponses.ResponseInputItemUnionParam{OfFunctionCall: &fcParam},
		oresponses.ResponseInputItemUnionParam{OfCustomToolCall: &ctcParam},
		callOutput(fc.CallID, "sunny"),
		oresponses.ResponseInputItemParamOfCustomToolCallOutput(ctc.CallID, "patched"),
	)
	res, err := c.Responses.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.OutputText(), "sunny") || !strings.Contains(res.OutputText(), "patched") {
		t.Errorf("answer %q", res.OutputText())
	}
	second, err := up.WaitRequest(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	in := gjson.GetBytes(second.Body, "input").Array()
	var types []string
	for _, it := range in {
		types = append(types, it.Get("type").Str)
	}
	if got, want := strings.Join(types, ","), "message,reasoning,function_call,custom_tool_call,function_call_output,custom_tool_call_output"; got != want {
		t.Fatalf("upstream input %s, want %s", got, want)
	}
	if got := in[1].Get("encrypted_content").Str; got != rs.EncryptedContent {
		t.Errorf("encrypted_content %q went back upstream, want %q", got, rs.EncryptedContent)
	}
	if got := in[5].Get("output").Str; got != "patched" {
		t.Errorf("custom_tool_call_output %q", got)
	}
}
