package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/cdpfake"
	"github.com/farebox/farebox/internal/testkit/chaintest"
)

// Payments taken where they can never settle are refused before the
// start, in one line: a node at payments.chain.rpc_url of another chain
// than the configured network (naming both chain ids), for farebox's own
// relayer and for the chain a facilitator's transactions are followed on;
// a relayer without gas (naming its address and its balance). serve and
// serve --check refuse alike.
func TestServeRefusesAnotherChainAndARelayerWithoutGas(t *testing.T) {
	a := chaintest.StartAnvil(t)
	funded := strings.TrimPrefix(hexutil.Encode(crypto.FromECDSA(a.RelayerKey)), "0x")
	emptyKey, _ := crypto.GenerateKey()
	empty := strings.TrimPrefix(hexutil.Encode(crypto.FromECDSA(emptyKey)), "0x")
	payToKey, _ := crypto.GenerateKey()
	payTo := crypto.PubkeyToAddress(payToKey.PublicKey).Hex()
	config := func(network, settler string) string {
		return fmt.Sprintf("models:\n  - {name: m, upstream: scripted, price: \"0.001\", limits: {max_output_tokens: 256}}\n"+
			"payments:\n  pay_to: %q\n  networks: [%s]\n  settler: %s\n  facilitator: {url: \"http://%s\"}\n  chain: {rpc_url: %q}\n",
			payTo, network, settler, closedAddr(t), a.RPCURL)
	}
	cases := []struct {
		name, yaml, key string
		want            []string
	}{
		{"relayer on another chain", config("base", "chain"), funded,
			[]string{"eip155:8453", fmt.Sprint(chaintest.ChainID), "payments.chain.rpc_url"}},
		{"facilitator followed on another chain", config("base", "facilitator"), "",
			[]string{"eip155:8453", fmt.Sprint(chaintest.ChainID), "payments.chain.rpc_url"}},
		{"relayer without gas", config("base-sepolia", "chain"), empty,
			[]string{crypto.PubkeyToAddress(emptyKey.PublicKey).Hex(), "holds 0 wei"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "farebox.yaml")
			if err := os.WriteFile(path, []byte(c.yaml), 0o600); err != nil {
				t.Fatal(err)
			}
			env := []string{"FAREBOX_RELAYER_KEY=" + c.key, "FAREBOX_REDIS_URL=", "FAREBOX_SETTLER=", "FAREBOX_RPC_URL="}
			code, _, stderr := farebox(t, env, "serve", "--config", path, "--addr", "127.0.0.1:0")
			assertOneLineFailure(t, code, stderr, c.want...)
			if c.key != "" && strings.Contains(stderr, c.key) {
				t.Errorf("the relayer key is in the error: %s", stderr)
			}
			// --check prints its warnings (a mainnet relayer key in the
			// environment) before the one line of the failure.
			code, _, stderr = farebox(t, env, "serve", "--check", "--config", path)
			var failure []string
			for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
				if !strings.HasPrefix(l, "warning: ") {
					failure = append(failure, l)
				}
			}
			assertOneLineFailure(t, code, strings.Join(failure, "\n"), c.want...)
		})
	}
}

// `farebox serve` on the config init writes for a mainnet (the CDP
// facilitator) starts with CDP's API key on every request it sends there:
// CDP answers only signed requests, so an unsigned one would be a 401
// counted against the key's host and rate. The stand-in checks each token
// as CDP does and refuses nothing; the start-up proof reached /supported.
func TestServeSignsEveryRequestToCDP(t *testing.T) {
	kinds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"kinds": []map[string]any{{"x402Version": 2, "scheme": "exact", "network": "eip155:8453"}},
			"extensions": []string{}, "signers": map[string]any{}})
	}))
	t.Cleanup(kinds.Close)
	key := cdpfake.Ed25519Key(t, "organizations/o/apiKeys/serve")
	f := cdpfake.New(t, kinds.URL, []cdpfake.Key{key})
	payToKey, _ := crypto.GenerateKey()
	path := writeFile(t, fmt.Sprintf("models:\n  - {name: m, upstream: scripted, price: \"0.001\", limits: {max_output_tokens: 256}}\n"+
		"payments:\n  pay_to: %q\n  networks: [base]\n  settler: facilitator\n"+
		"  facilitator: {kind: cdp, url: %q, key_id_env: CDP_API_KEY_ID, key_secret_env: CDP_API_KEY_SECRET}\n",
		crypto.PubkeyToAddress(payToKey.PublicKey).Hex(), f.URL))
	p := startProcess(t, []string{"CDP_API_KEY_ID=" + key.ID, "CDP_API_KEY_SECRET=" + key.Secret, "FAREBOX_REDIS_URL=", "FAREBOX_SETTLER="},
		"serve", "--config", path, "--addr", "127.0.0.1:0")
	p.waitOutput(t, "farebox listening")
	p.stop(syscall.SIGTERM)
	if refused := f.Refused(); len(refused) != 0 {
		t.Errorf("the stand-in refused %v\nlogs:\n%s", refused, p.logs.String())
	}
	if f.Accepted("supported") == 0 {
		t.Error("the start-up proof never asked CDP's /supported")
	}
}
