package main

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/gateway"
)

// TestMain lets a test run this binary as the real farebox command (exit
// status, stderr and all): FAREBOX_TEST_AS_MAIN=1 makes it call main.
func TestMain(m *testing.M) {
	if os.Getenv("FAREBOX_TEST_AS_MAIN") == "1" {
		os.Args = append([]string{"farebox"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// farebox runs the command as a process and returns its exit code, stdout
// and stderr.
func farebox(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "FAREBOX_TEST_AS_MAIN=1"), env...)
	var out, errOut syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errOut.String()
}

// assertOneLineFailure checks what a start-up failure must look like: exit
// status 1, one line on stderr naming everything in want, no panic.
func assertOneLineFailure(t *testing.T, code int, stderr string, want ...string) {
	t.Helper()
	if code != 1 {
		t.Errorf("exit status %d, want 1; stderr:\n%s", code, stderr)
	}
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 {
		t.Errorf("stderr has %d lines, want one:\n%s", len(lines), stderr)
	}
	if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine") {
		t.Errorf("stderr shows a panic:\n%s", stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr does not name %q:\n%s", w, stderr)
		}
	}
}

// TestSecondDevOnTakenAddressesFailsInOneLine starts `farebox dev`, then a
// second one on the same gateway address, then on the same RPC address:
// each exits 1 with one line naming the address and the flag that moves it.
func TestSecondDevOnTakenAddressesFailsInOneLine(t *testing.T) {
	_, banner := startDevCommand(t)
	gw := strings.TrimSuffix(strings.TrimPrefix(field(t, banner, `base URL\s+(\S+)`), "http://"), "/v1")
	rpc := strings.TrimPrefix(field(t, banner, `chain RPC\s+(\S+)`), "http://")

	code, _, stderr := farebox(t, nil, "dev", "--addr", gw, "--rpc-addr", "127.0.0.1:0")
	assertOneLineFailure(t, code, stderr, gw, "already in use", "--addr")

	code, _, stderr = farebox(t, nil, "dev", "--addr", "127.0.0.1:0", "--rpc-addr", rpc)
	assertOneLineFailure(t, code, stderr, rpc, "already in use", "--rpc-addr")
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// TestServeStartupFailuresAreOneLine: a bad key, a bad value, a missing
// secret and unreachable dependencies each stop `farebox serve` with one
// line naming the key or variable to change.
func TestServeStartupFailuresAreOneLine(t *testing.T) {
	const model = "models:\n  - {name: m, upstream: scripted, price: \"0.001\"}\n"
	const payments = "payments:\n  pay_to: \"0x90F79bf6EB2c4f870365E785982E1f101E93b906\"\n  networks: [base-sepolia]\n"
	down := "http://" + closedAddr(t)
	cases := []struct {
		name, yaml string
		env        []string
		want       []string
	}{
		{"unknown key", model + payments + "  settler: chain\n  sttle: before\n", nil,
			[]string{`unknown key "sttle"`, "payments", "line 7"}},
		{"bad value", model + payments + "  settle: sometimes\n  settler: facilitator\n  facilitator: {url: " + down + "}\n", nil,
			[]string{"payments.settle", `"sometimes"`}},
		{"missing secret", model + payments + "  settler: chain\n  chain: {rpc_url: " + down + "}\n", nil,
			[]string{"FAREBOX_RELAYER_KEY"}},
		{"unreachable rpc", model + payments + "  settler: chain\n  chain: {rpc_url: " + down + "}\n",
			[]string{"FAREBOX_RELAYER_KEY=59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"},
			[]string{"payments.chain.rpc_url", strings.TrimPrefix(down, "http://"), "connection refused"}},
		{"unreachable facilitator", model + payments + "  settler: facilitator\n  facilitator: {url: " + down + "}\n", nil,
			[]string{"payments.facilitator.url", down, "connection refused"}},
		{"unreachable redis", model + payments + "  settler: facilitator\n  facilitator: {url: " + down + "}\n  redis_url: redis://" + closedAddr(t) + "\n", nil,
			[]string{"payments.redis_url", "connection refused"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "farebox.yaml")
			if err := os.WriteFile(path, []byte(c.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			env := append([]string{"FAREBOX_RELAYER_KEY=", "FAREBOX_REDIS_URL=", "FAREBOX_SETTLER=", "FAREBOX_RPC_URL="}, c.env...)
			code, _, stderr := farebox(t, env, "serve", "--config", path, "--addr", "127.0.0.1:0")
			assertOneLineFailure(t, code, stderr, c.want...)
		})
	}
}

func TestHelpExitsZero(t *testing.T) {
	for _, cmd := range []string{"dev", "serve", "call"} {
		code, _, stderr := farebox(t, nil, cmd, "-h")
		if code != 0 {
			t.Errorf("farebox %s -h: exit status %d, want 0", cmd, code)
		}
		if !strings.Contains(stderr, "-addr") && !strings.Contains(stderr, "-base-url") {
			t.Errorf("farebox %s -h printed no flags:\n%s", cmd, stderr)
		}
	}
}

// TestServeCloseFreesEveryListener runs ServeMain without flags (the Main
// shape) with pprof on: after Close, the gateway's and pprof's addresses
// can be listened on again.
func TestServeCloseFreesEveryListener(t *testing.T) {
	gw, pp := closedAddr(t), closedAddr(t)
	m := NewServeMain(&syncBuffer{}, &syncBuffer{}, func(string) string { return "" })
	m.Config = gateway.Config{Addr: gw, LogLevel: "warn",
		Models: []gateway.ModelConfig{{Name: "free", Upstream: "scripted", Price: "0"}}}
	m.PprofAddr = pp
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, url := range []string{m.BaseURL + "/models", "http://" + pp + "/debug/pprof/"} {
		res, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", url, res.StatusCode)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{gw, pp} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("%s still taken after Close: %v", addr, err)
			continue
		}
		l.Close()
	}
}

// TestDevFlagMistakesAreOneLine: flags that cannot work together, or a
// chain nobody answers at, stop `farebox dev` with one line naming the flag.
func TestDevFlagMistakesAreOneLine(t *testing.T) {
	down := "http://" + closedAddr(t)
	cases := []struct {
		name string
		args []string
		want []string
	}{
		{"data without chain", []string{"--data", t.TempDir()}, []string{"--data", "--chain"}},
		{"block time with chain", []string{"--chain", down, "--block-time", "2s"}, []string{"--block-time", "anvil --block-time"}},
		{"unreachable chain", []string{"--chain", down}, []string{"--chain " + down, "unreachable", "connection refused"}},
		{"bad deployer key", []string{"--chain", down, "--deployer-key-file", writeFile(t, "0xnothex")}, []string{"deployer key", "FAREBOX_DEPLOYER_KEY"}},
		{"bad fund", []string{"--fund", "0x12=1"}, []string{"--fund", "0xADDRESS=AMOUNT"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"dev", "--addr", "127.0.0.1:0", "--rpc-addr", ""}, c.args...)
			if slices.Contains(c.args, "--chain") {
				args = append([]string{"dev", "--addr", "127.0.0.1:0"}, c.args...)
			}
			code, _, stderr := farebox(t, nil, args...)
			assertOneLineFailure(t, code, stderr, c.want...)
		})
	}
}

// writeFile writes s to a new file and returns its path.
func writeFile(t *testing.T, s string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestServeCheckNamesAnUnknownKeyWithEveryOtherProblem: one run of
// `farebox serve --check` lists an unknown key together with the problems
// of the rest of the file, not the unknown key alone.
func TestServeCheckNamesAnUnknownKeyWithEveryOtherProblem(t *testing.T) {
	const cfg = "models:\n  - {name: m, upstream: scripted, price: \"0.001\", colour: blue}\n" +
		"payments:\n  pay_to: \"0x90F79bf6EB2c4f870365E785982E1f101E93b906\"\n  networks: [base-sepolia]\n  settle: sometimes\n  sttle: before\n"
	path := filepath.Join(t.TempDir(), "farebox.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := farebox(t, nil, "serve", "--check", "--config", path)
	if code == 0 {
		t.Fatalf("serve --check passed:\n%s", stderr)
	}
	for _, want := range []string{`unknown key "colour"`, `unknown key "sttle"`, "payments.settle:", `"sometimes"`, "payments.settler", "4 problem(s)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("serve --check output lacks %q:\n%s", want, stderr)
		}
	}
}

// TestServeCheckNamesTheBuiltInKinds: the kinds an unknown upstream is
// told to choose from are the ones farebox links, and the test kit's
// in-process kind is none of them; a key of another kind is an unknown key.
func TestServeCheckNamesTheBuiltInKinds(t *testing.T) {
	const cfg = "models:\n  - {name: m, upstream: inprocess}\n  - {name: n, upstream: openai, base_url: \"http://x/v1\", pace: 1s}\n"
	path := filepath.Join(t.TempDir(), "farebox.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := farebox(t, nil, "serve", "--check", "--config", path)
	if code == 0 {
		t.Fatalf("serve --check passed:\n%s", stderr)
	}
	for _, want := range []string{`models[0] (m).upstream: unknown upstream "inprocess" (want anthropic, chat, gemini, openai, scripted or x402)`,
		`line 3: unknown key "pace" in a model`, "2 problem(s)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("serve --check output lacks %q:\n%s", want, stderr)
		}
	}
}
