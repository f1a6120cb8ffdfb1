package gateway_test

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeanthropic"
	"github.com/farebox/farebox/upstream"
	upanthropic "github.com/farebox/farebox/upstream/anthropic"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3/option"
	"github.com/tidwall/gjson"
)

// Claude behind farebox: an `upstream: anthropic` model (the fake
// Anthropic server, itself held to the official SDK) reached from every
// client wire, its thinking signatures kept byte for byte across turns.

const claude = "claude-sonnet-4-20250514"

func anthropicModel(fake *fakeanthropic.Server, behaviour, price string) gateway.ModelConfig {
	return gateway.ModelConfig{Name: claude, Upstream: upanthropic.Kind, Price: price,
		UpstreamConfig: &upanthropic.Settings{
			Endpoint: upstream.Endpoint{BaseURL: fake.URL(), UpstreamModel: behaviour, APIKeyEnv: "ANTHROPIC_API_KEY"},
			Thinking: upanthropic.ThinkingSettings{Mode: "enabled"}}}
}

func anthropicEnv(k string) string { return map[string]string{"ANTHROPIC_API_KEY": "sk-ant-test"}[k] }

// A Claude client (the official SDK on /v1/messages) through farebox to
// a Claude upstream: three turns of tool calls with thinking, each turn's
// signed thinking block sent back as it came, so the upstream (which
// verifies each signature) accepts the conversation; an altered signature
// is Anthropic's own 400, in Anthropic's shape.
func TestThinkingSignaturesSurviveEveryTurn(t *testing.T) {
	fake := fakeanthropic.Start(fakeanthropic.Options{APIKey: "sk-ant-test"})
	defer fake.Close()
	ts := startServer(t, gateway.Config{Models: []gateway.ModelConfig{anthropicModel(fake, "call+rounds=2", "0")}},
		gateway.Options{Getenv: anthropicEnv})
	c := anthropicClient(ts, nil)
	ctx := context.Background()
	schema := anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]string{"type": "string"}}}
	params := anthropic.MessageNewParams{Model: claude, MaxTokens: 4096,
		Thinking: anthropic.ThinkingConfigParamOfEnabled(2048),
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is the weather in Paris?"))},
		Tools:    []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather", InputSchema: schema}}}}
	var signatures []string
	for turn := 1; turn <= 3; turn++ {
		msg, err := c.Messages.New(ctx, params)
		if err != nil {
			t.Fatalf("turn %d: %v", turn, err)
		}
		if len(msg.Content) == 0 || msg.Content[0].Type != "thinking" || msg.Content[0].Signature == "" {
			t.Fatalf("turn %d without a signed thinking block: %s", turn, msg.RawJSON())
		}
		signatures = append(signatures, msg.Content[0].Signature)
		if turn == 3 {
			if msg.StopReason != anthropic.StopReasonEndTurn {
				t.Fatalf("turn 3: %s", msg.RawJSON())
			}
			break
		}
		var results []anthropic.ContentBlockParamUnion
		for _, b := range msg.Content {
			if b.Type == "tool_use" {
				results = append(results, anthropic.NewToolResultBlock(b.ID, "sunny", false))
			}
		}
		if msg.StopReason != anthropic.StopReasonToolUse || len(results) == 0 {
			t.Fatalf("turn %d: %s", turn, msg.RawJSON())
		}
		params.Messages = append(params.Messages, msg.ToParam(), anthropic.NewUserMessage(results...))
	}
	// What reached Anthropic on the last turn carries both earlier
	// signatures exactly as Anthropic gave them.
	last := lastBody(t, fake)
	for i, sig := range signatures[:2] {
		if !strings.Contains(last, `"signature":"`+sig+`"`) {
			t.Errorf("signature %d did not go back verbatim: %s", i+1, last)
		}
	}

	// An altered signature is refused by the upstream, and the client
	// hears Anthropic's 400.
	params.Messages[1].OfAssistant.Content[0].OfThinking.Signature = "x" + signatures[0]
	_, err := c.Messages.New(ctx, params)
	var apiErr *anthropic.Error
	if !asError(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || gjson.Get(apiErr.RawJSON(), "type").Str != "error" {
		t.Errorf("altered signature: %v", err)
	}
}

// The Responses wire's reasoning round trip over a Claude upstream: the
// reasoning item's encrypted_content carries Anthropic's signature, and
// sending the item back sends Anthropic the thinking block with the same
// signature.
func TestResponsesReasoningCarriesAnthropicsSignature(t *testing.T) {
	fake := fakeanthropic.Start(fakeanthropic.Options{APIKey: "sk-ant-test"})
	defer fake.Close()
	ts := startServer(t, gateway.Config{Models: []gateway.ModelConfig{anthropicModel(fake, "call", "0")}},
		gateway.Options{Getenv: anthropicEnv})
	tools := `"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}]`
	first := `{"model":"` + claude + `","reasoning":{"effort":"low"},"include":["reasoning.encrypted_content"],` + tools +
		`,"input":"What is the weather in Paris?"}`
	res, body := post(t, ts.URL+"/responses", first)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	output := gjson.GetBytes(body, "output")
	reasoning := output.Get(`#(type=="reasoning")`)
	call := output.Get(`#(type=="function_call")`)
	enc := reasoning.Get("encrypted_content").Str
	sig, ok := strings.CutPrefix(enc, "anthropic.thinking:")
	if !ok || sig == "" || !call.Exists() {
		t.Fatalf("no signed reasoning item and call: %s", output.Raw)
	}
	second := `{"model":"` + claude + `","reasoning":{"effort":"low"},"include":["reasoning.encrypted_content"],` + tools +
		`,"input":[{"role":"user","content":"What is the weather in Paris?"},` + reasoning.Raw + `,` + call.Raw +
		`,{"type":"function_call_output","call_id":"` + call.Get("call_id").Str + `","output":"sunny"}]}`
	res, body = post(t, ts.URL+"/responses", second)
	if res.StatusCode != http.StatusOK || gjson.GetBytes(body, "status").Str != "completed" {
		t.Fatalf("second turn: %d %s", res.StatusCode, body)
	}
	if !strings.Contains(lastBody(t, fake), `"signature":"`+sig+`"`) {
		t.Errorf("the thinking block went back without its signature: %s", lastBody(t, fake))
	}
}

// The seeds' conversation (a get_weather tool in Chat Completions' nested
// function form, model claude-sonnet-4-20250514, the call and its output
// sent back with the whole history) through a Claude upstream, paid per
// turn: the payer's balance falls by exactly the price per turn.
func TestSeedConversationThroughClaudePaidPerTurn(t *testing.T) {
	fake := fakeanthropic.Start(fakeanthropic.Options{APIKey: "sk-ant-test"})
	defer fake.Close()
	c := devChain(t)
	cfg := paidConfig(c, "after")
	cfg.Models = append(cfg.Models, anthropicModel(fake, "call", price))
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready, Getenv: anthropicEnv})
	var settled []*payer.Settlement
	tr, payerAddr := payingTransport(t, 10*atomics, &settled)
	before := tokenBalance(t, c, payerAddr)
	chatRoundTrip(t, ts.client(t, option.WithHTTPClient(&http.Client{Transport: tr})), claude)
	if len(settled) != 2 {
		t.Fatalf("%d settlements for 2 turns", len(settled))
	}
	spent := new(big.Int).Sub(before, tokenBalance(t, c, payerAddr))
	if want := big.NewInt(2 * atomics); spent.Cmp(want) != 0 {
		t.Errorf("the payer paid %s for 2 turns at %d", spent, atomics)
	}
}

// lastBody is the body of the latest request the fake received.
func lastBody(t testing.TB, fake *fakeanthropic.Server) string {
	t.Helper()
	r, err := fake.Last()
	if err != nil {
		t.Fatal(err)
	}
	return string(r.Body)
}
