package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exampleEnv clears every variable that could change how the example
// config reads, then sets the secrets its comments name (none when bare).
func exampleEnv(withSecrets bool) []string {
	env := []string{"OPENAI_API_KEY=", "FAREBOX_RESELLER_KEY=", "FAREBOX_PAY_TO=", "FAREBOX_NETWORKS=", "FAREBOX_SETTLER=",
		"FAREBOX_RPC_URL=", "FAREBOX_REDIS_URL=", "FAREBOX_FACILITATOR_URL=", "FAREBOX_CONFIG="}
	if withSecrets {
		env = append(env, "OPENAI_API_KEY=sk-test", "FAREBOX_RESELLER_KEY=0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")
	}
	return env
}

// TestServeCheckTheExampleConfig: `farebox serve --check` passes the
// example as shipped once the secrets it names are set, and without them
// exits non-zero listing every missing one in the same run.
func TestServeCheckTheExampleConfig(t *testing.T) {
	code, stdout, stderr := farebox(t, exampleEnv(true), "serve", "--check", "--offline", "--config", "../../farebox.example.yaml")
	if code != 0 || !strings.Contains(stdout, "ok") {
		t.Fatalf("serve --check of the example with its secrets: exit %d\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = farebox(t, exampleEnv(false), "serve", "--check", "--offline", "--config", "../../farebox.example.yaml")
	if code == 0 {
		t.Fatal("serve --check passed the example without its secrets")
	}
	for _, want := range []string{"3 problem(s)", "models[1] (gpt-4.1-mini).api_key_env: $OPENAI_API_KEY is empty",
		"models[2] (gpt-4.1-metered).api_key_env: $OPENAI_API_KEY is empty", "models[4] (resold-model).payer_key_env: $FAREBOX_RESELLER_KEY is empty"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestServeWithoutConfigSaysWhatToDo: no farebox.yaml is one line naming
// the three ways on: copy the example, farebox init, farebox dev.
func TestServeWithoutConfigSaysWhatToDo(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "farebox.yaml")
	code, _, stderr := farebox(t, exampleEnv(false), "serve", "--config", missing)
	assertOneLineFailure(t, code, stderr, "no config file at "+missing, "cp farebox.example.yaml farebox.yaml", "farebox init", "farebox dev")
}

// TestInitWritesAConfigThatChecks: `farebox init` writes a minimal config
// that `serve --check` passes, names the secret left to set, and does
// not overwrite a file without --force.
func TestInitWritesAConfigThatChecks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "farebox.yaml")
	args := []string{"init", "--upstream", "https://api.openai.com/v1", "--pay-to", "0x90F79bf6EB2c4f870365E785982E1f101E93b906", "--config", path}
	code, stdout, stderr := farebox(t, exampleEnv(false), args...)
	if code != 0 || !strings.Contains(stdout, "Set OPENAI_API_KEY") {
		t.Fatalf("init: exit %d\n%s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "api_key_env: OPENAI_API_KEY") || strings.Contains(string(b), "sk-") {
		t.Errorf("farebox.yaml:\n%s", b)
	}
	if code, stdout, stderr := farebox(t, exampleEnv(true), "serve", "--check", "--offline", "--config", path); code != 0 {
		t.Errorf("serve --check of init's config: exit %d\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = farebox(t, exampleEnv(false), args...)
	assertOneLineFailure(t, code, stderr, "exists", "--force")
	code, _, stderr = farebox(t, exampleEnv(false), "init", "--upstream", "http://127.0.0.1:11434/v1")
	assertOneLineFailure(t, code, stderr, "--pay-to")
}

// TestFlagTypoIsOneLineWithASuggestion: a mistyped flag is one line with
// the nearest real flag, no usage dump, for every command.
func TestFlagTypoIsOneLineWithASuggestion(t *testing.T) {
	for _, c := range []struct{ cmd, typo, want string }{
		{"call", "--max-prce", "--max-price"}, {"chat", "--bugdet", "--budget"}, {"dev", "--clam-interval", "--claim-interval"},
		{"serve", "--chek", "--check"}, {"init", "--pay-too", "--pay-to"}, {"proxy", "--budgt", "--budget"},
	} {
		code, _, stderr := farebox(t, exampleEnv(false), c.cmd, c.typo, "1")
		assertOneLineFailure(t, code, stderr, "unknown flag "+c.typo, "did you mean "+c.want+"?", "farebox "+c.cmd+" -h")
	}
}

// TestHelpHeadersAreOneShape: every command's -h starts with
// "Usage: farebox CMD" and a line saying what the command is for.
func TestHelpHeadersAreOneShape(t *testing.T) {
	for cmd, purpose := range map[string]string{"serve": "Run the gateway", "dev": "Run everything on one machine",
		"call": "Make one paid call", "chat": "Talk to a model", "init": "Write a minimal farebox.yaml",
		"proxy": "A local OpenAI base URL that pays"} {
		code, _, stderr := farebox(t, nil, cmd, "-h")
		if code != 0 || !strings.HasPrefix(stderr, "Usage: farebox "+cmd+" ") || !strings.Contains(stderr, "\n\n"+purpose) {
			t.Errorf("farebox %s -h: exit %d\n%s", cmd, code, stderr)
		}
	}
}
