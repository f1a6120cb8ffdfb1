package main

import (
	"flag"
	"fmt"
	"math/big"
	"strings"

	"github.com/farebox/farebox/gateway"
	upanthropic "github.com/farebox/farebox/upstream/anthropic"
	"github.com/farebox/farebox/x402"
)

const (
	anthropicKind = upanthropic.Kind
	defaultClaude = "claude-sonnet-4-5"
)

// detectUpstream fills what the operator left out from the upstream's
// host: the kind, the key's variable and the model, so that
// `farebox init --upstream URL --pay-to ADDR` is enough for OpenAI and
// Anthropic alike.
func detectUpstream(host, kind, keyEnv, model string) (string, string, string) {
	if kind == "" {
		switch host {
		case "api.openai.com":
			kind = "openai"
		case "api.anthropic.com":
			kind = anthropicKind
		default:
			kind = "chat"
		}
	}
	if keyEnv == "" {
		switch host {
		case "api.openai.com":
			keyEnv = "OPENAI_API_KEY"
		case "api.anthropic.com":
			keyEnv = "ANTHROPIC_API_KEY"
		}
	}
	if model == "" {
		model = "gpt-4.1-mini"
		if kind == anthropicKind {
			model = defaultClaude
		}
	}
	return kind, keyEnv, model
}

// claudePrices are Anthropic's list prices in USDC per million input and
// output tokens; a cache read is a tenth of the input price and a
// five-minute cache write a quarter more, as Anthropic bills them.
var claudePrices = map[string][2]string{
	"claude-haiku-4-5":  {"1", "5"},
	"claude-sonnet-4-5": {"3", "15"},
	"claude-opus-4-5":   {"5", "25"},
}

// Limits of an init'd Claude model: the most one call may send and ask
// for, which with the prices above sets the ceiling of a call.
const (
	claudeMaxInput  = 32768
	claudeMaxOutput = 4096
)

// priceAnthropic makes mc (written by initConfig for an anthropic
// upstream) a Claude model: upstream_model named, prompt caching on, and,
// when perToken, priced per token at the model's list prices (Sonnet's
// for a model not listed), with a ceiling that pays for the largest call
// its limits let through, cache writes included.
func priceAnthropic(mc *gateway.ModelConfig, model string, perToken bool) {
	if s, ok := mc.UpstreamConfig.(*upanthropic.Settings); ok {
		s.UpstreamModel = model
		s.Caching = true
	}
	if !perToken {
		return
	}
	p, ok := claudePrices[model]
	if !ok {
		p = claudePrices[defaultClaude]
	}
	in, _ := x402.ParseUSDC(p[0])
	out, _ := x402.ParseUSDC(p[1])
	read := new(big.Int).Quo(in, big.NewInt(10))
	write := new(big.Int).Quo(new(big.Int).Mul(in, big.NewInt(5)), big.NewInt(4))
	// The dearest input is all written to the cache; round the ceiling up
	// to a cent.
	most := new(big.Int).Add(new(big.Int).Mul(write, big.NewInt(claudeMaxInput)), new(big.Int).Mul(out, big.NewInt(claudeMaxOutput)))
	most.Quo(most, big.NewInt(1_000_000))
	cent := big.NewInt(10_000)
	most.Add(most, new(big.Int).Sub(cent, big.NewInt(1)))
	most.Quo(most, cent).Mul(most, cent)
	mc.Price = ""
	mc.PricePerMTok = &gateway.TokenPriceConfig{Input: p[0], Output: p[1], CacheRead: x402.FormatUSDC(read),
		CacheWrite: x402.FormatUSDC(write), MaxPerCall: x402.FormatUSDC(most)}
	mc.Limits = &gateway.ModelLimits{MaxInputTokens: claudeMaxInput, MaxOutputTokens: claudeMaxOutput}
}

// tokenPriceLine says a per-token price as init's summary does.
func tokenPriceLine(tp *gateway.TokenPriceConfig) string {
	return fmt.Sprintf("%s/%s USDC per million input/output tokens (cache read %s, write %s; at most %s a call: Anthropic's list prices, add your margin)",
		tp.Input, tp.Output, tp.CacheRead, tp.CacheWrite, tp.MaxPerCall)
}

// given reports whether the flag was set on the command line.
func (fs *cmdFlags) given(name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || strings.EqualFold(f.Name, name) })
	return set
}
