package gateway

import (
	"strings"
	"testing"

	"github.com/farebox/farebox/responses"
)

// A cost is a per-call USDC string or a mapping priced per million
// tokens, on a supplier or on a model's one upstream; what a call costs is
// the per-call part plus its tokens, rounded up to an atomic unit; an x402
// upstream's configured cost is not booked (its wallet's spend is).
func TestCostTakesBothForms(t *testing.T) {
	c := loadYAML(t, strings.Replace(strings.Replace(pooledYAML, `weight: 2}`,
		`weight: 2, cost: {per_call: "0.0001", input_per_mtok: "0.15", output_per_mtok: "0.6"}}`, 1), "payments:", `  - {name: keyed, upstream: openai, base_url: https://api.openai.com/v1, upstream_model: gpt-4.1, cost: "0.0003"}
payments:`, 1))
	if err := c.Validate(func(k string) string { return exampleSecrets[k] }); err != nil {
		t.Fatal(err)
	}
	costs, err := routeCosts(c.Models[0])
	if err != nil {
		t.Fatal(err)
	}
	u := responses.Usage{InputTokens: 1000, OutputTokens: 500}
	// backup: 100 + ceil((1000*150000 + 500*600000) / 1e6) = 100 + 450
	if b := costs["backup"]; b == nil || b.of(u).Int64() != 550 || costs["primary"].of(u).Int64() != 400 || costs["seller"] != nil {
		t.Errorf("pool costs %+v", costs)
	}
	keyed, err := routeCosts(c.Models[1])
	if err != nil || keyed[""] == nil || keyed[""].of(u).Int64() != 300 {
		t.Errorf("a model's own cost: %+v %v", keyed, err)
	}
}

// A cost on a pool itself (rather than its suppliers) and an unreadable
// per-token cost are refused by key.
func TestBadCostsAreRefusedByKey(t *testing.T) {
	c := loadYAML(t, strings.Replace(strings.Replace(pooledYAML, `weight: 2}`, `weight: 2, cost: {input_per_mtok: lots}}`, 1), "payments:", `  - {name: keyed, upstream: openai, base_url: https://api.openai.com/v1, upstream_model: gpt-4.1, cost: {output_per_mtok: "-1"}}
payments:`, 1))
	c.Models[0].Cost = CostConfig{PerCall: "0.001"}
	err := c.Validate(func(k string) string { return exampleSecrets[k] })
	for _, want := range []string{"models[0] (gpt-4.1-mini).cost: a pool's cost is each supplier's",
		"models[0] (gpt-4.1-mini).suppliers[1].cost: input_per_mtok:", "models[1] (keyed).cost: output_per_mtok:"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}
