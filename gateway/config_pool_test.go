package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const pooledYAML = `
models:
  - name: gpt-4.1-mini
    price: "0.002"
    suppliers:
      - {name: primary, upstream: openai, base_url: https://api.openai.com/v1, api_key_env: OPENAI_API_KEY, upstream_model: gpt-4.1-mini, cost: "0.0004", timeouts: {first_byte: 10s}}
      - {name: backup,  upstream: chat,   base_url: http://127.0.0.1:11434/v1, upstream_model: llama3.1, weight: 2}
      - {name: seller,  upstream: x402,   base_url: https://seller.example/v1, payer_key_env: FAREBOX_RESELLER_KEY, max_upstream_price: "0.001"}
    routing: {strategy: ordered, max_attempts: 3, circuit: {failures: 5, cooldown: 30s}}
payments:
  pay_to: "0x90F79bf6EB2c4f870365E785982E1f101E93b906"
  networks: [base-sepolia]
  settler: facilitator
  facilitator: {url: https://x402.org/facilitator}
`

func loadYAML(t *testing.T, text string) Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "farebox.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A model listing suppliers and routing loads and validates; its
// suppliers' secrets are checked like a model's own.
func TestPooledModelValidates(t *testing.T) {
	c := loadYAML(t, pooledYAML)
	if got := len(c.Models[0].Suppliers); got != 3 {
		t.Fatalf("%d suppliers loaded", got)
	}
	if err := c.Validate(func(k string) string { return exampleSecrets[k] }); err != nil {
		t.Fatal(err)
	}
	err := c.Validate(nil)
	for _, want := range []string{"models[0] (gpt-4.1-mini).suppliers[0].api_key_env: $OPENAI_API_KEY is empty",
		"models[0] (gpt-4.1-mini).suppliers[2].payer_key_env: $FAREBOX_RESELLER_KEY is empty"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}

// A wrong pool gets every problem named by its key.
func TestBadPoolsAreRefusedByKey(t *testing.T) {
	c := loadYAML(t, strings.NewReplacer(`strategy: ordered`, `strategy: random`, `max_attempts: 3`, `max_attempts: -1`,
		`name: backup`, `name: primary`, `cost: "0.0004"`, `cost: cheap`, `upstream: chat`, `upstream: pigeon`).Replace(pooledYAML))
	c.Models = append(c.Models, ModelConfig{Name: "both", Upstream: "scripted", Suppliers: []SupplierConfig{{Upstream: "scripted"}}},
		ModelConfig{Name: "lonely", Upstream: "scripted", Routing: RoutingConfig{Strategy: "cheapest"}})
	err := c.Validate(func(k string) string { return exampleSecrets[k] })
	if err == nil {
		t.Fatal("validated")
	}
	for _, want := range []string{
		"models[0] (gpt-4.1-mini).routing.strategy: want ordered, weighted, cheapest or fastest",
		"models[0] (gpt-4.1-mini).routing.max_attempts: must not be negative",
		`models[0] (gpt-4.1-mini).suppliers[1].name: "primary" used twice`,
		"models[0] (gpt-4.1-mini).suppliers[0].cost:",
		`models[0] (gpt-4.1-mini).suppliers[1].upstream: unknown upstream "pigeon"`,
		"models[1] (both): suppliers and the model's own upstream keys are exclusive",
		"models[2] (lonely).routing: needs suppliers",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}
