package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `serve --check` warns about a model priced per call with no limits (it
// still passes: the defaults apply), not about one that sets them, and
// farebox init writes them out.
func TestServeCheckWarnsAboutAPerCallModelWithoutLimits(t *testing.T) {
	dir := t.TempDir()
	write := func(name, models string) string {
		path := filepath.Join(dir, name)
		cfg := "payments: {pay_to: \"0x90F79bf6EB2c4f870365E785982E1f101E93b906\", networks: [base-sepolia], settler: facilitator, facilitator: {url: \"https://x402.org/facilitator\"}}\nmodels:\n" + models
		if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	bare := write("bare.yaml", "  - {name: m, upstream: scripted, price: \"0.001\"}\n")
	code, stdout, stderr := farebox(t, exampleEnv(false), "serve", "--check", "--offline", "--config", bare)
	if code != 0 || !strings.Contains(stdout, "ok") || !strings.Contains(stderr, "warning") || !strings.Contains(stderr, "models[0] (m): priced per call with no limits") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	bounded := write("bounded.yaml", "  - {name: m, upstream: scripted, price: \"0.001\", limits: {max_output_tokens: 256}}\n")
	if code, stdout, stderr := farebox(t, exampleEnv(false), "serve", "--check", "--offline", "--config", bounded); code != 0 || strings.Contains(stderr, "warning") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	bad := write("bad.yaml", "  - {name: m, upstream: scripted, price: \"0.001\", limits: {reasoning_efforts: [low], reasoning_effort_cap: high}}\n")
	if code, _, stderr := farebox(t, exampleEnv(false), "serve", "--check", "--offline", "--config", bad); code == 0 || !strings.Contains(stderr, "limits.reasoning_effort_cap") {
		t.Fatalf("a cap outside the allowed efforts: exit %d\n%s", code, stderr)
	}
	path := filepath.Join(dir, "init.yaml")
	if code, stdout, stderr := farebox(t, exampleEnv(false), "init", "--upstream", "https://api.openai.com/v1", "--pay-to", "0x90F79bf6EB2c4f870365E785982E1f101E93b906", "--config", path); code != 0 {
		t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "max_output_tokens: 1024") || !strings.Contains(string(b), "max_input_tokens: 8192") {
		t.Errorf("init's config has no limits:\n%s", b)
	}
}
