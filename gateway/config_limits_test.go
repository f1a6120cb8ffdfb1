package gateway

import (
	"github.com/farebox/farebox/upstream"
	upopenai "github.com/farebox/farebox/upstream/openai"
	"testing"

	"github.com/farebox/farebox/responses"
)

// Each payer is its own end user to the provider, the same one on every
// call and every replica (the key comes from config), and two payers'
// identical prompt_cache_key values land in different caches.
func TestEndUsersAreKeyedPerPayer(t *testing.T) {
	env := map[string]string{"K": "operator-secret", "OPENAI": "sk-1"}
	getenv := func(k string) string { return env[k] }
	mc := ModelConfig{Name: "m", Upstream: "openai", UpstreamConfig: &upopenai.Settings{Endpoint: upstream.Endpoint{APIKeyEnv: "OPENAI"}}, Price: "0.001"}
	view := func(eu EndUsersConfig, who string) responses.ProviderView {
		l, err := buildLimits(mc, eu, getenv)
		if err != nil {
			t.Fatal(err)
		}
		key := "k"
		req := &responses.Request{PromptCache: &key}
		l.endUser(req, who)
		return req.Provider
	}
	keyed := EndUsersConfig{KeyEnv: "K"}
	a, a2, b := view(keyed, "payer:0xa"), view(keyed, "payer:0xa"), view(keyed, "payer:0xb")
	if a != a2 || a.SafetyID == b.SafetyID || a.CacheKey == b.CacheKey || a.SafetyID == "" || a.CacheKey == "" {
		t.Fatalf("%+v %+v %+v", a, a2, b)
	}
	if d := view(EndUsersConfig{}, "payer:0xa"); d.SafetyID == a.SafetyID {
		t.Error("the configured key must change the identifiers")
	}
	if _, err := buildLimits(mc, EndUsersConfig{KeyEnv: "UNSET"}, getenv); err == nil {
		t.Error("an empty end_users.key_env must be refused")
	}
	if v := view(keyed, ""); v.SafetyID != "" || v.Moderation {
		t.Errorf("no caller, no identifier: %+v", v)
	}
}

// A model priced per call gets the defaults for what it leaves out; free
// and per-token models only what they set.
func TestPerCallModelsGetDefaultLimits(t *testing.T) {
	perCall := ModelConfig{Name: "m", Price: "0.002", Limits: &ModelLimits{MaxOutputTokens: 300}}
	l := perCall.resolvedLimits()
	if l.MaxOutputTokens != 300 || l.MaxInputTokens != defaultMaxInputTokens || len(l.ReasoningEfforts) == 0 || l.MaxVerbosity != "medium" {
		t.Errorf("per call: %+v", l)
	}
	for _, mc := range []ModelConfig{{Name: "f", Price: "0"}, {Name: "t", PricePerMTok: &TokenPriceConfig{}}} {
		if l := mc.resolvedLimits(); l.MaxOutputTokens != 0 || l.MaxInputTokens != 0 || l.ReasoningEfforts != nil {
			t.Errorf("%s: %+v", mc.Name, l)
		}
	}
}
