package gateway_test

import (
	"bytes"
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeanthropic"
	"github.com/farebox/farebox/internal/testkit/fakegemini"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/upstream"
	upanthropic "github.com/farebox/farebox/upstream/anthropic"
	upgemini "github.com/farebox/farebox/upstream/gemini"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// An Anthropic, an OpenAI and a Gemini supplier of one model in a pool
// fail over to each other before the first byte: Anthropic's 529
// (overloaded) moves the call to the OpenAI supplier or to Gemini, an
// OpenAI 500 moves it to Claude, Gemini's 503 to Claude; every call is
// charged once (chain-judged), and a reasoning item Anthropic signed never
// reaches the OpenAI or the Gemini supplier.
func TestMixedProviderPoolFailsOverAndChargesOnce(t *testing.T) {
	c := devChain(t)
	claudeFake := fakeanthropic.Start(fakeanthropic.Options{APIKey: "sk-ant-test"})
	defer claudeFake.Close()
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	geminiFake := fakegemini.Start(fakegemini.Options{APIKey: "gm-test"})
	defer geminiFake.Close()
	geminiSupplier := func(behaviour string) gateway.SupplierConfig {
		return gateway.SupplierConfig{Name: "gemini", Upstream: upgemini.Kind, UpstreamConfig: &upgemini.Settings{
			Endpoint: upstream.Endpoint{BaseURL: geminiFake.URL(), UpstreamModel: behaviour, APIKeyEnv: "GEMINI_API_KEY"}}}
	}
	env := func(k string) string { return anthropicEnv(k) + geminiEnv(k) }
	claudeSupplier := func(behaviour string) gateway.SupplierConfig {
		return gateway.SupplierConfig{Name: "claude", Upstream: upanthropic.Kind, UpstreamConfig: &upanthropic.Settings{
			Endpoint: upstream.Endpoint{BaseURL: claudeFake.URL(), UpstreamModel: behaviour, APIKeyEnv: "ANTHROPIC_API_KEY"}}}
	}
	openaiSupplier := func(model string) gateway.SupplierConfig {
		return gateway.SupplierConfig{Name: "openai", Upstream: "openai", UpstreamConfig: endpoint("openai", up.URL(), model)}
	}
	for _, tc := range []struct {
		name      string
		suppliers []gateway.SupplierConfig
		answer    string
		foreign   bool // the conversation carries a reasoning item Claude signed
	}{
		{"claude 529 to openai", []gateway.SupplierConfig{claudeSupplier("status:529"), openaiSupplier("echo+mixed")}, "pooled hello", true},
		{"openai 500 to claude", []gateway.SupplierConfig{openaiSupplier("status:500"), claudeSupplier("text")}, fakeanthropic.DefaultText, false},
		{"claude 529 to gemini", []gateway.SupplierConfig{claudeSupplier("status:529"), geminiSupplier("text")}, fakegemini.DefaultText, true},
		{"gemini 503 to claude", []gateway.SupplierConfig{geminiSupplier("status:503"), claudeSupplier("text")}, fakeanthropic.DefaultText, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
			if err != nil {
				t.Fatal(err)
			}
			cfg := paidConfig(c, "after")
			cfg.Models = []gateway.ModelConfig{{Name: pooled, Price: price, Suppliers: tc.suppliers,
				Routing: gateway.RoutingConfig{Strategy: "ordered", Circuit: gateway.CircuitConfig{Failures: 100, Cooldown: gateway.Duration(time.Hour)}}}}
			ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready, Getenv: env})
			var settled []*payer.Settlement
			tr, payerAddr := payingTransport(t, 10*atomics, &settled)
			before := tokenBalance(t, c, payerAddr)
			cl := ts.client(t, option.WithHTTPClient(&http.Client{Transport: tr}))
			// A reasoning item Claude signed, from an earlier turn.
			foreign := oresponses.ResponseInputItemUnionParam{OfReasoning: &oresponses.ResponseReasoningItemParam{ID: "rs_1",
				EncryptedContent: openai.String("anthropic.thinking:c2lnbmVk"), Summary: []oresponses.ResponseReasoningItemSummaryParam{}}}
			const calls = 3
			for i := range calls {
				items := oresponses.ResponseInputParam{oresponses.ResponseInputItemParamOfMessage("pooled hello", oresponses.EasyInputMessageRoleUser)}
				if tc.foreign {
					items = append(oresponses.ResponseInputParam{foreign}, items...)
				}
				input := oresponses.ResponseNewParamsInputUnion{OfInputItemList: items}
				params := oresponses.ResponseNewParams{Model: pooled, Input: input}
				var text string
				if i%2 == 0 {
					res, err := cl.Responses.New(context.Background(), params)
					if err != nil {
						t.Fatalf("call %d: %v", i, err)
					}
					text = res.OutputText()
				} else {
					stream := cl.Responses.NewStreaming(context.Background(), params)
					for stream.Next() {
						if ev := stream.Current(); ev.Type == "response.completed" {
							text = ev.Response.OutputText()
						}
					}
					if err := stream.Err(); err != nil {
						t.Fatalf("stream %d: %v", i, err)
					}
				}
				if !strings.Contains(text, tc.answer) {
					t.Fatalf("call %d answered %q, want the second supplier's %q", i, text, tc.answer)
				}
			}
			if len(settled) != calls {
				t.Errorf("%d settlements for %d calls", len(settled), calls)
			}
			if spent := new(big.Int).Sub(before, tokenBalance(t, c, payerAddr)); spent.Cmp(big.NewInt(calls*atomics)) != 0 {
				t.Errorf("the payer paid %s for %d calls at %d", spent, calls, atomics)
			}
			for _, r := range up.Records() {
				if bytes.Contains(r.Body, []byte("anthropic.thinking:")) || gjson.GetBytes(r.Body, `input.#(type=="reasoning")`).Exists() {
					t.Errorf("the OpenAI supplier was sent Claude's reasoning: %s", r.Body)
				}
			}
			for _, r := range geminiFake.Records() {
				if bytes.Contains(r.Body, []byte("c2lnbmVk")) || bytes.Contains(r.Body, []byte("anthropic.")) {
					t.Errorf("the Gemini supplier was sent Claude's reasoning: %s", r.Body)
				}
			}
		})
	}
}
