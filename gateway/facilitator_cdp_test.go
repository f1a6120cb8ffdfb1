package gateway_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/cdpfake"
	"github.com/farebox/farebox/x402"
	oresponses "github.com/openai/openai-go/v3/responses"
)

// cdpConfig is a priced config settling through a facilitator at url on
// the given networks.
func cdpConfig(url string, networks ...string) gateway.Config {
	return gateway.Config{
		Models: []gateway.ModelConfig{{Name: "m", Upstream: "scripted", Price: "0.001"}},
		Payments: gateway.PaymentsConfig{PayTo: "0x2222222222222222222222222222222222222222", Networks: networks,
			Settler: "facilitator", Facilitator: gateway.FacilitatorConfig{URL: url}},
	}
}

// supportedOnly is a facilitator whose /supported lists exact on these
// CAIP-2 networks alone.
func supportedOnly(t *testing.T, networks ...string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var kinds []map[string]any
		for _, n := range networks {
			kinds = append(kinds, map[string]any{"x402Version": 2, "scheme": "exact", "network": n})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"kinds": kinds, "extensions": []string{}, "signers": map[string]any{}})
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A url on CDP's host is the CDP facilitator, which needs both key
// variables: one line naming them.
func TestCDPFacilitatorNeedsItsKeyVariables(t *testing.T) {
	for _, fc := range []gateway.FacilitatorConfig{{URL: "https://api.cdp.coinbase.com/platform/v2/x402"}, {Kind: "cdp"}} {
		c := cdpConfig(fc.URL, "base")
		c.Payments.Facilitator = fc
		err := c.Validate(nil)
		if err == nil || !strings.Contains(err.Error(), "key_id_env and key_secret_env") {
			t.Errorf("%+v: %v", fc, err)
		}
		c.Payments.Facilitator.KeyIDEnv, c.Payments.Facilitator.KeySecretEnv = "CDP_API_KEY_ID", "CDP_API_KEY_SECRET"
		env := map[string]string{"CDP_API_KEY_ID": "id", "CDP_API_KEY_SECRET": "s"}
		if err := c.Validate(func(k string) string { return env[k] }); err != nil {
			t.Errorf("%+v with its keys: %v", fc, err)
		}
	}
}

// Start-up asks /supported: a configured network the facilitator does not
// list refuses the start in one line naming it; one it lists passes.
func TestProveRefusesANetworkTheFacilitatorDoesNotSettle(t *testing.T) {
	url := supportedOnly(t, "eip155:84532")
	err := cdpConfig(url, "base").Prove(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "eip155:8453 ") || !strings.Contains(err.Error(), "exact") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Prove: %v", err)
	}
	if err := cdpConfig(url, "base-sepolia").Prove(context.Background(), nil); err != nil {
		t.Fatalf("Prove of a listed network: %v", err)
	}
}

// Through the CDP stand-in, a wrong key id fails the start-up proof with
// the key id named and the secret nowhere; the right key passes.
func TestProveThroughCDPNamesAWrongKey(t *testing.T) {
	key := cdpfake.ECKey(t, "operator-key")
	f := cdpfake.New(t, supportedOnly(t, "eip155:84532"), []cdpfake.Key{key})
	c := cdpConfig(f.URL, "base-sepolia")
	c.Payments.Facilitator = gateway.FacilitatorConfig{Kind: "cdp", URL: f.URL, KeyIDEnv: "CDP_API_KEY_ID", KeySecretEnv: "CDP_API_KEY_SECRET"}
	env := map[string]string{"CDP_API_KEY_ID": "wrong-key", "CDP_API_KEY_SECRET": key.Secret}
	getenv := func(k string) string { return env[k] }
	err := c.Prove(context.Background(), getenv)
	if err == nil || !strings.Contains(err.Error(), "wrong-key") || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "PRIVATE") {
		t.Fatalf("Prove with a wrong key id: %v", err)
	}
	env["CDP_API_KEY_ID"] = key.ID
	if err := c.Prove(context.Background(), getenv); err != nil {
		t.Fatalf("Prove with the key: %v (refused: %v)", err, f.Refused())
	}
}

// A paid call settles through the CDP stand-in, which verifies every
// token as CDP does, in front of the reference facilitator on anvil: with
// an EC key and with an Ed25519 key; the chain shows one payment each.
func TestCDPFacilitatorSettlesWithBothKeyTypes(t *testing.T) {
	for _, key := range []cdpfake.Key{cdpfake.ECKey(t, "organizations/o/apiKeys/ec"), cdpfake.Ed25519Key(t, "ed25519-key")} {
		t.Run(key.ID, func(t *testing.T) {
			a, ref := referenceFacilitator(t)
			f := cdpfake.New(t, ref.URL, []cdpfake.Key{key})
			pc := usdcPayments(a)
			pc.Settler = "facilitator"
			pc.Facilitator = gateway.FacilitatorConfig{Kind: "cdp", URL: f.URL, KeyIDEnv: "CDP_API_KEY_ID", KeySecretEnv: "CDP_API_KEY_SECRET"}
			fb := startUSDCFarebox(t, a, pc, map[string]string{"CDP_API_KEY_ID": key.ID, "CDP_API_KEY_SECRET": key.Secret})
			var receipts []*x402.Receipt
			var sent []string
			cl := fb.client(t, a.PayerKey, 2, &receipts, &sent)
			before := usdcBalance(t, a, a.Payer)
			res, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: usdcModel, Input: userText("paid through cdp")})
			if err != nil || len(receipts) != 1 {
				t.Fatalf("%v, %d receipts; refused %v\nfacilitator output:\n%s", err, len(receipts), f.Refused(), ref.Output())
			}
			_ = res
			checkMinedReceipt(t, a, receipts[0], a.Payer, networkName(2))
			fb.checkPaidOnce(t, a.Payer, before)
			if f.Accepted("settle") != 1 || len(f.Refused()) != 0 {
				t.Errorf("stand-in accepted %d settlements, refused %v", f.Accepted("settle"), f.Refused())
			}
		})
	}
}
