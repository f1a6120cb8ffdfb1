package gateway_test

import (
	"context"
	"math/big"
	"net/http"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeanthropic"
	"github.com/farebox/farebox/upstream"
	upanthropic "github.com/farebox/farebox/upstream/anthropic"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/farebox/farebox/x402/upto"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// Prompt caching priced exactly: a Claude upstream with caching on
// reports cache reads and writes, every client wire shows them in its own
// usage fields, and the payer (upto, so the charge is the use, not the
// ceiling) pays input, cache reads, cache writes and output each at its
// own price, as the chain shows.

const cachedClaude = "claude-cached"

// The fake's figures: Anthropic's input_tokens is the uncached part.
var cacheUsage = fakeanthropic.Usage{InputTokens: 301, CacheReadTokens: 5001, CacheWriteTokens: 1200, OutputTokens: 41}

// Per million tokens in atomic units: 3, 0.30, 3.75 and 15 USDC.
const (
	cachedInP, cachedReadP, cachedWriteP, cachedOutP = 3_000_000, 300_000, 3_750_000, 15_000_000
)

// cacheCharge is ceil((in*Pin + read*Pcr + write*Pcw + out*Pout) / 1e6):
// 903 + 1500.3 + 4500 + 615 = 7518.3, so 7519 atomic units.
func cacheCharge() int64 {
	u := cacheUsage
	sum := u.InputTokens*cachedInP + u.CacheReadTokens*cachedReadP + u.CacheWriteTokens*cachedWriteP + u.OutputTokens*cachedOutP
	return (sum + 999_999) / 1_000_000
}

func TestCacheReadsAndWritesArePricedExactly(t *testing.T) {
	fake := fakeanthropic.Start(fakeanthropic.Options{APIKey: "sk-ant-test", Usage: cacheUsage})
	defer fake.Close()
	cfg, opts, c := meteredConfig(t, nil)
	cfg.Models = append(cfg.Models, gateway.ModelConfig{Name: cachedClaude, Upstream: upanthropic.Kind,
		PricePerMTok: &gateway.TokenPriceConfig{Input: "3", CacheRead: "0.30", CacheWrite: "3.75", Output: "15", MaxPerCall: "0.05"},
		UpstreamConfig: &upanthropic.Settings{Caching: true,
			Endpoint: upstream.Endpoint{BaseURL: fake.URL(), UpstreamModel: "claude-sonnet-4-5", APIKeyEnv: "ANTHROPIC_API_KEY"}}})
	opts.Getenv = anthropicEnv
	ts := startServer(t, cfg, opts)

	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	key := freshPayer(t, c, 1_000_000, false)
	before := tokenBalance(t, c, addressOf(key))
	var mu sync.Mutex
	var settled []*payer.Settlement
	tr := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithChain(c.Client),
		payer.WithSchemes(upto.Scheme), payer.WithPayTo(common.HexToAddress(payTo)),
		payer.OnSettlement(func(s *payer.Settlement) { mu.Lock(); settled = append(settled, s); mu.Unlock() }))
	oc := ts.client(t, option.WithHTTPClient(&http.Client{Transport: tr}))
	ctx := context.Background()
	total := cacheUsage.InputTokens + cacheUsage.CacheReadTokens + cacheUsage.CacheWriteTokens

	res, err := oc.Responses.New(ctx, oresponses.ResponseNewParams{Model: cachedClaude, Instructions: openai.String("You are terse."),
		Input: userText("hello")})
	if err != nil {
		t.Fatal(err)
	}
	if u := res.Usage; u.InputTokens != total || u.InputTokensDetails.CachedTokens != cacheUsage.CacheReadTokens ||
		gjson.Get(u.RawJSON(), "input_tokens_details.cache_write_tokens").Int() != cacheUsage.CacheWriteTokens || u.OutputTokens != cacheUsage.OutputTokens {
		t.Errorf("responses usage: %s", u.RawJSON())
	}

	chat, err := oc.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: cachedClaude,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage("You are terse."), openai.UserMessage("hello")}})
	if err != nil {
		t.Fatal(err)
	}
	if u := chat.Usage; u.PromptTokens != total || u.PromptTokensDetails.CachedTokens != cacheUsage.CacheReadTokens ||
		u.CompletionTokens != cacheUsage.OutputTokens {
		t.Errorf("chat usage: %s", u.RawJSON())
	}

	ac := anthropicClient(ts, tr)
	st := ac.Messages.NewStreaming(ctx, anthropic.MessageNewParams{Model: cachedClaude, MaxTokens: 1024,
		System:   []anthropic.TextBlockParam{{Text: "You are terse."}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hello"))}})
	msg := anthropic.Message{}
	for st.Next() {
		if err := msg.Accumulate(st.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if u := msg.Usage; u.InputTokens != cacheUsage.InputTokens || u.CacheReadInputTokens != cacheUsage.CacheReadTokens ||
		u.CacheCreationInputTokens != cacheUsage.CacheWriteTokens || u.OutputTokens != cacheUsage.OutputTokens {
		t.Errorf("messages usage: %s", u.RawJSON())
	}

	want := cacheCharge()
	mu.Lock()
	defer mu.Unlock()
	if len(settled) != 3 {
		t.Fatalf("%d settlements for 3 calls", len(settled))
	}
	for i, s := range settled {
		if s.Scheme != upto.Scheme || s.Charged == nil || s.Charged.Int64() != want {
			t.Errorf("call %d: settlement %+v, want upto charging %d", i+1, s, want)
		}
	}
	spent := new(big.Int).Sub(before, tokenBalance(t, c, addressOf(key)))
	if spent.Int64() != 3*want {
		t.Errorf("the payer spent %s for 3 calls at %d", spent, want)
	}
}
