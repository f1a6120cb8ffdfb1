package gateway

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/upstream/chat"
	upopenai "github.com/farebox/farebox/upstream/openai"
	"github.com/farebox/farebox/upstream/resell"
	"github.com/farebox/farebox/upstream/scripted"
	"gopkg.in/yaml.v3"
)

func loadString(t *testing.T, doc string) (Config, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "farebox.yaml")
	if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return LoadConfig(path)
}

// TestUpstreamKeysDecodeIntoTheirKind: the keys written beside `upstream:`
// land in that kind's own config, for a model and for a supplier alike.
func TestUpstreamKeysDecodeIntoTheirKind(t *testing.T) {
	c, err := loadString(t, `models:
  - {name: a, upstream: openai, base_url: "http://a/v1", api_key_env: A_KEY, upstream_model: gpt, timeouts: {first_byte: 2s}}
  - {name: b, upstream: scripted, pace: 30ms}
  - {name: c, upstream: scripted}
  - name: d
    suppliers:
      - {name: s1, upstream: chat, base_url: "http://c/v1", images: false}
      - {name: s2, upstream: x402, base_url: "http://s/v1", payer_key_env: P, max_upstream_price: "0.001", max_upstream_withdraw_delay: 1h}
`)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := c.Models[0].UpstreamConfig.(*upopenai.Settings)
	if !ok || a.BaseURL != "http://a/v1" || a.APIKeyEnv != "A_KEY" || a.UpstreamModel != "gpt" || a.Timeouts.FirstByte.D(0) != 2*time.Second {
		t.Errorf("openai keys: %#v", c.Models[0].UpstreamConfig)
	}
	if b, ok := c.Models[1].UpstreamConfig.(*scripted.Settings); !ok || b.Pace.D(0) != 30*time.Millisecond {
		t.Errorf("scripted keys: %#v", c.Models[1].UpstreamConfig)
	}
	if c.Models[2].UpstreamConfig != nil {
		t.Errorf("a kind named without keys decoded %#v, want nil (its defaults)", c.Models[2].UpstreamConfig)
	}
	s1, ok := c.Models[3].Suppliers[0].UpstreamConfig.(*chat.Settings)
	if !ok || s1.BaseURL != "http://c/v1" || s1.Images == nil || *s1.Images {
		t.Errorf("chat supplier keys: %#v", c.Models[3].Suppliers[0].UpstreamConfig)
	}
	s2, ok := c.Models[3].Suppliers[1].UpstreamConfig.(*resell.Settings)
	if !ok || s2.PayerKeyEnv != "P" || s2.MaxUpstreamPrice != "0.001" || s2.MaxUpstreamWithdrawDelay.D(0) != time.Hour {
		t.Errorf("x402 supplier keys: %#v", c.Models[3].Suppliers[1].UpstreamConfig)
	}
}

// TestAnotherKindsKeyIsUnknown: a kind takes only its own keys, so a key
// of another kind (or a typo in a nested one) is named with its line, and
// the model stays decoded for the rest of the checks.
func TestAnotherKindsKeyIsUnknown(t *testing.T) {
	c, err := loadString(t, `models:
  - {name: a, upstream: openai, base_url: "http://a/v1", pace: 1s}
  - name: b
    suppliers:
      - {upstream: scripted, timeouts: {total: 1s}}
      - {upstream: chat, base_url: "http://c/v1", timeouts: {frist_byte: 1s}}
`)
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		t.Fatalf("got %v, want the unknown keys as a *yaml.TypeError", err)
	}
	want := []string{"line 2: field pace not found in type gateway.ModelConfig",
		"line 5: field timeouts not found in type gateway.SupplierConfig",
		"line 6: field frist_byte not found in type upstream.Timeouts"}
	if strings.Join(te.Errors, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(te.Errors, "\n"), strings.Join(want, "\n"))
	}
	if len(c.Models) != 2 || len(c.Models[1].Suppliers) != 2 || c.Models[0].UpstreamConfig.(*upopenai.Settings).BaseURL != "http://a/v1" {
		t.Errorf("the models were not kept: %+v", c.Models)
	}
}

// TestUpstreamKeysWriteBackFlat: a config built in Go is written as an
// operator writes it (the kind's keys beside `upstream:`) and reads back
// the same.
func TestUpstreamKeysWriteBackFlat(t *testing.T) {
	c := Config{Models: []ModelConfig{{Name: "m", Upstream: "scripted", UpstreamConfig: &scripted.Settings{Pace: Duration(time.Second)}, Price: "0"}}}
	out, err := yaml.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "upstream: scripted\n      pace: 1s\n      price: \"0\"") {
		t.Errorf("written as:\n%s", out)
	}
	back, err := loadString(t, string(out))
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := back.Models[0].UpstreamConfig.(*scripted.Settings); !ok || s.Pace.D(0) != time.Second {
		t.Errorf("read back %#v", back.Models[0].UpstreamConfig)
	}
}

// TestUpstreamKindChecks: the kind is required and must be registered (the
// message lists the registered ones), and Go-built keys must be the
// kind's.
func TestUpstreamKindChecks(t *testing.T) {
	c := Config{Models: []ModelConfig{{Name: "a"}, {Name: "b", Upstream: "bard"},
		{Name: "c", Upstream: "openai", UpstreamConfig: &scripted.Settings{}}}}
	err := c.Validate(nil)
	for _, want := range []string{"models[0] (a).upstream: required (anthropic, chat, gemini, inprocess, openai, scripted or x402)",
		`models[1] (b).upstream: unknown upstream "bard" (want anthropic, chat, gemini, inprocess, openai, scripted or x402)`,
		"models[2] (c).upstream: upstream openai takes *openai.Settings, not *scripted.Settings"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v\nwant %q", err, want)
		}
	}
}

// TestMergedUpstreamKeysAreTheKinds: keys a model takes from another by a
// YAML merge (<<: *anchor) are its kind's keys as if written out, and its
// own keys win.
func TestMergedUpstreamKeysAreTheKinds(t *testing.T) {
	c, err := loadString(t, `models:
  - &first {name: a, upstream: openai, base_url: "http://a/v1", api_key_env: A_KEY}
  - {<<: *first, name: b, base_url: "http://b/v1"}
`)
	if err != nil {
		t.Fatal(err)
	}
	b, ok := c.Models[1].UpstreamConfig.(*upopenai.Settings)
	if c.Models[1].Name != "b" || c.Models[1].Upstream != "openai" || !ok || b.BaseURL != "http://b/v1" || b.APIKeyEnv != "A_KEY" {
		t.Errorf("merged model: %+v, keys %#v", c.Models[1], c.Models[1].UpstreamConfig)
	}
}
