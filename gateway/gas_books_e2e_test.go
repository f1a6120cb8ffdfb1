package gateway_test

import (
	"context"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
)

// gasFigures is the gas of one entry of GET /admin/api/summary.
type gasFigures struct {
	Settled      string `json:"settled"`
	SettledCalls int64  `json:"settled_calls"`
	Cost         string `json:"cost"`
	Gas          string `json:"gas"`
	GasWei       string `json:"gas_wei"`
	GasETH       string `json:"gas_eth"`
	GasPriced    bool   `json:"gas_priced"`
	Margin       string `json:"margin"`
}

type gasSummary struct {
	Models    map[string]gasFigures `json:"models"`
	Totals    gasFigures            `json:"totals"`
	GasPriced bool                  `json:"gas_priced"`
}

// TestBooksGasIsWhatTheRelayerSpentOnChain: a relayer of its own pays for
// exact calls (some batched together, their transaction's fee shared),
// a channel's deposit and a claim; once everything is mined the books'
// total gas in wei is exactly the relayer's ETH balance decrease, the
// exact model carries its transfers' gas, the metered model its deposit's,
// the claim counts under no model; priced at books.eth_price_usdc, gas
// enters the margin.
func TestBooksGasIsWhatTheRelayerSpentOnChain(t *testing.T) {
	c := devChain(t)
	ctx := context.Background()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	relayer := crypto.PubkeyToAddress(key.PublicKey)
	if err := c.FundETH(ctx, relayer, big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
	st, err := evm.NewSettler(ctx, c.Client, key)
	if err != nil {
		t.Fatal(err)
	}
	cfg := gateway.Config{
		Models: []gateway.ModelConfig{
			{Name: paid, Upstream: "scripted", Price: price},
			{Name: metered, Upstream: "scripted", PricePerMTok: &meteredPrice},
		},
		Payments: gateway.PaymentsConfig{PayTo: payTo, Networks: []string{c.Network.CAIP2}},
		Admin:    gateway.AdminConfig{TokenEnv: "FAREBOX_ADMIN_TOKEN"},
		Books:    gateway.BooksConfig{EthPriceUSDC: "3000"},
	}
	cfg.Payments.BatchSettlement.ClaimInterval = 0 // the default hour: the claim below is the admin's
	ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready,
		Getenv: func(n string) string { return map[string]string{"FAREBOX_ADMIN_TOKEN": adminToken}[n] }})
	root := strings.TrimSuffix(ts.URL, "/v1")
	bearer := []string{"Authorization", "Bearer " + adminToken}
	before, err := c.Client.BalanceAt(ctx, relayer, nil)
	if err != nil {
		t.Fatal(err)
	}

	// Exact: six calls at once (batched), then two alone.
	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	exact := ts.client(t, option.WithHTTPClient(&http.Client{Transport: payer.NewTransport(payer.NewSigner(c.PayerKey),
		payer.WithNetworks(reg), payer.WithSchemes(x402.SchemeExact), payer.WithPayTo(common.HexToAddress(payTo)))}))
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := exact.Responses.New(ctx, oresponses.ResponseNewParams{Model: paid, Input: userText("batched")}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for range 2 {
		if _, err := exact.Responses.New(ctx, oresponses.ResponseNewParams{Model: paid, Input: userText("alone")}); err != nil {
			t.Fatal(err)
		}
	}

	// A channel: a deposit the relayer sends, a voucher, then a claim.
	chanKey := freshPayer(t, c, 1_000_000, false)
	channels := ts.client(t, option.WithHTTPClient(&http.Client{Transport: payer.NewTransport(payer.NewSigner(chanKey),
		payer.WithNetworks(reg), payer.WithChain(c.Client), payer.WithSchemes(channel.Scheme),
		payer.WithPayTo(common.HexToAddress(payTo)), payer.WithChannelStore(payer.NewMemoryChannels()))}))
	for _, in := range []string{"open a channel", "a voucher"} {
		if _, err := channels.Responses.New(ctx, oresponses.ResponseNewParams{Model: metered, Input: userText(in)}); err != nil {
			t.Fatal(err)
		}
	}
	status, _, b := do(t, "POST", root+"/admin/api/channels/claim", nil, bearer...)
	if status != http.StatusOK || strings.Contains(string(b), `"claimed":"0"`) {
		t.Fatalf("claim now: %d %s, want a claim", status, b)
	}

	actx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := devchain.AwaitMined(actx, c.Client, relayer); err != nil {
		t.Fatal(err)
	}
	after, err := c.Client.BalanceAt(ctx, relayer, nil)
	if err != nil {
		t.Fatal(err)
	}
	spent := new(big.Int).Sub(before, after)
	if spent.Sign() <= 0 {
		t.Fatalf("the relayer spent %s wei", spent)
	}

	// The books follow the chain: poll until they hold every mined transfer.
	var sum gasSummary
	deadline := time.Now().Add(20 * time.Second)
	for {
		status, _, b := do(t, "GET", root+"/admin/api/summary", nil, bearer...)
		if status != http.StatusOK {
			t.Fatalf("summary: %d %s", status, b)
		}
		sum = gasSummary{}
		if err := json.Unmarshal(b, &sum); err != nil {
			t.Fatal(err)
		}
		if sum.Totals.GasWei == spent.String() || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got, want := sum.Totals.GasWei, spent.String(); got != want {
		t.Fatalf("the books say the relayer spent %s wei, the chain %s: %+v", got, want, sum)
	}
	ex, me := sum.Models[paid], sum.Models[metered]
	if ex.SettledCalls != 8 || ex.GasWei == "0" || me.GasWei == "0" {
		t.Errorf("exact model %+v, metered model %+v: want 8 transfers and gas booked under each model", ex, me)
	}
	claim := new(big.Int).Sub(spent, weiOf(t, ex.GasWei))
	claim.Sub(claim, weiOf(t, me.GasWei))
	if claim.Sign() <= 0 {
		t.Errorf("the claim's gas (under no model) is %s wei", claim)
	}
	if !sum.GasPriced || !sum.Totals.GasPriced || sum.Totals.Gas == "0" {
		t.Errorf("priced at 3000 USDC/ETH: gas %s, priced %v", sum.Totals.Gas, sum.GasPriced)
	}
	// Margin = settled - cost - gas, in atomic units.
	usdc := func(s string) *big.Int {
		n, err := x402.ParseUSDC(strings.TrimPrefix(s, "-"))
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if strings.HasPrefix(s, "-") {
			n.Neg(n)
		}
		return n
	}
	want := new(big.Int).Sub(usdc(ex.Settled), usdc(ex.Cost))
	want.Sub(want, usdc(ex.Gas))
	if ex.Gas == "0" || usdc(ex.Margin).Cmp(want) != 0 {
		t.Errorf("exact model: margin %s, gas %s, settled %s: want margin = settled - cost - gas", ex.Margin, ex.Gas, ex.Settled)
	}
}

func weiOf(t *testing.T, s string) *big.Int {
	t.Helper()
	n, ok := new(big.Int).SetString(s, 10)
	if !ok {
		t.Fatalf("gas_wei %q is not an integer", s)
	}
	return n
}
