package gateway

import (
	"fmt"
	"math/big"

	"github.com/farebox/farebox/charge"
	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
)

// TokenPriceConfig is a per-token price (models[].price_per_mtok): USDC per
// million input and output tokens, and the most one call may cost, which
// is what the 402 asks for.
type TokenPriceConfig struct {
	// Input is USDC per million input tokens ("0.15").
	Input string `yaml:"input"`
	// Output is USDC per million output tokens ("0.60"); reasoning tokens
	// are output tokens.
	Output string `yaml:"output"`
	// CacheRead is USDC per million input tokens the upstream read from its
	// prompt cache (input_tokens_details.cached_tokens, Anthropic's
	// cache_read_input_tokens); default: Input, so a price written before
	// cache reads were priced charges what it did.
	CacheRead string `yaml:"cache_read"`
	// CacheWrite is USDC per million input tokens the upstream wrote to its
	// prompt cache (input_tokens_details.cache_write_tokens); default: Input.
	CacheWrite string `yaml:"cache_write"`
	// MaxPerCall is the ceiling of one call in USDC ("0.05"): the amount
	// every scheme's 402 asks for, and what the exact scheme charges.
	MaxPerCall string `yaml:"max_per_call"`
}

// tokenPrice is a parsed per-token price, in atomic units (6 decimals).
type tokenPrice struct {
	input, output, cacheRead, cacheWrite *big.Int // atomic units per million tokens
	ceiling                              *big.Int // atomic units per call
}

var million = big.NewInt(1_000_000)

// parseTokenPrice validates a price_per_mtok block.
func parseTokenPrice(c *TokenPriceConfig) (*tokenPrice, error) {
	field := func(name, v string) (*big.Int, error) {
		if v == "" {
			return nil, fmt.Errorf("price_per_mtok.%s is required (USDC, e.g. \"0.15\")", name)
		}
		a, err := x402.ParseUSDC(v)
		if err != nil {
			return nil, fmt.Errorf("price_per_mtok.%s: %w", name, err)
		}
		return a, nil
	}
	tp := &tokenPrice{}
	var err error
	if tp.input, err = field("input", c.Input); err != nil {
		return nil, err
	}
	if tp.output, err = field("output", c.Output); err != nil {
		return nil, err
	}
	if tp.ceiling, err = field("max_per_call", c.MaxPerCall); err != nil {
		return nil, err
	}
	tp.cacheRead, tp.cacheWrite = tp.input, tp.input
	if c.CacheRead != "" {
		if tp.cacheRead, err = field("cache_read", c.CacheRead); err != nil {
			return nil, err
		}
	}
	if c.CacheWrite != "" {
		if tp.cacheWrite, err = field("cache_write", c.CacheWrite); err != nil {
			return nil, err
		}
	}
	switch {
	case tp.ceiling.Sign() == 0:
		return nil, fmt.Errorf("price_per_mtok.max_per_call must be more than 0 (a free model has no price)")
	case tp.input.Sign() == 0 && tp.output.Sign() == 0:
		return nil, fmt.Errorf("price_per_mtok: input and output are both 0 (a free model has no price)")
	}
	return tp, nil
}

// Cost is what a call with this usage costs: ceil((in*input +
// cacheRead*cache_read + cacheWrite*cache_write + out*output) / 1e6)
// atomic units, capped at the ceiling, where in excludes the cache reads
// and writes (they are input tokens). A report of more cached tokens than
// input counts the input only: reads first, then writes.
func (tp *tokenPrice) Cost(u responses.Usage) *big.Int {
	in := max(u.InputTokens, 0)
	read := min(max(u.CachedTokens, 0), in)
	written := min(max(u.CacheWriteTokens, 0), in-read)
	sum := new(big.Int).Mul(big.NewInt(in-read-written), tp.input)
	sum.Add(sum, new(big.Int).Mul(big.NewInt(read), tp.cacheRead))
	sum.Add(sum, new(big.Int).Mul(big.NewInt(written), tp.cacheWrite))
	// Reasoning tokens are output tokens (OpenAI counts them inside
	// output_tokens); an upstream that reports them apart is still charged
	// for at least that many.
	sum.Add(sum, new(big.Int).Mul(big.NewInt(max(u.OutputTokens, u.ReasoningTokens, 0)), tp.output))
	sum.Add(sum, new(big.Int).Sub(million, big.NewInt(1)))
	sum.Quo(sum, million)
	if sum.Cmp(tp.ceiling) > 0 {
		return new(big.Int).Set(tp.ceiling)
	}
	return sum
}

// countTokens is the documented count of n bytes of an upstream that
// reports no usage (charge.CountTokens).
func countTokens(n int) int64 { return charge.CountTokens(n) }

// minOutputTokens is the smallest max_output_tokens OpenAI accepts.
const minOutputTokens = 16

// BoundOutput bounds req.MaxOutputTokens so the call's cost stays under the
// ceiling, counting the input as the documented count of the body; an
// answer is then never cut by the ceiling, only by this bound, which the
// response echoes. A body whose input alone leaves fewer than 16 output
// tokens is a 400.
func (tp *tokenPrice) BoundOutput(req *responses.Request, bodyLen int) error {
	if tp.output.Sign() == 0 {
		return nil
	}
	left := new(big.Int).Mul(tp.ceiling, million)
	left.Sub(left, new(big.Int).Mul(big.NewInt(countTokens(bodyLen)), tp.input))
	most := new(big.Int).Quo(left, tp.output)
	if most.Cmp(big.NewInt(minOutputTokens)) < 0 {
		return errInputOverCeiling(x402.FormatUSDC(tp.ceiling))
	}
	if !most.IsInt64() {
		return nil
	}
	if req.MaxOutputTokens == nil || *req.MaxOutputTokens > most.Int64() {
		n := most.Int64()
		req.MaxOutputTokens = &n
	}
	return nil
}

// Rates are the prices per million input and output tokens.
func (tp *tokenPrice) Rates() (input, output *big.Int) { return tp.input, tp.output }
