package gateway_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/farebox/farebox/gateway"
	upanthropic "github.com/farebox/farebox/upstream/anthropic"
)

// The example's commented Claude model is a working one: uncommented, it
// loads, every key it documents lands in the anthropic kind's settings,
// and the config validates once ANTHROPIC_API_KEY is set.
func TestExampleAnthropicBlockIsAValidModel(t *testing.T) {
	b, err := os.ReadFile("../farebox.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "  # - name: claude-") {
			in = true
		} else if in && !strings.HasPrefix(line, "  #  ") {
			in = false
		}
		if in {
			line = "  " + strings.TrimPrefix(line, "  # ")
		}
		out = append(out, line)
	}
	path := filepath.Join(t.TempDir(), "farebox.yaml")
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := gateway.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	var claude *gateway.ModelConfig
	for i := range c.Models {
		if c.Models[i].Upstream == upanthropic.Kind {
			claude = &c.Models[i]
		}
	}
	if claude == nil {
		t.Fatal("no anthropic model in the uncommented example")
	}
	s, ok := claude.UpstreamConfig.(*upanthropic.Settings)
	if !ok || s.APIKeyEnv != "ANTHROPIC_API_KEY" || s.UpstreamModel == "" || !s.Caching || s.Thinking.Mode != "enabled" ||
		len(s.Thinking.BudgetTokens) != 5 || s.MaxTokens.Default == 0 || s.MaxTokens.Limit == 0 {
		t.Errorf("the anthropic keys: %+v", claude.UpstreamConfig)
	}
	if p := claude.PricePerMTok; p == nil || p.CacheRead == "" || p.CacheWrite == "" || p.MaxPerCall == "" {
		t.Errorf("the price: %+v", claude.PricePerMTok)
	}
	secrets := map[string]string{"OPENAI_API_KEY": "sk-test", "ANTHROPIC_API_KEY": "sk-ant-test",
		"FAREBOX_RESELLER_KEY": "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"}
	if err := c.Validate(func(k string) string { return secrets[k] }); err != nil {
		t.Errorf("the example with its Claude model: %v", err)
	}
}
