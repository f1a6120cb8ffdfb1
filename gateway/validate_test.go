package gateway

import (
	"github.com/farebox/farebox/upstream"
	upopenai "github.com/farebox/farebox/upstream/openai"
	"github.com/farebox/farebox/upstream/resell"
	"strings"
	"testing"
)

// exampleSecrets are the secrets farebox.example.yaml's comments name.
var exampleSecrets = map[string]string{
	"OPENAI_API_KEY":       "sk-test",
	"FAREBOX_RESELLER_KEY": "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
}

// TestExampleConfigValidatesWithItsSecrets: the example starts as shipped
// once the secrets it names are set; without them, every missing one is
// reported in the same run, each by its key.
func TestExampleConfigValidatesWithItsSecrets(t *testing.T) {
	c, err := LoadConfig("../farebox.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(func(k string) string { return exampleSecrets[k] }); err != nil {
		t.Fatalf("the example with its secrets set: %v", err)
	}
	err = c.Validate(func(string) string { return "" })
	if err == nil {
		t.Fatal("the example validated without its secrets")
	}
	for _, want := range []string{"models[1] (gpt-4.1-mini).api_key_env: $OPENAI_API_KEY is empty",
		"models[4] (resold-model).payer_key_env: $FAREBOX_RESELLER_KEY is empty"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}

// TestValidateReportsEveryProblemByKey: a config wrong in many places gets
// every problem in one error, one per line, each naming its key, and
// nothing is dialled (the RPC and Redis URLs point nowhere).
func TestValidateReportsEveryProblemByKey(t *testing.T) {
	c := Config{
		LogLevel: "loud",
		Payments: PaymentsConfig{
			PayTo: "0x0000000000000000000000000000000000000000", Networks: []string{"base-sepolia", "mars"},
			Settle: "sometimes", Settler: "chain", Confirm: "eventually",
			Chain:           ChainConfig{RPCURL: "http://127.0.0.1:1", Confirmations: -1},
			RedisURL:        "redis://127.0.0.1:1/0",
			CustomNetworks:  []NetworkConfig{{ChainID: 31337, Asset: "0x01x"}},
			BatchSettlement: BatchSettlementConfig{ClaimWithdrawLead: Duration(20 * 60 * 1e9), ClaimThreshold: "lots", ReceiverAuthorizer: "key"},
		},
		Models: []ModelConfig{
			{Name: "a", Upstream: "scripted", Price: "0.001"},
			{Name: "a", Upstream: "scripted", Price: "free"},
			{Name: "b", Upstream: "openai", UpstreamConfig: &upopenai.Settings{Endpoint: upstream.Endpoint{APIKeyEnv: "B_KEY"}}, Price: "0.001", PricePerMTok: &TokenPriceConfig{Input: "1"}},
			{Name: "c", Upstream: "x402", UpstreamConfig: &resell.Settings{BaseURL: "seller", PayerKeyEnv: "C_KEY"}},
			{Upstream: "carrier-pigeon"},
		},
	}
	err := c.Validate(envMap{"C_KEY": "not hex"}.get)
	if err == nil {
		t.Fatal("validated")
	}
	want := []string{
		`log_level: want debug, info, warn or error, got "loud"`,
		`models[1] (a): model "a" declared twice`,
		`models[1] (a).price:`,
		`models[2] (b): price and price_per_mtok are exclusive`,
		`models[2] (b).base_url: required for upstream openai`,
		`models[2] (b).api_key_env: $B_KEY is empty`,
		`models[3] (c).base_url: "seller" is not a URL`,
		`models[3] (c).payer_key_env: $C_KEY is not a hex private key`,
		`models[3] (c).max_upstream_price: required`,
		`models[4].name: required`,
		`models[4].upstream: unknown upstream "carrier-pigeon"`,
		`payments.settle: want after or before, got "sometimes"`,
		`payments.confirm: want broadcast or mined, got "eventually"`,
		`payments.custom_networks[0].asset: "0x01x" is not an address`,
		`payments.custom_networks[0]: name and version`,
		`payments.networks: unknown network "mars"`,
		`payments.pay_to: the zero address burns every payment`,
		`payments.chain.relayer_key_env: $FAREBOX_RELAYER_KEY is empty`,
		`payments.chain.confirmations: want 0 to 43200 blocks, got -1`,
		`payments.batch_settlement.claim_withdraw_lead`,
		`payments.batch_settlement.claim_threshold:`,
		`payments.batch_settlement.receiver_authorizer_key_env: required with receiver_authorizer: key`,
		`payments.batch_settlement.receiver_authorizer: only with settler facilitator`,
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("missing %q", w)
		}
	}
	if n := len(err.(interface{ Unwrap() []error }).Unwrap()); n != len(want) {
		t.Errorf("%d problems reported, want %d:\n%v", n, len(want), err)
	}
}

// TestValidateAcceptsWhatStarts: a free scripted model needs nothing else;
// a priced one with a chain settler needs its relayer key; a public test
// account is refused as pay_to only where the money is real.
func TestValidateAcceptsWhatStarts(t *testing.T) {
	free := Config{Models: []ModelConfig{{Name: "m", Upstream: "scripted", Price: "0"}}}
	if err := free.Validate(nil); err != nil {
		t.Errorf("a free scripted model: %v", err)
	}
	paid := Config{
		Payments: PaymentsConfig{PayTo: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", Networks: []string{"base-sepolia"},
			Settler: "chain", Chain: ChainConfig{RPCURL: "http://127.0.0.1:8545"}},
		Models: []ModelConfig{{Name: "m", Upstream: "scripted", Price: "0.001"}},
	}
	env := envMap{"FAREBOX_RELAYER_KEY": exampleSecrets["FAREBOX_RESELLER_KEY"]}
	if err := paid.Validate(env.get); err != nil {
		t.Errorf("a priced model on base-sepolia: %v", err)
	}
	paid.Payments.Networks = []string{"base"}
	if err := paid.Validate(env.get); err == nil || !strings.Contains(err.Error(), "key is public") {
		t.Errorf("a public test account paid on base: %v", err)
	}
	if err := (Config{}).Validate(nil); err == nil || !strings.Contains(err.Error(), "models: at least one model") {
		t.Errorf("an empty config: %v", err)
	}
}

type envMap map[string]string

func (m envMap) get(k string) string { return m[k] }
