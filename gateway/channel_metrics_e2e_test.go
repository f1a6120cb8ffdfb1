package gateway_test

import (
	"context"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
)

// /metrics counts the channel service's work and shows what its channels
// hold unclaimed: after a deposit and two vouchers, exactly the sum
// charged; after a partial refund (which claims), nothing, the channel
// still recorded; after the full refund, no channel at all.
func TestChannelMetrics(t *testing.T) {
	cfg, opts, c := meteredConfig(t, nil)
	cfg.Payments.BatchSettlement.ClaimInterval = 0 // the default hour: nothing is claimed but by the refunds
	ts := startServer(t, cfg, opts)
	root := strings.TrimSuffix(ts.URL, "/v1")
	key := freshPayer(t, c, 1_000_000, false)
	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	tr := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithChain(c.Client), payer.WithSchemes(channel.Scheme))
	cl := ts.client(t, option.WithHTTPClient(&http.Client{Transport: tr}))
	var charged int64
	for _, in := range []string{"deposit", "voucher one", "voucher two, longer"} {
		res, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: metered, Input: userText(in)})
		if err != nil {
			t.Fatal(err)
		}
		charged += min((res.Usage.InputTokens*inputPerMTok+res.Usage.OutputTokens*outputPerMTok+999_999)/1_000_000, ceilingAtomics)
	}
	check := func(when string, want map[string]float64) {
		t.Helper()
		fams := scrape(t, root+"/metrics")
		for name, v := range want {
			if got := value(fams, name); got != v {
				t.Errorf("%s: %s = %v, want %v", when, name, got, v)
			}
		}
	}
	check("after three calls", map[string]float64{"farebox_channel_deposits_total": 1, "farebox_channel_vouchers_total": 2,
		"farebox_channel_unclaimed_atomic": float64(charged), "farebox_channels": 1, "farebox_channel_refunds_total": 0,
		"farebox_channel_claim_transactions_total": 0, "farebox_channel_claimed_channels_total": 0,
		"farebox_channel_mismatches_total": 0, "farebox_channel_busy_refusals_total": 0, "farebox_channel_aborts_total": 0})
	refund := func(amount *big.Int) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/responses", nil)
		if _, err := tr.Refund(req, amount); err != nil {
			t.Fatal(err)
		}
	}
	refund(big.NewInt(1000))
	check("after a partial refund", map[string]float64{"farebox_channel_refunds_total": 1, "farebox_channel_unclaimed_atomic": 0, "farebox_channels": 1})
	refund(nil)
	check("after the full refund", map[string]float64{"farebox_channel_refunds_total": 2, "farebox_channel_unclaimed_atomic": 0, "farebox_channels": 0})
}
