package gateway_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"github.com/farebox/farebox/upstream/resell"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

const (
	sellerModel = "seller-scripted"
	resoldModel = "resold"
	sellerPrice = 1000 // 0.001 USDC: what the reseller pays
	resalePrice = 2000 // 0.002 USDC: what the reseller's client pays
)

// resale is two fareboxes on one anvil: a seller of a scripted model and a
// reseller whose model is `upstream: x402` in front of it, each settling
// with its own relayer, with four accounts the chain judges.
type resale struct {
	a                                        *chaintest.Anvil
	seller, reseller                         *testServer
	sellerPayTo, resellerPayTo, wallet, user common.Address
	userKey                                  *ecdsa.PrivateKey
}

func chainSettled(t *testing.T, a *chaintest.Anvil) (gateway.PaymentsConfig, map[string]string) {
	key, err := a.NewRelayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pc := usdcPayments(a)
	pc.Settler = "chain"
	pc.Chain = gateway.ChainConfig{RPCURL: a.RPCURL, RelayerKeyEnv: relayerEnv}
	return pc, map[string]string{relayerEnv: hexutil.Encode(crypto.FromECDSA(key))}
}

// resellerWallet is a reseller's wallet holding funds (atomic units) and
// the payments section of a reseller settling on a with a relayer of its
// own, the wallet's key in env as RESELLER_WALLET_KEY.
func resellerWallet(t *testing.T, a *chaintest.Anvil, funds int64) (common.Address, gateway.PaymentsConfig, map[string]string) {
	t.Helper()
	walletKey, _ := crypto.GenerateKey()
	wallet := crypto.PubkeyToAddress(walletKey.PublicKey)
	if err := a.Fund(context.Background(), wallet, funds); err != nil {
		t.Fatal(err)
	}
	pc, env := chainSettled(t, a)
	env["RESELLER_WALLET_KEY"] = hexutil.Encode(crypto.FromECDSA(walletKey))
	return wallet, pc, env
}

// x402Supplier is a pool's supplier buying sellerModel at url with the
// reseller's wallet, up to 0.002 USDC a call.
func x402Supplier(name, url string) gateway.SupplierConfig {
	return gateway.SupplierConfig{Name: name, Upstream: "x402", UpstreamConfig: &resell.Settings{BaseURL: url, UpstreamModel: sellerModel,
		PayerKeyEnv: "RESELLER_WALLET_KEY", MaxUpstreamPrice: "0.002"}}
}

// startResale runs the pair; sellerURL overrides where the reseller buys
// (a seller that is down), maxUpstream is the reseller's limit in USDC and
// walletFunds what its wallet holds.
// edit, when given, changes the reseller's model config.
func startResale(t *testing.T, sellerURL, maxUpstream string, walletFunds int64, edit ...func(*gateway.ModelConfig)) *resale {
	a := sharedAnvil(t)
	r := &resale{a: a}
	pc, env := chainSettled(t, a)
	r.sellerPayTo = common.HexToAddress(pc.PayTo)
	r.seller = startServer(t, gateway.Config{Models: []gateway.ModelConfig{{Name: sellerModel, Upstream: "scripted", Price: "0.001"}}, Payments: pc},
		gateway.Options{Getenv: func(k string) string { return env[k] }})
	if sellerURL == "" {
		sellerURL = r.seller.URL
	}

	walletKey, _ := crypto.GenerateKey()
	r.wallet = crypto.PubkeyToAddress(walletKey.PublicKey)
	if walletFunds > 0 {
		if err := a.Fund(context.Background(), r.wallet, walletFunds); err != nil {
			t.Fatal(err)
		}
	}
	pc, env = chainSettled(t, a)
	env["RESELLER_WALLET_KEY"] = hexutil.Encode(crypto.FromECDSA(walletKey))
	r.resellerPayTo = common.HexToAddress(pc.PayTo)
	mc := gateway.ModelConfig{Name: resoldModel, Upstream: "x402", UpstreamConfig: &resell.Settings{BaseURL: sellerURL,
		UpstreamModel: sellerModel, PayerKeyEnv: "RESELLER_WALLET_KEY", MaxUpstreamPrice: maxUpstream}, Price: "0.002"}
	for _, f := range edit {
		f(&mc)
	}
	r.reseller = startServer(t, gateway.Config{Models: []gateway.ModelConfig{mc}, Payments: pc},
		gateway.Options{Getenv: func(k string) string { return env[k] }})

	r.userKey, _ = crypto.GenerateKey()
	r.user = crypto.PubkeyToAddress(r.userKey.PublicKey)
	if err := a.Fund(context.Background(), r.user, 10*resalePrice); err != nil {
		t.Fatal(err)
	}
	return r
}

// client is openai-go paying the reseller from the user's key.
func (r *resale) client(t *testing.T) *openai.Client {
	reg, err := x402.NewRegistry(r.a.Network)
	if err != nil {
		t.Fatal(err)
	}
	tr := payer.NewTransport(payer.NewSigner(r.userKey), payer.WithNetworks(reg), payer.WithPayTo(r.resellerPayTo))
	return r.reseller.client(t, option.WithHTTPClient(&http.Client{Transport: tr}))
}

func (r *resale) balances(t *testing.T) map[string]*big.Int {
	return map[string]*big.Int{
		"user": usdcBalance(t, r.a, r.user), "reseller": usdcBalance(t, r.a, r.resellerPayTo),
		"wallet": usdcBalance(t, r.a, r.wallet), "seller": usdcBalance(t, r.a, r.sellerPayTo),
	}
}

// checkMoved asserts each account moved by exactly want (atomic units).
func (r *resale) checkMoved(t *testing.T, before map[string]*big.Int, want map[string]int64) {
	t.Helper()
	after := r.balances(t)
	for who, w := range want {
		if got := new(big.Int).Sub(after[who], before[who]); got.Int64() != w {
			t.Errorf("%s moved %s, want %d", who, got, w)
		}
	}
}

// A resold call moves money along the chain of two: the user pays the
// reseller twice the seller's price, the reseller's wallet pays the
// seller once, for text, a stream and a tool call alike.
func TestResoldCallsPayAlongTheChain(t *testing.T) {
	r := startResale(t, "", "0.001", 10*sellerPrice)
	cl := r.client(t)
	ctx := context.Background()
	tool := oresponses.ToolUnionParam{OfFunction: &oresponses.FunctionToolParam{Name: "get_weather",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"}}}}
	for _, tt := range []struct {
		name  string
		check func(t *testing.T)
	}{
		{"text", func(t *testing.T) {
			res, err := cl.Responses.New(ctx, oresponses.ResponseNewParams{Model: resoldModel, Input: userText("resold hello")})
			if err != nil || !strings.Contains(res.OutputText(), "resold hello") {
				t.Fatalf("%v %+v", err, res)
			}
		}},
		{"stream", func(t *testing.T) {
			st := cl.Responses.NewStreaming(ctx, oresponses.ResponseNewParams{Model: resoldModel, Input: userText("resold stream")})
			var final oresponses.Response
			for st.Next() {
				if ev := st.Current(); ev.Type == "response.completed" {
					final = ev.Response
				}
			}
			if err := st.Err(); err != nil || !strings.Contains(final.OutputText(), "resold stream") {
				t.Fatalf("%v %q", err, final.OutputText())
			}
			if rc := gjson.Get(final.RawJSON(), "x402"); !rc.Get("success").Bool() || rc.Get("payer").String() == "" {
				t.Errorf("the reseller's in-band receipt: %s", rc.Raw)
			}
		}},
		{"tool call", func(t *testing.T) {
			res, err := cl.Responses.New(ctx, oresponses.ResponseNewParams{Model: resoldModel, Input: userText("call get_weather please"),
				Tools: []oresponses.ToolUnionParam{tool}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Output) != 1 || res.Output[0].Type != "function_call" || res.Output[0].Name != "get_weather" ||
				!gjson.Get(res.Output[0].Arguments.OfString, "city").Exists() {
				t.Fatalf("the call does not come back to the client: %s", res.RawJSON())
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := r.balances(t)
			tt.check(t)
			r.checkMoved(t, before, map[string]int64{"user": -resalePrice, "reseller": resalePrice, "wallet": -sellerPrice, "seller": sellerPrice})
		})
	}
	metrics := metricsText(t, r.reseller)
	for _, want := range []string{`farebox_charged_atomic_total{model="resold"} 6000`, `farebox_upstream_signed_atomic_total{model="resold"} 3000`,
		`farebox_upstream_paid_atomic_total{model="resold"} 3000`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s:\n%s", want, metrics)
		}
	}
	if !strings.Contains(r.reseller.logs.String(), `"msg":"upstream purchase"`) {
		t.Error("no upstream purchase logged")
	}
}

// When the reseller cannot or may not buy, its client gets a clear 5xx
// naming the cause and nobody is charged.
func TestResaleFailuresChargeNobody(t *testing.T) {
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	down := "http://" + closed.Addr().String() + "/v1"
	closed.Close()
	for _, tt := range []struct {
		name, sellerURL, max string
		wallet               int64
		status               int
		code                 string
	}{
		{"upstream asks more than the limit", "", "0.0005", 10 * sellerPrice, 502, "upstream_price_too_high"},
		{"seller down", down, "0.001", 10 * sellerPrice, 502, "server_error"},
		{"wallet cannot pay", "", "0.001", sellerPrice / 2, 503, "reseller_wallet_low"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := startResale(t, tt.sellerURL, tt.max, tt.wallet)
			before := r.balances(t)
			_, err := r.client(t).Responses.New(context.Background(), oresponses.ResponseNewParams{Model: resoldModel, Input: userText("hi")})
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tt.status || apiErr.Code != tt.code {
				t.Fatalf("got %v, want %d %s", err, tt.status, tt.code)
			}
			r.checkMoved(t, before, map[string]int64{"user": 0, "reseller": 0, "wallet": 0, "seller": 0})
			if tt.code == "reseller_wallet_low" && !strings.Contains(metricsText(t, r.reseller), `farebox_reseller_wallet_low{model="resold"} 1`) {
				t.Error("no wallet alert in the metrics")
			}
		})
	}
}

func metricsText(t *testing.T, ts *testServer) string {
	res, err := http.Get(strings.TrimSuffix(ts.URL, "/v1") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}
