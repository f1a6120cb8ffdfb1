package gateway_test

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
)

// adminChannels is GET /admin/api/channels as the tests read it.
type adminChannels struct {
	Served            bool       `json:"served"`
	Unclaimed         string     `json:"unclaimed"`
	LastClaim         *time.Time `json:"last_claim"`
	NextClaimAt       *time.Time `json:"next_claim_at"`
	NextClaimReason   string     `json:"next_claim_reason"`
	NextClaimAmount   string     `json:"next_claim_amount"`
	ClaimIntervalSecs int64      `json:"claim_interval_seconds"`
	Channels          []struct {
		ID              string     `json:"id"`
		Payer           string     `json:"payer"`
		Unclaimed       string     `json:"unclaimed"`
		NextClaimAt     *time.Time `json:"next_claim_at"`
		NextClaimReason string     `json:"next_claim_reason"`
		NotClaimed      string     `json:"not_claimed"`
	} `json:"channels"`
}

func getChannels(t *testing.T, root string) adminChannels {
	t.Helper()
	status, _, b := do(t, "GET", root+"/admin/api/channels", nil, "Authorization", "Bearer "+adminToken)
	var out adminChannels
	if status != http.StatusOK || json.Unmarshal(b, &out) != nil {
		t.Fatalf("channels: %d %s", status, b)
	}
	return out
}

func atomicUSDC(t *testing.T, v string) int64 {
	t.Helper()
	n, err := x402.ParseUSDC(v)
	if err != nil {
		t.Fatalf("%q: %v", v, err)
	}
	return n.Int64()
}

// The operator's view of the claimer and "claim now", with real vouchers
// on the dev chain: what was charged waits for the interval's claim, an
// hour after the start. "Claim now" moves exactly that to payTo on chain,
// leaves every channel with nothing unclaimed and nothing scheduled, and a
// second "claim now" claims 0 and sends no transaction. What is charged
// next waits for the interval after that claim.
func TestAdminNextClaimAndClaimNow(t *testing.T) {
	cfg, opts, c := meteredConfig(t, nil)
	cfg.Admin.TokenEnv = "FAREBOX_ADMIN_TOKEN"
	opts.Getenv = func(n string) string { return map[string]string{"FAREBOX_ADMIN_TOKEN": adminToken}[n] }
	ts := startServer(t, cfg, opts)
	root := strings.TrimSuffix(ts.URL, "/v1")
	key := freshPayer(t, c, 1_000_000, false)
	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	tr := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithChain(c.Client), payer.WithSchemes(channel.Scheme))
	cl := ts.client(t, option.WithHTTPClient(&http.Client{Transport: tr}))
	call := func(in string) int64 {
		t.Helper()
		res, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: metered, Input: userText(in)})
		if err != nil {
			t.Fatal(err)
		}
		return min((res.Usage.InputTokens*inputPerMTok+res.Usage.OutputTokens*outputPerMTok+999_999)/1_000_000, ceilingAtomics)
	}
	if ch := getChannels(t, root); !ch.Served || ch.NextClaimAt != nil || ch.Unclaimed != "0" {
		t.Fatalf("before any call: %+v, want channels served and no claim scheduled", ch)
	}
	var charged int64
	for _, in := range []string{"the deposit", "voucher one", "voucher two, a little longer"} {
		charged += call(in)
	}
	// No claim yet: the interval runs from the start, so what was charged
	// waits for it (or for the operator).
	ch := getChannels(t, root)
	unclaimed := atomicUSDC(t, ch.Unclaimed)
	if unclaimed != charged || len(ch.Channels) != 1 || ch.LastClaim != nil || ch.NextClaimReason != channel.ClaimInterval ||
		ch.NextClaimAt == nil || ch.NextClaimAt.Before(time.Now().Add(50*time.Minute)) || ch.NextClaimAmount != ch.Unclaimed {
		t.Fatalf("after three calls: %+v, want the %d charged waiting for the interval's claim, about an hour after the start", ch, charged)
	}
	if c0 := ch.Channels[0]; c0.Unclaimed != ch.Unclaimed || c0.NextClaimAt == nil || !c0.NextClaimAt.Equal(*ch.NextClaimAt) ||
		c0.NextClaimReason != channel.ClaimInterval || c0.NotClaimed != "" {
		t.Errorf("the channel: %+v, want it in the next claim", c0)
	}

	receiver := common.HexToAddress(payTo)
	before := tokenBalance(t, c, receiver)
	nonce, err := c.Client.NonceAt(context.Background(), c.Relayer, nil)
	if err != nil {
		t.Fatal(err)
	}
	claim := func() (claimed string, channels int, txs []string) {
		t.Helper()
		status, _, b := do(t, "POST", root+"/admin/api/channels/claim", nil, "Authorization", "Bearer "+adminToken)
		var res struct {
			Channels     int      `json:"channels"`
			Claimed      string   `json:"claimed"`
			Transactions []string `json:"transactions"`
		}
		if status != http.StatusOK || json.Unmarshal(b, &res) != nil {
			t.Fatalf("claim now: %d %s", status, b)
		}
		return res.Claimed, res.Channels, res.Transactions
	}
	claimed, n, txs := claim()
	if claimed != ch.Unclaimed || n != 1 || len(txs) != 1 {
		t.Fatalf("claim now: %s from %d channels in %v, want %s from 1 in one transaction", claimed, n, txs, ch.Unclaimed)
	}
	checkMinedTx(t, c, txs[0])
	if got := new(big.Int).Sub(tokenBalance(t, c, receiver), before); got.Int64() != unclaimed {
		t.Errorf("payTo gained %s on chain, want exactly the unclaimed %d", got, unclaimed)
	}
	after := getChannels(t, root)
	if after.Unclaimed != "0" || len(after.Channels) != 1 || after.Channels[0].Unclaimed != "0" || after.NextClaimAt != nil ||
		after.Channels[0].NextClaimAt != nil {
		t.Errorf("after claim now: %+v, want nothing unclaimed and no claim scheduled", after)
	}
	nonce2, err := c.Client.NonceAt(context.Background(), c.Relayer, nil)
	if err != nil {
		t.Fatal(err)
	}
	if claimed, n, txs := claim(); claimed != "0" || n != 0 || len(txs) != 0 {
		t.Errorf("a second claim now: %s from %d channels in %v, want nothing", claimed, n, txs)
	}
	if n3, err := c.Client.NonceAt(context.Background(), c.Relayer, nil); err != nil || n3 != nonce2 || nonce2 != nonce+1 {
		t.Errorf("relayer nonce %d before, %d after the claim, %d after the second (%v): want one transaction, then none", nonce, nonce2, n3, err)
	}
	// What is charged next waits for the interval after that claim.
	more := call("voucher three")
	if ch := getChannels(t, root); ch.LastClaim == nil || ch.NextClaimAt == nil || !ch.NextClaimAt.Equal(ch.LastClaim.Add(time.Hour)) ||
		ch.NextClaimReason != channel.ClaimInterval || atomicUSDC(t, ch.NextClaimAmount) != more {
		t.Errorf("after another voucher: %+v, want the interval's claim of %d an hour after the last claim", ch, more)
	}
}
