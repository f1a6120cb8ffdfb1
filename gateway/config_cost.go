package gateway

import (
	"fmt"
	"math/big"

	"github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"gopkg.in/yaml.v3"
)

// CostConfig is what an upstream costs the operator, booked as each call's
// cost (the books' margin is settled revenue less it): either a USDC
// string per call (cost: "0.0001") or a mapping whose per-token parts are
// booked from the call's usage
// (cost: {per_call: "0", input_per_mtok: "0.15", output_per_mtok: "0.6"}).
type CostConfig struct {
	PerCall       string `yaml:"per_call"`
	InputPerMTok  string `yaml:"input_per_mtok"`
	OutputPerMTok string `yaml:"output_per_mtok"`
}

// UnmarshalYAML takes the per-call string form as well as the mapping.
func (c *CostConfig) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&c.PerCall)
	}
	type plain CostConfig
	return n.Decode((*plain)(c))
}

// set reports whether any part of the cost is configured.
func (c CostConfig) set() bool { return c != CostConfig{} }

// upCost is a parsed CostConfig, in atomic USDC units.
type upCost struct {
	perCall, input, output *big.Int // input and output per million tokens
}

// parseCost parses c; nil when nothing is configured.
func parseCost(c CostConfig) (*upCost, error) {
	if !c.set() {
		return nil, nil
	}
	uc := &upCost{}
	for _, f := range []struct {
		name, v string
		to      **big.Int
	}{{"per_call", c.PerCall, &uc.perCall}, {"input_per_mtok", c.InputPerMTok, &uc.input}, {"output_per_mtok", c.OutputPerMTok, &uc.output}} {
		*f.to = new(big.Int)
		if f.v == "" {
			continue
		}
		n, err := x402.ParseUSDC(f.v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		*f.to = n
	}
	return uc, nil
}

// of is what one call with usage u cost: the per-call part plus its tokens
// at the per-million prices, rounded up to an atomic unit.
func (uc *upCost) of(u responses.Usage) *big.Int {
	sum := new(big.Int).Mul(big.NewInt(max(u.InputTokens, 0)), uc.input)
	sum.Add(sum, new(big.Int).Mul(big.NewInt(max(u.OutputTokens, u.ReasoningTokens, 0)), uc.output))
	sum.Add(sum, new(big.Int).Sub(million, big.NewInt(1)))
	sum.Quo(sum, million)
	return sum.Add(sum, uc.perCall)
}

// rank is the figure cheapest routing compares: the per-call part plus a
// call of a thousand input and a thousand output tokens.
func (uc *upCost) rank() *big.Int {
	return uc.of(responses.Usage{InputTokens: 1000, OutputTokens: 1000})
}

// cost validates a cost key.
func (v *validation) cost(key string, c CostConfig) {
	if _, err := parseCost(c); err != nil {
		v.add(key, "%v", err)
	}
}

// routeCosts is the cost booked per call of mc, by supplier ("" for a
// model's one upstream). An x402 upstream is left out: what its wallet
// pays is booked as it pays (startCostSampler).
func routeCosts(mc ModelConfig) (map[string]*upCost, error) {
	out := map[string]*upCost{}
	add := func(name, upstream string, c CostConfig) error {
		uc, err := parseCost(c)
		if err == nil && uc != nil && upstream != "x402" {
			out[name] = uc
		}
		return err
	}
	if err := add("", mc.Upstream, mc.Cost); err != nil {
		return nil, fmt.Errorf("cost: %w", err)
	}
	for i, sc := range mc.Suppliers {
		if err := add(supplierName(i, sc), sc.Upstream, sc.Cost); err != nil {
			return nil, fmt.Errorf("suppliers[%d].cost: %w", i, err)
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
