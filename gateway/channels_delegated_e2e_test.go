package gateway_test

import (
	"context"
	"encoding/base64"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/tidwall/gjson"
)

// With settler facilitator, farebox delegates batch-settlement to the
// reference facilitator (@x402/evm's BatchSettlementEvmScheme with a
// receiver-authorizer key): the per-token model's 402 offers
// batch-settlement with the facilitator's advertised receiverAuthorizer,
// the official client deposits once (sent by the facilitator) and pays
// vouchers, and at shutdown the facilitator signs and relays the claim and
// sweep that leave exactly the sum charged with the receiver, judged on
// chain.
func TestBatchSettlementDelegatedToTheReferenceFacilitator(t *testing.T) {
	cfg, opts, c := meteredConfig(t, nil)
	relayer, _ := crypto.GenerateKey()
	if err := c.FundETH(context.Background(), crypto.PubkeyToAddress(relayer.PublicKey), big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
	// The reference facilitator sends settle with a fixed 120,000 gas: a
	// first transfer of the dev token to an empty receiver does not fit
	// in it (a receiver of real USDC holds some already).
	if err := c.Fund(context.Background(), common.HexToAddress(payTo), big.NewInt(1)); err != nil {
		t.Fatal(err)
	}
	authorizer, _ := crypto.GenerateKey()
	url := chaintest.StartBatchFacilitator(t, c.RPCURL, relayer, authorizer)
	cfg.Payments.Settler = "facilitator"
	cfg.Payments.Facilitator.URL = url
	cfg.Payments.Chain.RPCURL = c.RPCURL
	opts.Settler, opts.Ready = nil, nil

	ts := startServer(t, cfg, opts)
	resp, err := http.Post(ts.URL+"/responses", "application/json", strings.NewReader(`{"model":"`+metered+`","input":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	raw, _ := base64.StdEncoding.DecodeString(resp.Header.Get("PAYMENT-REQUIRED"))
	offer := gjson.GetBytes(raw, `accepts.#(scheme=="batch-settlement")`)
	if resp.StatusCode != http.StatusPaymentRequired || !offer.Exists() {
		t.Fatalf("402 offers no batch-settlement: %d %s", resp.StatusCode, raw)
	}
	if got := common.HexToAddress(offer.Get("extra.receiverAuthorizer").String()); got != crypto.PubkeyToAddress(authorizer.PublicKey) {
		t.Fatalf("offer's receiverAuthorizer %s, want the facilitator's %s", got, crypto.PubkeyToAddress(authorizer.PublicKey))
	}
	if gjson.GetBytes(raw, `accepts.#(scheme=="upto")`).Exists() {
		t.Fatalf("upto offered through a facilitator: %s", raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := ts.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	depositVouchersClaim(t, cfg, opts, c)
}

// grepLines keeps the log lines that mention word, for a failure message.
func grepLines(logs, word string) string {
	var out []string
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, word) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
