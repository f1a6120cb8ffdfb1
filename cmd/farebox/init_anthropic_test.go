package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/farebox/farebox/gateway"
	upanthropic "github.com/farebox/farebox/upstream/anthropic"
	"gopkg.in/yaml.v3"
)

// `farebox init --upstream https://api.anthropic.com/v1` writes a Claude
// model: upstream anthropic, its key's variable, upstream_model, limits
// and per-token prices with cache reads and writes and a ceiling, which
// `serve --check` passes once ANTHROPIC_API_KEY is set.
func TestInitAnthropicWritesAPerTokenClaudeModel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "farebox.yaml")
	env := append(exampleEnv(false), "ANTHROPIC_API_KEY=")
	args := []string{"init", "--upstream", "https://api.anthropic.com/v1", "--pay-to", "0x90F79bf6EB2c4f870365E785982E1f101E93b906", "--config", path}
	code, stdout, stderr := farebox(t, env, args...)
	if code != 0 || !strings.Contains(stdout, "Set ANTHROPIC_API_KEY") || !strings.Contains(stdout, "per million") {
		t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Models []struct {
			Name, Upstream string
			Keys           upanthropic.Settings      `yaml:",inline"`
			Limits         gateway.ModelLimits       `yaml:"limits"`
			Price          *gateway.TokenPriceConfig `yaml:"price_per_mtok"`
			PerCall        string                    `yaml:"price"`
		}
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil || len(cfg.Models) != 1 {
		t.Fatalf("farebox.yaml (%v):\n%s", err, b)
	}
	m := cfg.Models[0]
	want := gateway.TokenPriceConfig{Input: "3", Output: "15", CacheRead: "0.3", CacheWrite: "3.75", MaxPerCall: "0.19"}
	if m.Name != defaultClaude || m.Upstream != "anthropic" || m.Keys.APIKeyEnv != "ANTHROPIC_API_KEY" ||
		m.Keys.UpstreamModel != defaultClaude || m.Keys.BaseURL != "https://api.anthropic.com/v1" || !m.Keys.Caching ||
		m.Limits.MaxInputTokens != claudeMaxInput || m.Limits.MaxOutputTokens != claudeMaxOutput ||
		m.Price == nil || *m.Price != want || m.PerCall != "" || strings.Contains(string(b), "sk-") {
		t.Errorf("farebox.yaml:\n%s", b)
	}
	checkEnv := append(exampleEnv(true), "ANTHROPIC_API_KEY=sk-ant-test")
	if code, stdout, stderr := farebox(t, checkEnv, "serve", "--check", "--offline", "--config", path); code != 0 {
		t.Errorf("serve --check of init's config: exit %d\n%s%s", code, stdout, stderr)
	}

	// A price per call given on the command line is kept, with the
	// per-call limits.
	args = append(args, "--force", "--price", "0.01", "--model", "claude-haiku-4-5")
	if code, stdout, stderr := farebox(t, env, args...); code != 0 || !strings.Contains(stdout, "0.01 USDC per call") {
		t.Fatalf("init --price: exit %d\n%s%s", code, stdout, stderr)
	}
	b, _ = os.ReadFile(path)
	if !strings.Contains(string(b), "price: \"0.01\"") || strings.Contains(string(b), "price_per_mtok") ||
		!strings.Contains(string(b), "upstream_model: claude-haiku-4-5") {
		t.Errorf("farebox.yaml with --price:\n%s", b)
	}
	if code, stdout, stderr := farebox(t, checkEnv, "serve", "--check", "--offline", "--config", path); code != 0 {
		t.Errorf("serve --check of the per-call config: exit %d\n%s%s", code, stdout, stderr)
	}
}
