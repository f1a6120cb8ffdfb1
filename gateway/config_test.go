package gateway

import (
	"github.com/farebox/farebox/upstream"
	upopenai "github.com/farebox/farebox/upstream/openai"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestExampleConfigLoads(t *testing.T) {
	c, err := LoadConfig("../farebox.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Models) < 3 || c.Models[1].Upstream != "openai" || c.Models[1].UpstreamConfig.(*upopenai.Settings).Timeouts.FirstByte.D(0) != 60*time.Second {
		t.Errorf("models %+v", c.Models)
	}
	if c.Payments.Settle != "after" || c.BodyLimit != 20<<20 || c.ShutdownTimeout.D(0) != 30*time.Second {
		t.Errorf("config %+v", c)
	}
	// The example documents the defaults: loading it changes nothing.
	if c.Limits != (Config{}).withDefaults().Limits || c.Keepalive.D(0) != 15*time.Second || len(c.CORS.AllowedOrigins) != 0 {
		t.Errorf("limits %+v keepalive %v cors %v", c.Limits, c.Keepalive, c.CORS)
	}
}

func TestConfigRefusesUnknownKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.yaml")
	os.WriteFile(path, []byte("addr: x\nmodles: []\n"), 0o600)
	if _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), "modles") {
		t.Errorf("a typo must be an error, got %v", err)
	}
}

func TestEnvironmentOverridesTheFile(t *testing.T) {
	c := Config{Addr: "127.0.0.1:1", Payments: PaymentsConfig{Settle: "after"}}
	env := map[string]string{"FAREBOX_ADDR": "127.0.0.1:2", "FAREBOX_SETTLE": "before", "FAREBOX_NETWORKS": "base,eip155:1337", "FAREBOX_BODY_LIMIT": "1024"}
	if err := c.ApplyEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:2" || c.Payments.Settle != "before" || len(c.Payments.Networks) != 2 || c.BodyLimit != 1024 {
		t.Errorf("%+v", c)
	}
	if err := c.ApplyEnv(func(k string) string { return map[string]string{"FAREBOX_BODY_LIMIT": "-1"}[k] }); err == nil {
		t.Error("a negative body limit must be refused")
	}
}

func TestInvalidConfigsAreRefused(t *testing.T) {
	base := func() Config {
		return Config{Models: []ModelConfig{{Name: "m", Upstream: "scripted", Price: "0.01"}},
			Payments: PaymentsConfig{PayTo: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", Networks: []string{"base-sepolia"}, Settler: "facilitator",
				Facilitator: FacilitatorConfig{URL: "http://127.0.0.1:1"}}}
	}
	for name, mutate := range map[string]func(*Config){
		"price with too many decimals": func(c *Config) { c.Models[0].Price = "0.0000001" },
		"unknown network":              func(c *Config) { c.Payments.Networks = []string{"solana"} },
		"bad payTo":                    func(c *Config) { c.Payments.PayTo = "0x123" },
		"priced without payments":      func(c *Config) { c.Payments = PaymentsConfig{} },
		"unknown upstream":             func(c *Config) { c.Models[0].Upstream = "bard" },
		"duplicate model":              func(c *Config) { c.Models = append(c.Models, c.Models[0]) },
		"settle policy":                func(c *Config) { c.Payments.Settle = "later" },
		"settler missing":              func(c *Config) { c.Payments.Settler = "" },
		"chain settler without key":    func(c *Config) { c.Payments.Settler = "chain"; c.Payments.Chain.RPCURL = "http://127.0.0.1:1" },
		"unknown receiver authorizer":  func(c *Config) { c.Payments.BatchSettlement.ReceiverAuthorizer = "payer" },
		"delegation without a chain to read": func(c *Config) {
			c.Payments.BatchSettlement.ReceiverAuthorizer = "facilitator"
		},
		"openai upstream without key": func(c *Config) {
			c.Models[0] = ModelConfig{Name: "m", Upstream: "openai", UpstreamConfig: &upopenai.Settings{Endpoint: upstream.Endpoint{BaseURL: "http://x", APIKeyEnv: "FAREBOX_TEST_UNSET"}}}
		},
	} {
		t.Run(name, func(t *testing.T) {
			c := base()
			mutate(&c)
			if _, err := New(c, Options{Getenv: func(string) string { return "" }}); err == nil {
				t.Error("accepted")
			}
		})
	}
	if _, err := New(base(), Options{}); err != nil {
		t.Errorf("the valid base config: %v", err)
	}
}

func TestExampleConfigDocumentsTokenPrices(t *testing.T) {
	c, err := LoadConfig("../farebox.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var tp *tokenPrice
	for _, m := range c.Models {
		if m.PricePerMTok != nil {
			if tp, err = parseTokenPrice(m.PricePerMTok); err != nil {
				t.Fatalf("%s: %v", m.Name, err)
			}
		}
	}
	if tp == nil || tp.ceiling.Int64() != 20000 || tp.input.Int64() != 500000 || tp.output.Int64() != 2000000 {
		t.Errorf("the example's per-token model: %+v", tp)
	}
	if bs := c.Payments.BatchSettlement; bs.WithdrawDelay != 900 || bs.ClaimInterval.D(0) != time.Hour || bs.ClaimThreshold != "" ||
		bs.ClaimWithdrawLead.D(0) != 5*time.Minute {
		t.Errorf("batch_settlement %+v", bs)
	}
}

// payments.chain.simulate takes true, false or payer; anything else is an
// error naming the key, not a silent default.
func TestSimulateModes(t *testing.T) {
	for text, want := range map[string]SimulateMode{
		"true": SimulateEach, "false": SimulateOff, "payer": SimulatePerPayer, `"payer"`: SimulatePerPayer,
		"each": SimulateEach, "off": SimulateOff, "Payer": SimulatePerPayer,
	} {
		path := filepath.Join(t.TempDir(), "c.yaml")
		os.WriteFile(path, []byte("payments:\n  chain:\n    rpc_url: http://127.0.0.1:1\n    simulate: "+text+"\n"), 0o600)
		c, err := LoadConfig(path)
		if err != nil {
			t.Fatalf("simulate: %s: %v", text, err)
		}
		if got := c.Payments.Chain.Simulate; got != want {
			t.Errorf("simulate: %s = %+v, want %+v", text, got, want)
		}
	}
	for _, text := range []string{"maybe", "[true]", "1"} {
		path := filepath.Join(t.TempDir(), "c.yaml")
		os.WriteFile(path, []byte("payments:\n  chain:\n    simulate: "+text+"\n"), 0o600)
		if _, err := LoadConfig(path); err == nil || !strings.Contains(err.Error(), "simulate") {
			t.Errorf("simulate: %s = %v, want an error naming the key", text, err)
		}
	}
	var unset ChainConfig
	if !(ChainConfig{RPCURL: "http://x"}).simulate() || unset.simulate() || (ChainConfig{RPCURL: "http://x", Simulate: SimulateOff}).simulate() {
		t.Error("simulate defaults: on with an rpc_url, off without, off when turned off")
	}
}
