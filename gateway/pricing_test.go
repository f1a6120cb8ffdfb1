package gateway

import (
	"math"
	"testing"

	"github.com/farebox/farebox/responses"
)

func TestTokenPriceChargeRoundsUpAndCaps(t *testing.T) {
	tp, err := parseTokenPrice(&TokenPriceConfig{Input: "0.15", Output: "0.6", MaxPerCall: "0.01"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		in, out int64
		want    int64
	}{
		{0, 0, 0},
		{1, 0, 1},                             // 0.15 atomic rounds up to 1
		{1000, 1000, 750},                     // (1000*150000 + 1000*600000) / 1e6
		{6, 1, 2},                             // (900000 + 600000) / 1e6 = 1.5 -> 2
		{100_000, 100_000, 10000},             // 75000 capped at the ceiling
		{math.MaxInt64, math.MaxInt64, 10000}, // no overflow: big integers
		{-5, 3, 2},                            // a negative report counts as none: 1.8 -> 2
	}
	for _, c := range cases {
		if got := tp.Cost(responses.Usage{InputTokens: c.in, OutputTokens: c.out}); got.Int64() != c.want {
			t.Errorf("charge(%d in, %d out) = %s, want %d", c.in, c.out, got, c.want)
		}
	}
}

// Reasoning tokens are billed as output: inside output_tokens as OpenAI
// reports them, and at least reasoning_tokens when an upstream reports
// them apart (output_tokens smaller).
func TestTokenPriceChargesReasoningAsOutput(t *testing.T) {
	tp, err := parseTokenPrice(&TokenPriceConfig{Input: "0", Output: "1", MaxPerCall: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := tp.Cost(responses.Usage{OutputTokens: 1000, ReasoningTokens: 900}); got.Int64() != 1000 {
		t.Errorf("reasoning inside output: %s, want 1000", got)
	}
	if got := tp.Cost(responses.Usage{OutputTokens: 100, ReasoningTokens: 900}); got.Int64() != 900 {
		t.Errorf("reasoning reported apart: %s, want 900", got)
	}
}

func TestBoundOutputKeepsTheCeiling(t *testing.T) {
	tp, _ := parseTokenPrice(&TokenPriceConfig{Input: "1", Output: "10", MaxPerCall: "0.001"}) // 1000 atomic
	req := &responses.Request{}
	if err := tp.BoundOutput(req, 400); err != nil { // 100 input tokens: 100 atomic of 1000
		t.Fatal(err)
	}
	if req.MaxOutputTokens == nil || *req.MaxOutputTokens != 90 { // (1000e6 - 100e6) / 10e6
		t.Fatalf("bound %v, want 90", req.MaxOutputTokens)
	}
	if got := tp.Cost(responses.Usage{InputTokens: 100, OutputTokens: *req.MaxOutputTokens}); got.Int64() > 1000 {
		t.Errorf("the bounded call costs %s, over the ceiling", got)
	}
	low := int64(20)
	req.MaxOutputTokens = &low
	if err := tp.BoundOutput(req, 400); err != nil || *req.MaxOutputTokens != 20 {
		t.Errorf("a lower max_output_tokens must stay: %v %v", *req.MaxOutputTokens, err)
	}
	if err := tp.BoundOutput(&responses.Request{}, 4*990); err == nil { // 990 of 1000 atomic: under 16 tokens left
		t.Error("an input over the ceiling was not refused")
	}
}

// Cache writes are input tokens priced at cache_write (default: the input
// price): the spec's input_tokens_details.cache_write_tokens.
func TestTokenPriceChargesCacheWrites(t *testing.T) {
	tp, err := parseTokenPrice(&TokenPriceConfig{Input: "1", Output: "0", CacheWrite: "1.25", MaxPerCall: "1"})
	if err != nil {
		t.Fatal(err)
	}
	// 600 plain input tokens at 1 + 400 written at 1.25 per million atomic units.
	if got := tp.Cost(responses.Usage{InputTokens: 1000, CacheWriteTokens: 400}); got.Int64() != 1100 {
		t.Errorf("with cache writes: %s, want 1100", got)
	}
	// A report of more writes than input counts the input only.
	if got := tp.Cost(responses.Usage{InputTokens: 100, CacheWriteTokens: 400}); got.Int64() != 125 {
		t.Errorf("writes above input: %s, want 125", got)
	}
	def, err := parseTokenPrice(&TokenPriceConfig{Input: "1", Output: "0", MaxPerCall: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := def.Cost(responses.Usage{InputTokens: 1000, CacheWriteTokens: 400}); got.Int64() != 1000 {
		t.Errorf("default cache_write price: %s, want the input price (1000)", got)
	}
	if _, err := parseTokenPrice(&TokenPriceConfig{Input: "1", Output: "0", CacheWrite: "x", MaxPerCall: "1"}); err == nil {
		t.Error("a malformed cache_write price was accepted")
	}
}

// Cache reads are input tokens priced at cache_read (default: the input
// price), beside writes at cache_write: Anthropic's cache_read_input_tokens
// and cache_creation_input_tokens.
func TestTokenPriceChargesCacheReads(t *testing.T) {
	tp, err := parseTokenPrice(&TokenPriceConfig{Input: "3", Output: "15", CacheRead: "0.3", CacheWrite: "3.75", MaxPerCall: "1"})
	if err != nil {
		t.Fatal(err)
	}
	// 301 plain at 3, 5001 read at 0.3, 1200 written at 3.75, 41 out at 15:
	// 903 + 1500.3 + 4500 + 615, rounded up once.
	u := responses.Usage{InputTokens: 6502, CachedTokens: 5001, CacheWriteTokens: 1200, OutputTokens: 41}
	if got := tp.Cost(u); got.Int64() != 7519 {
		t.Errorf("with cache reads and writes: %s, want 7519", got)
	}
	// More cached than input: reads count first, then writes, never past the input.
	if got := tp.Cost(responses.Usage{InputTokens: 100, CachedTokens: 80, CacheWriteTokens: 400}); got.Int64() != 99 {
		t.Errorf("cache above input: %s, want 80*0.3 + 20*3.75 = 99", got)
	}
	def, err := parseTokenPrice(&TokenPriceConfig{Input: "1", Output: "0", MaxPerCall: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := def.Cost(responses.Usage{InputTokens: 1000, CachedTokens: 400}); got.Int64() != 1000 {
		t.Errorf("default cache_read price: %s, want the input price (1000)", got)
	}
	if _, err := parseTokenPrice(&TokenPriceConfig{Input: "1", Output: "0", CacheRead: "x", MaxPerCall: "1"}); err == nil {
		t.Error("a malformed cache_read price was accepted")
	}
}
