package gateway_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// A client that speaks only exact pays the ceiling: exact moves exactly
// the signed value.
func TestExactOnMeteredModelChargesTheCeiling(t *testing.T) {
	ts, c := startMetered(t, nil)
	payerBefore := tokenBalance(t, c, c.Payer)
	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	var receipts []*x402.Receipt
	tr := payer.NewTransport(payer.NewSigner(c.PayerKey), payer.WithNetworks(reg), payer.WithSchemes(x402.SchemeExact),
		payer.OnReceipt(func(r *x402.Receipt) { receipts = append(receipts, r) }))
	res, err := ts.client(t, option.WithHTTPClient(&http.Client{Transport: tr})).Responses.New(context.Background(),
		oresponses.ResponseNewParams{Model: metered, Input: userText("exact please")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "completed" || len(receipts) != 1 {
		t.Fatalf("status %s, receipts %v", res.Status, receipts)
	}
	checkSettled(t, c, receipts[0])
	if got := new(big.Int).Sub(payerBefore, tokenBalance(t, c, c.Payer)); got.Int64() != ceilingAtomics {
		t.Errorf("payer paid %s, want the ceiling %d", got, ceilingAtomics)
	}
}

// The 402 of a per-token model offers batch-settlement, upto and exact at
// the ceiling with the gas-sponsoring extension; a per-call model's is
// unchanged (exact only).
func TestMeteredOfferHasThreeSchemes(t *testing.T) {
	ts, c := startMetered(t, nil)
	offered := func(model string) gjson.Result {
		res, _ := post(t, ts.URL+"/responses", `{"model":"`+model+`","input":"hi"}`)
		if res.StatusCode != http.StatusPaymentRequired {
			t.Fatalf("%s: status %d", model, res.StatusCode)
		}
		raw, err := base64.StdEncoding.DecodeString(res.Header.Get("PAYMENT-REQUIRED"))
		if err != nil {
			t.Fatal(err)
		}
		return gjson.ParseBytes(raw)
	}
	pr := offered(metered)
	var schemes []string
	for _, a := range pr.Get("accepts").Array() {
		schemes = append(schemes, a.Get("scheme").String())
		if a.Get("amount").Int() != ceilingAtomics || a.Get("network").String() != c.Network.CAIP2 {
			t.Errorf("accept %s", a.Raw)
		}
	}
	if strings.Join(schemes, ",") != "batch-settlement,upto,exact" {
		t.Errorf("schemes %v", schemes)
	}
	if got := pr.Get(`accepts.1.extra.facilitatorAddress`).String(); got != c.Relayer.Hex() {
		t.Errorf("upto facilitator %s, want the relayer %s", got, c.Relayer.Hex())
	}
	if got := pr.Get(`accepts.0.extra.receiverAuthorizer`).String(); got != c.Relayer.Hex() {
		t.Errorf("receiver authorizer %s, want the relayer %s", got, c.Relayer.Hex())
	}
	if !pr.Get("extensions.eip2612GasSponsoring").IsObject() || !pr.Get("extensions.payment-identifier").IsObject() {
		t.Errorf("extensions %s", pr.Get("extensions").Raw)
	}
	per := offered(paid)
	if n := len(per.Get("accepts").Array()); n != 1 || per.Get("accepts.0.scheme").String() != "exact" || per.Get("extensions.eip2612GasSponsoring").Exists() {
		t.Errorf("per-call offer %s", per.Raw)
	}
}

// A batch-settlement payment for a per-call model is refused as an
// unsupported scheme; a malformed voucher for a per-token one gets the
// spec's reason.
func TestBatchSettlementRefusals(t *testing.T) {
	ts, c := startMetered(t, nil)
	env := base64.StdEncoding.EncodeToString([]byte(`{"x402Version":2,"accepted":{"scheme":"batch-settlement","network":"` + c.Network.CAIP2 + `"},"payload":{"type":"voucher"}}`))
	res, body := post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"hi"}`, "PAYMENT-SIGNATURE", env)
	if res.StatusCode != http.StatusPaymentRequired || gjson.GetBytes(body, "error.code").String() != x402.ReasonUnsupportedScheme {
		t.Errorf("per-call model: status %d: %s", res.StatusCode, body)
	}
	res, body = post(t, ts.URL+"/responses", `{"model":"`+metered+`","input":"hi"}`, "PAYMENT-SIGNATURE", env)
	if res.StatusCode != http.StatusPaymentRequired || !strings.HasPrefix(gjson.GetBytes(body, "error.code").String(), "invalid_batch_settlement_evm_") {
		t.Errorf("malformed voucher: status %d: %s", res.StatusCode, body)
	}
}

// /v1/models shows a per-token model's prices; per-call models keep their shape.
func TestModelsShowTokenPrices(t *testing.T) {
	ts, _ := startMetered(t, nil)
	res, err := http.Get(ts.URL + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %v", res.StatusCode, err)
	}
	body := string(raw)
	m := gjson.Get(body, `data.#(id=="`+metered+`").price`)
	want := map[string]string{"unit": "token", "currency": "USDC", "input_atomic_per_mtok": "1250000",
		"output_atomic_per_mtok": "10000000", "max_atomic_per_call": "20000", "input_per_mtok": "1.25", "output_per_mtok": "10", "max_per_call": "0.02"}
	for k, v := range want {
		if got := m.Get(k).String(); got != v {
			t.Errorf("price.%s = %q, want %q (%s)", k, got, v, m.Raw)
		}
	}
	if p := gjson.Get(body, `data.#(id=="`+paid+`").price`); p.Get("unit").String() != "call" || p.Get("atomic").String() != "1000" {
		t.Errorf("per-call price %s", p.Raw)
	}
}

// An input that alone leaves room for fewer than 16 output tokens under
// the ceiling is a 400 before any payment.
func TestMeteredInputOverTheCeilingIs400(t *testing.T) {
	ts, _ := startMetered(t, nil)
	body, _ := json.Marshal(map[string]any{"model": metered, "input": strings.Repeat("x", 70_000)})
	res, b := post(t, ts.URL+"/responses", string(body))
	if res.StatusCode != http.StatusBadRequest || gjson.GetBytes(b, "error.code").String() != "context_length_exceeded" {
		t.Errorf("status %d: %s", res.StatusCode, b)
	}
}

// Per-token prices are validated at start with errors naming the key.
func TestTokenPriceConfigErrors(t *testing.T) {
	c := meteredDevChain(t)
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		mc   gateway.ModelConfig
		want string
	}{
		"both prices": {gateway.ModelConfig{Price: "0.01", PricePerMTok: &meteredPrice}, "price and price_per_mtok are exclusive"},
		"no ceiling":  {gateway.ModelConfig{PricePerMTok: &gateway.TokenPriceConfig{Input: "1", Output: "2"}}, "price_per_mtok.max_per_call is required"},
		"bad input":   {gateway.ModelConfig{PricePerMTok: &gateway.TokenPriceConfig{Input: "-1", Output: "2", MaxPerCall: "1"}}, "price_per_mtok.input"},
		"zero ceiling": {gateway.ModelConfig{PricePerMTok: &gateway.TokenPriceConfig{Input: "1", Output: "2", MaxPerCall: "0"}},
			"max_per_call must be more than 0"},
		"all free": {gateway.ModelConfig{PricePerMTok: &gateway.TokenPriceConfig{Input: "0", Output: "0", MaxPerCall: "1"}}, "both 0"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			tc.mc.Name, tc.mc.Upstream = "m", "scripted"
			cfg := gateway.Config{Models: []gateway.ModelConfig{tc.mc},
				Payments: gateway.PaymentsConfig{PayTo: payTo, Networks: []string{c.Network.CAIP2}}}
			_, err := gateway.New(cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "models[0] (m)") {
				t.Errorf("error %v, want one naming models[0] (m) and %q", err, tc.want)
			}
		})
	}
}

// payments.batch_settlement.claim_withdraw_lead must leave the claim time
// before a withdrawal can be finalized: at or over withdraw_delay (its
// default, 900 s, included) it is a startup error naming both keys.
func TestClaimWithdrawLeadConfig(t *testing.T) {
	for name, tc := range map[string]struct {
		bc   gateway.BatchSettlementConfig
		want string
	}{
		"the default lead":               {gateway.BatchSettlementConfig{}, ""},
		"a lead under the delay":         {gateway.BatchSettlementConfig{WithdrawDelay: 1800, ClaimWithdrawLead: gateway.Duration(29 * time.Minute)}, ""},
		"a lead equal to the delay":      {gateway.BatchSettlementConfig{ClaimWithdrawLead: gateway.Duration(15 * time.Minute)}, "claim_withdraw_lead (15m0s) must be less than withdraw_delay (900s"},
		"a lead over a configured delay": {gateway.BatchSettlementConfig{WithdrawDelay: 1200, ClaimWithdrawLead: gateway.Duration(time.Hour)}, "must be less than withdraw_delay (1200s"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg, opts, _ := meteredConfig(t, nil)
			cfg.Payments.BatchSettlement = tc.bc
			srv, err := gateway.New(cfg, opts)
			if err == nil {
				srv.Shutdown(context.Background())
			}
			if tc.want == "" && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if tc.want != "" && (err == nil || !strings.Contains(err.Error(), "payments.batch_settlement."+"claim_withdraw_lead") || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("error %v, want one saying %q", err, tc.want)
			}
		})
	}
}
