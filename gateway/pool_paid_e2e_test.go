package gateway_test

import (
	"context"
	"math/big"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/upstream/resell"
	oresponses "github.com/openai/openai-go/v3/responses"
)

// A reseller pools two farebox sellers on one chain; the first is paid as
// its model starts and then answers 502 (its provider 500s). Before, the
// reseller failed over and paid the second too: 3 calls cost the wallet
// two sellers' prices each, and the books knew only the second. Now the
// call stays with the seller that was paid: it is sent there again with
// the same payment (resell.PaidRetries times; the seller runs its model
// again for it, charging nothing more) and then ends with its error: each
// call costs the wallet one seller's price, the second seller is never
// paid, the paid failure opens
// the first seller's circuit at once (a seller that takes money and does
// not answer is not tried again within the cooldown, even with a circuit
// of many failures), and what the pool books as the suppliers' cost is
// what the wallet paid, chain-judged.
func TestHostilePoolOfSellersPaysOnce(t *testing.T) {
	a := sharedAnvil(t)
	up, err := fakeupstream.Start(fakeupstream.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	seller := func(model gateway.ModelConfig) (*testServer, common.Address) {
		pc, env := chainSettled(t, a)
		ts := startServer(t, gateway.Config{Models: []gateway.ModelConfig{model}, Payments: pc},
			gateway.Options{Getenv: func(k string) string { return env[k] }})
		return ts, common.HexToAddress(pc.PayTo)
	}
	broken, brokenPayTo := seller(gateway.ModelConfig{Name: sellerModel, Price: "0.001", Upstream: "openai",
		UpstreamConfig: endpoint("openai", up.URL(), "status:500")})
	healthy, healthyPayTo := seller(gateway.ModelConfig{Name: sellerModel, Upstream: "scripted", Price: "0.001"})

	wallet, pc, env := resellerWallet(t, a, 20*sellerPrice)
	resellerPayTo := common.HexToAddress(pc.PayTo)
	sup := x402Supplier
	reseller := startServer(t, gateway.Config{Payments: pc, Models: []gateway.ModelConfig{{Name: resoldModel, Price: "0.002",
		Suppliers: []gateway.SupplierConfig{sup("broken", broken.URL), sup("healthy", healthy.URL)},
		Routing:   gateway.RoutingConfig{Strategy: "ordered", Circuit: gateway.CircuitConfig{Failures: 5, Cooldown: gateway.Duration(time.Hour)}}}}},
		gateway.Options{Getenv: func(k string) string { return env[k] }})

	userKey, _ := crypto.GenerateKey()
	user := crypto.PubkeyToAddress(userKey.PublicKey)
	if err := a.Fund(context.Background(), user, 20*resalePrice); err != nil {
		t.Fatal(err)
	}
	cl := payingReseller(t, reseller, a.Network, userKey, resellerPayTo)
	accounts := map[string]common.Address{"wallet": wallet, "broken": brokenPayTo, "healthy": healthyPayTo}
	balances := func() map[string]*big.Int {
		out := map[string]*big.Int{}
		for k, addr := range accounts {
			out[k] = usdcBalance(t, a, addr)
		}
		return out
	}
	before := balances()
	// The first call buys from the broken seller, which takes the payment
	// and fails; its circuit is then open, so the next two buy from the
	// healthy seller only.
	for i := range 3 {
		_, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: resoldModel, Input: userText("pay once")})
		if (i == 0) != (err != nil) {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if n := len(up.Records()); n != 1+resell.PaidRetries {
		t.Errorf("the broken seller's model ran %d times, want %d (the paid call and its retries with the same payment)", n, 1+resell.PaidRetries)
	}
	after := balances()
	moved := map[string]int64{}
	for who, want := range map[string]int64{"wallet": -3 * sellerPrice, "broken": sellerPrice, "healthy": 2 * sellerPrice} {
		got := new(big.Int).Sub(after[who], before[who]).Int64()
		moved[who] = got
		if got != want {
			t.Errorf("%s moved %d, want %d", who, got, want)
		}
	}
	if booked := suppliersSpent(t, reseller, resoldModel); booked != -moved["wallet"] {
		t.Errorf("the pool booked %d as its suppliers' cost; the wallet paid %d", booked, -moved["wallet"])
	}
}

// suppliersSpent sums farebox_supplier_spent_atomic_total over model's
// suppliers.
func suppliersSpent(t *testing.T, ts *testServer, model string) int64 {
	var sum int64
	re := regexp.MustCompile(`(?m)^farebox_supplier_spent_atomic_total\{model="` + regexp.QuoteMeta(model) + `",supplier="[^"]*"\} (\S+)$`)
	for _, m := range re.FindAllStringSubmatch(metricsText(t, ts), -1) {
		v, _ := strconv.ParseFloat(m[1], 64)
		sum += int64(v)
	}
	return sum
}
