package gateway_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// startBehindFake runs farebox in front of the fake upstream, one route per
// mode the tests use, for the given upstream kind.
func startBehindFake(t *testing.T, kind string) *testServer {
	t.Helper()
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	cfg := gateway.Config{}
	for _, m := range []string{"echo", "call", "fixture:parallel_calls", "fixture:mid_stream_failure", "fixture:index_zero",
		"status:400", "status:401", "status:429", "status:500", "status:timeout"} {
		mc := gateway.ModelConfig{Name: m, Upstream: kind, UpstreamConfig: endpoint(kind, up.URL(), m,
			gateway.UpstreamTimeouts{FirstByte: gateway.Duration(300 * time.Millisecond)}), Price: "0"}
		cfg.Models = append(cfg.Models, mc)
	}
	return startServer(t, cfg, gateway.Options{})
}

func TestUpstreamsEndToEnd(t *testing.T) {
	for _, kind := range []string{"openai", "chat"} {
		t.Run(kind, func(t *testing.T) {
			ts := startBehindFake(t, kind)
			c := ts.client(t)
			ctx := context.Background()

			t.Run("text", func(t *testing.T) {
				res, err := c.Responses.New(ctx, oresponses.ResponseNewParams{Model: "echo", Input: userText("through the upstream")})
				if err != nil || !strings.Contains(res.OutputText(), "through the upstream") {
					t.Fatalf("%v %+v", err, res)
				}
				evs := collect(t, c, oresponses.ResponseNewParams{Model: "echo", Input: userText("streamed through")})
				if last := evs[len(evs)-1]; last.Type != "response.completed" || !strings.Contains(last.Response.OutputText(), "streamed through") {
					t.Fatalf("%s %q", last.Type, last.Response.OutputText())
				}
			})
			t.Run("parallel calls", func(t *testing.T) {
				tools := []oresponses.ToolUnionParam{weatherTool(), timeTool()}
				model := "fixture:parallel_calls"
				if kind == "chat" {
					model = "fixture:index_zero" // Ollama's every-call-at-index-0 stream
				}
				evs := collect(t, c, oresponses.ResponseNewParams{Model: model, Tools: tools, Input: userText("weather and time")})
				final := evs[len(evs)-1].Response
				var names []string
				for _, it := range final.Output {
					if it.Type == "function_call" {
						names = append(names, it.Name)
					}
				}
				if len(names) < 2 {
					t.Fatalf("calls %v in %s", names, final.RawJSON())
				}
			})
			t.Run("tool round trip with an image output", func(t *testing.T) {
				tools := []oresponses.ToolUnionParam{weatherTool()}
				first, err := c.Responses.New(ctx, oresponses.ResponseNewParams{Model: "call", Tools: tools, Input: userText("weather in Lima")})
				if err != nil || len(first.Output) == 0 || first.Output[0].Type != "function_call" {
					t.Fatalf("%v %+v", err, first)
				}
				call := first.Output[0]
				out := oresponses.ResponseFunctionCallOutputItemListParam{
					{OfInputText: &oresponses.ResponseInputTextContentParam{Text: "sunny"}},
					{OfInputImage: &oresponses.ResponseInputImageContentParam{ImageURL: openai.String("data:image/png;base64,iVBORw0KGgo=")}},
				}
				res, err := c.Responses.New(ctx, oresponses.ResponseNewParams{Model: "call", Tools: tools, Input: items(
					oresponses.ResponseInputItemParamOfMessage("weather in Lima", oresponses.EasyInputMessageRoleUser),
					oresponses.ResponseInputItemParamOfFunctionCall(call.Arguments.OfString, call.CallID, call.Name),
					callOutput(call.CallID, out))})
				if err != nil || !strings.Contains(res.OutputText(), "sunny") {
					t.Fatalf("%v %q", err, res.OutputText())
				}
			})
			t.Run("failure after the first byte", func(t *testing.T) {
				stream := c.Responses.NewStreaming(ctx, oresponses.ResponseNewParams{Model: "fixture:mid_stream_failure", Input: userText("x")})
				for stream.Next() {
				}
				var apiErr *openai.Error
				if err := stream.Err(); err == nil {
					t.Fatal("a stream that failed midway must end with an error")
				} else if errors.As(err, &apiErr) && apiErr.StatusCode != 0 && apiErr.StatusCode != 200 {
					t.Fatalf("want an in-stream error, got HTTP %d", apiErr.StatusCode)
				}
			})
			for _, fc := range []struct {
				model, code string
				status      int
			}{
				{"status:400", "", 400}, {"status:401", "server_error", 502}, {"status:429", "rate_limit_exceeded", 503},
				{"status:500", "", 502}, {"status:timeout", "", 504},
			} {
				t.Run(fc.model, func(t *testing.T) {
					res, body := post(t, ts.URL+"/responses", `{"model":"`+fc.model+`","input":"x","stream":true}`)
					if res.StatusCode != fc.status || (fc.code != "" && gjson.GetBytes(body, "error.code").String() != fc.code) {
						t.Fatalf("got %d %s", res.StatusCode, body)
					}
					if fc.status == 503 && res.Header.Get("Retry-After") == "" {
						t.Error("a rate-limited upstream must give the client a Retry-After")
					}
					if strings.Contains(string(body), "Bearer") {
						t.Error("credentials leaked")
					}
					_, err := c.Responses.New(ctx, oresponses.ResponseNewParams{Model: fc.model, Input: userText("x")})
					var apiErr *openai.Error
					if !errors.As(err, &apiErr) || apiErr.StatusCode != fc.status {
						t.Fatalf("openai-go: %v", err)
					}
				})
			}
		})
	}
}

// A client that disconnects mid-stream cancels farebox's upstream request.
// The upstream holds its last frame back until its client leaves, so its
// request ending at all, cancelled, is the proof.
func TestClientDisconnectCancelsUpstream(t *testing.T) {
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	cfg := gateway.Config{Models: []gateway.ModelConfig{{Name: "slow", Upstream: "chat", UpstreamConfig: endpoint("chat", up.URL(), "echo+stall"), Price: "0"}}}
	ts := startServer(t, cfg, gateway.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// No schema-checking middleware here: it reads whole bodies.
	client := openai.NewClient(option.WithBaseURL(ts.URL+"/"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
	stream := client.Responses.NewStreaming(ctx, oresponses.ResponseNewParams{Model: "slow", Input: userText("a long answer that streams slowly")})
	rec, err := up.WaitRequest(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	first := make(chan struct{})
	go func() {
		var once sync.Once
		for stream.Next() {
			once.Do(func() { close(first) })
		}
	}()
	// The timers below guard against a hang; they measure nothing.
	select {
	case <-first: // the client is mid-answer
	case <-time.After(10 * time.Second):
		t.Fatal("no event reached the client")
	}
	cancel()
	select {
	case <-rec.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the upstream request never ended after the client left")
	}
	if !rec.Canceled() {
		t.Error("the upstream request was answered, not cancelled")
	}
}
