package gateway_test

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
	"github.com/tidwall/gjson"
)

// The Chat Completions and Messages wires are adapters of the same paid
// call as Responses: the official SDKs talk to them unmodified, tool calls
// round-trip with the ids they were given, and a paid call costs the
// payer exactly the price on chain, whatever the wire.

func weatherFunction() shared.FunctionDefinitionParam {
	return shared.FunctionDefinitionParam{Name: "get_weather", Parameters: shared.FunctionParameters{
		"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"}}}
}

// chatRoundTrip runs one tool round trip on Chat Completions: the scripted
// model calls get_weather (named in the message), the client answers the
// call by its id, and the model quotes the output.
func chatRoundTrip(t *testing.T, c *openai.Client, model string) {
	t.Helper()
	ctx := context.Background()
	params := openai.ChatCompletionNewParams{Model: model,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("please call get_weather")},
		Tools:    []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(weatherFunction())}}
	first, err := c.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.Choices) != 1 || first.Choices[0].FinishReason != "tool_calls" || len(first.Choices[0].Message.ToolCalls) != 1 {
		t.Fatalf("first answer: %s", first.RawJSON())
	}
	call := first.Choices[0].Message.ToolCalls[0]
	if call.Function.Name != "get_weather" || !gjson.Valid(call.Function.Arguments) || call.ID == "" {
		t.Fatalf("tool call: %s", call.RawJSON())
	}
	params.Messages = append(params.Messages, first.Choices[0].Message.ToParam(), openai.ToolMessage("sunny in Paris", call.ID))
	stream := c.Chat.Completions.NewStreaming(ctx, params)
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if len(acc.Choices) != 1 || !strings.Contains(acc.Choices[0].Message.Content, "sunny in Paris") || acc.Choices[0].FinishReason != "stop" {
		t.Fatalf("second answer: %s", acc.RawJSON())
	}
}

func TestChatCompletionsWithTheOpenAISDK(t *testing.T) {
	ts := startServer(t, freeConfig(), gateway.Options{})
	chatRoundTrip(t, ts.client(t), "farebox-scripted-free")

	// Usage comes in its own chunk when asked for.
	ctx := context.Background()
	stream := ts.client(t).Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: "farebox-scripted-free",
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hello there")},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}})
	acc := openai.ChatCompletionAccumulator{}
	for stream.Next() {
		acc.AddChunk(stream.Current())
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if acc.Usage.CompletionTokens == 0 || acc.Usage.TotalTokens != acc.Usage.PromptTokens+acc.Usage.CompletionTokens {
		t.Errorf("usage: %s", acc.Usage.RawJSON())
	}

	// n other than 1 is refused in OpenAI's shape, before anything runs.
	_, err := ts.client(t).Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "farebox-scripted-free",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}, N: openai.Int(2)})
	var apiErr *openai.Error
	if !asError(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || apiErr.Param != "n" {
		t.Errorf("n=2: %v", err)
	}
}

func asError[T error](err error, target *T) bool {
	if e, ok := err.(T); ok {
		*target = e
		return true
	}
	type unwrapper interface{ Unwrap() error }
	if u, ok := err.(unwrapper); ok {
		return asError(u.Unwrap(), target)
	}
	return false
}

// anthropicClient is the official Anthropic SDK pointed at ts (its base
// URL is the origin: it adds /v1 itself), over transport when not nil.
func anthropicClient(ts *testServer, transport http.RoundTripper) anthropic.Client {
	opts := []aoption.RequestOption{aoption.WithBaseURL(strings.TrimSuffix(ts.URL, "/v1")),
		aoption.WithAPIKey("sk-ant-unused"), aoption.WithMaxRetries(0)}
	if transport != nil {
		opts = append(opts, aoption.WithHTTPClient(&http.Client{Transport: transport}))
	}
	return anthropic.NewClient(opts...)
}

// messagesRoundTrip runs one tool round trip on Messages, the first turn
// whole, the second streamed through the SDK's accumulator.
func messagesRoundTrip(t *testing.T, c anthropic.Client, model string) {
	t.Helper()
	ctx := context.Background()
	schema := anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]string{"type": "string"}}, Required: []string{"city"}}
	params := anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 1024,
		System:   []anthropic.TextBlockParam{{Text: "You are terse."}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("please call get_weather"))},
		Tools:    []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather", InputSchema: schema}}}}
	first, err := c.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if first.StopReason != anthropic.StopReasonToolUse || len(first.Content) != 1 || first.Content[0].Type != "tool_use" {
		t.Fatalf("first answer: %s", first.RawJSON())
	}
	use := first.Content[0]
	if use.Name != "get_weather" || use.ID == "" || !gjson.ValidBytes(use.Input) {
		t.Fatalf("tool_use: %s", use.RawJSON())
	}
	params.Messages = append(params.Messages, first.ToParam(),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock(use.ID, "sunny in Paris", false)))
	st := c.Messages.NewStreaming(ctx, params)
	msg := anthropic.Message{}
	for st.Next() {
		if err := msg.Accumulate(st.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if msg.StopReason != anthropic.StopReasonEndTurn || len(msg.Content) != 1 || !strings.Contains(msg.Content[0].Text, "sunny in Paris") {
		t.Fatalf("second answer: %s", msg.RawJSON())
	}
	if msg.Usage.OutputTokens == 0 {
		t.Errorf("usage: %s", msg.Usage.RawJSON())
	}
}

func TestMessagesWithTheAnthropicSDK(t *testing.T) {
	ts := startServer(t, freeConfig(), gateway.Options{})
	c := anthropicClient(ts, nil)
	messagesRoundTrip(t, c, "farebox-scripted-free")

	ctx := context.Background()
	count, err := c.Messages.CountTokens(ctx, anthropic.MessageCountTokensParams{Model: "farebox-scripted-free",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hello there"))}})
	if err != nil || count.InputTokens <= 0 {
		t.Errorf("count_tokens: %v %v", count, err)
	}
	page, err := c.Models.List(ctx, anthropic.ModelListParams{})
	if err != nil || len(page.Data) != 1 || page.Data[0].ID != "farebox-scripted-free" {
		t.Errorf("models: %v %v", page, err)
	}
	// An unknown model and a missing max_tokens are Anthropic errors.
	_, err = c.Messages.New(ctx, anthropic.MessageNewParams{Model: "no-such-model", MaxTokens: 16,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
	var apiErr *anthropic.Error
	if !asError(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound || gjson.Get(apiErr.RawJSON(), "error.type").Str != "not_found_error" {
		t.Errorf("unknown model: %v", err)
	}
	res, body := post(t, ts.URL+"/messages", `{"model":"farebox-scripted-free","messages":[{"role":"user","content":"hi"}]}`,
		"anthropic-version", "2023-06-01")
	if res.StatusCode != http.StatusBadRequest || gjson.GetBytes(body, "type").Str != "error" ||
		gjson.GetBytes(body, "error.type").Str != "invalid_request_error" {
		t.Errorf("missing max_tokens: %d %s", res.StatusCode, body)
	}
}

// payingTransport is the paying client's transport with a payer of its
// own, funded with funds (so that balances tell its calls only); each
// settlement it learns of (from a receipt header, or in-band at the end
// of a stream) is appended to settled.
func payingTransport(t testing.TB, funds int64, settled *[]*payer.Settlement) (http.RoundTripper, common.Address) {
	c := devChain(t)
	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	if err := c.Fund(context.Background(), addr, big.NewInt(funds)); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	return payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg),
		payer.WithPayTo(common.HexToAddress(payTo)),
		payer.OnSettlement(func(s *payer.Settlement) { mu.Lock(); *settled = append(*settled, s); mu.Unlock() })), addr
}

// Each wire's paid call: without a payment a 402 in the wire's own error
// shape carrying x402's offer; with the paying transport every call is
// settled, and the payer's balance falls by exactly the price per call.
func TestEveryWirePaysThePriceOnChain(t *testing.T) {
	ts, c := startPaid(t, "after")

	res, body := post(t, ts.URL+"/messages", `{"model":"`+paid+`","max_tokens":64,"messages":[{"role":"user","content":"hi"}]}`,
		"anthropic-version", "2023-06-01")
	if res.StatusCode != http.StatusPaymentRequired || res.Header.Get(x402.HeaderPaymentRequired) == "" ||
		gjson.GetBytes(body, "type").Str != "error" || !gjson.GetBytes(body, "accepts").IsArray() {
		t.Errorf("messages without payment: %d %s", res.StatusCode, body)
	}
	res, body = post(t, ts.URL+"/chat/completions", `{"model":"`+paid+`","messages":[{"role":"user","content":"hi"}]}`)
	if res.StatusCode != http.StatusPaymentRequired || res.Header.Get(x402.HeaderPaymentRequired) == "" ||
		gjson.GetBytes(body, "error.code").Str != "payment_required" {
		t.Errorf("chat without payment: %d %s", res.StatusCode, body)
	}

	var settled []*payer.Settlement
	tr, payerAddr := payingTransport(t, 10*atomics, &settled)
	before := tokenBalance(t, c, payerAddr)
	chatRoundTrip(t, ts.client(t, option.WithHTTPClient(&http.Client{Transport: tr})), paid)
	messagesRoundTrip(t, anthropicClient(ts, tr), paid)
	if len(settled) != 4 {
		t.Fatalf("%d settlements for 4 calls", len(settled))
	}
	settledBalances(t, c)
	for _, s := range settled {
		// Streams too: their receipt came in-band, in the wire's last chunk.
		if !strings.EqualFold(s.Payer, payerAddr.Hex()) || s.Network != c.Network.CAIP2 {
			t.Errorf("settlement %+v", s)
		}
		rec, err := c.Client.TransactionReceipt(context.Background(), common.HexToHash(s.Transaction))
		if err != nil || rec.Status != 1 {
			t.Errorf("transaction %q: %v %+v", s.Transaction, err, rec)
		}
	}
	spent := new(big.Int).Sub(before, tokenBalance(t, c, payerAddr))
	if want := big.NewInt(4 * atomics); spent.Cmp(want) != 0 {
		t.Errorf("the payer paid %s for 4 calls at %d", spent, atomics)
	}
}
