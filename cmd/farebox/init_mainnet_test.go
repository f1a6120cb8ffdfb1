package main

import (
	"bytes"
	"crypto/ecdsa"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/keystore"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/google/uuid"
)

const initPayTo = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed" // no public test key: a mainnet refuses those

// initFile runs `farebox init` in process and returns the written file.
func initFile(t *testing.T, env map[string]string, args ...string) (string, string, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "farebox.yaml")
	var out, errOut bytes.Buffer
	args = append([]string{"--upstream", "http://127.0.0.1:11434/v1", "--pay-to", initPayTo, "--config", path}, args...)
	err := runInit(args, &out, &errOut, func(k string) string { return env[k] })
	b, _ := os.ReadFile(path)
	return string(b), out.String(), err
}

// TestInitMainnetNeverWritesTheTestFacilitator: on Base (and any x402
// mainnet) init writes Coinbase's CDP facilitator with its two key
// variables and says where to get the keys, refuses x402.org's test
// facilitator in one sentence saying why, and writes the own relayer with
// --settler chain; a testnet keeps x402.org.
func TestInitMainnetNeverWritesTheTestFacilitator(t *testing.T) {
	for _, network := range []string{"base", "eip155:8453", "polygon", "arbitrum"} {
		yml, out, err := initFile(t, nil, "--network", network)
		if err != nil {
			t.Fatalf("init --network %s: %v", network, err)
		}
		for _, want := range []string{"kind: cdp", "key_id_env: CDP_API_KEY_ID", "key_secret_env: CDP_API_KEY_SECRET", "url: https://api.cdp.coinbase.com/platform/v2/x402", "settler: facilitator"} {
			if !strings.Contains(yml, want) {
				t.Errorf("--network %s: no %q in\n%s", network, want, yml)
			}
		}
		if strings.Contains(yml, "x402.org") || !strings.Contains(out, "https://portal.cdp.coinbase.com") || !strings.Contains(out, "mainnet") {
			t.Errorf("--network %s:\n%s\n%s", network, yml, out)
		}
	}
	for _, fac := range []string{"x402.org", "https://x402.org/facilitator/"} {
		_, _, err := initFile(t, nil, "--network", "base", "--facilitator", fac)
		if err == nil || !strings.Contains(err.Error(), "test networks only") || !strings.Contains(err.Error(), "--facilitator cdp") || !strings.Contains(err.Error(), "--settler chain") {
			t.Errorf("--facilitator %s on base: %v", fac, err)
		}
	}
	yml, out, err := initFile(t, nil, "--network", "base", "--settler", "chain", "--rpc-url", "https://mainnet.base.org")
	if err != nil || !strings.Contains(yml, "settler: chain") || !strings.Contains(yml, "rpc_url: https://mainnet.base.org") ||
		strings.Contains(yml, "facilitator") || !strings.Contains(out, "FAREBOX_RELAYER_KEY") {
		t.Errorf("--settler chain: %v\n%s\n%s", err, yml, out)
	}
	if _, _, err := initFile(t, nil, "--network", "base", "--settler", "chain"); err == nil || !strings.Contains(err.Error(), "--rpc-url") {
		t.Errorf("--settler chain without --rpc-url: %v", err)
	}
	yml, _, err = initFile(t, nil)
	if err != nil || !strings.Contains(yml, "url: https://x402.org/facilitator") || strings.Contains(yml, "cdp") {
		t.Errorf("default (base-sepolia): %v\n%s", err, yml)
	}
	if _, _, err := initFile(t, nil, "--network", "megaeth"); err == nil || !strings.Contains(err.Error(), "permit2") {
		t.Errorf("a Permit2 network: %v", err)
	}
}

// TestServeCheckWarnsOfMainnetEnvKeysAndDollarPrices: serve --check of
// init's own-relayer Base config warns that the relayer key is a plain
// variable, not once it comes from a keystore; a price above 1 USDC is a
// warning naming the official client's cap.
func TestServeCheckWarnsOfMainnetEnvKeysAndDollarPrices(t *testing.T) {
	dir := t.TempDir()
	ks, pw := writeKeystore(t, dir, mustKey(t), "s3cret")
	env := []string{"FAREBOX_RELAYER_KEY=59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"}
	for _, c := range []struct {
		args []string
		want string
		not  string
	}{
		{[]string{"--price", "0.01"}, "plain environment variable $FAREBOX_RELAYER_KEY", "above 1 USDC"},
		{[]string{"--price", "2.5", "--relayer-keystore", ks, "--relayer-password-file", pw}, "price 2.5 USDC is above 1 USDC", "plain environment"},
	} {
		yml, _, err := initFile(t, nil, append([]string{"--network", "base", "--settler", "chain", "--rpc-url", "http://127.0.0.1:1"}, c.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "farebox.yaml")
		os.WriteFile(path, []byte(yml), 0o600)
		code, stdout, stderr := farebox(t, append(exampleEnv(false), env...), "serve", "--check", "--offline", "--config", path)
		if code != 0 || !strings.Contains(stderr, c.want) || strings.Contains(stderr, c.not) || !strings.Contains(stdout, "ok") {
			t.Errorf("%v: exit %d\n%s%s", c.args, code, stdout, stderr)
		}
	}
}

func mustKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// writeKeystore writes key as a go-ethereum v3 keystore (light scrypt, so
// the test is fast) and its password file.
func writeKeystore(t testing.TB, dir string, key *ecdsa.PrivateKey, password string) (ks, pw string) {
	t.Helper()
	id, _ := uuid.NewRandom()
	blob, err := keystore.EncryptKey(&keystore.Key{Id: id, Address: crypto.PubkeyToAddress(key.PublicKey), PrivateKey: key},
		password, keystore.LightScryptN, keystore.LightScryptP)
	if err != nil {
		t.Fatal(err)
	}
	ks, pw = filepath.Join(dir, "relayer.json"), filepath.Join(dir, "relayer.password")
	if os.WriteFile(ks, blob, 0o600) != nil || os.WriteFile(pw, []byte(password+"\n"), 0o600) != nil {
		t.Fatal("writing the keystore")
	}
	return ks, pw
}
