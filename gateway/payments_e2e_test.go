package gateway_test

import (
	"context"
	"encoding/base64"
	"errors"
	"github.com/farebox/farebox/internal/testkit/inprocess"
	"github.com/farebox/farebox/upstream/scripted"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/testenv"
	fb "github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/schemas"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

const (
	paid    = "farebox-scripted"
	payTo   = "0x90F79bf6EB2c4f870365E785982E1f101E93b906"
	price   = "0.001"
	atomics = 1000
)

var (
	chainOnce sync.Once
	chain     *devchain.Chain
	chainErr  error
)

// devChain is one in-process chain shared by the package's tests (each
// test reads balance differences, never absolute balances), closed by
// TestMain.
func devChain(t testing.TB) *devchain.Chain {
	t.Helper()
	testenv.SkipShort(t, "the in-process dev chain")
	chainOnce.Do(func() {
		if chain, chainErr = devchain.Start(context.Background(), devchain.Config{V1Name: "farebox-dev"}); chainErr == nil {
			afterAll(func() { chain.Close() })
		}
	})
	if chainErr != nil {
		t.Fatal(chainErr)
	}
	return chain
}

func paidConfig(c *devchain.Chain, settle string) gateway.Config {
	return gateway.Config{
		Models: []gateway.ModelConfig{
			{Name: paid, Upstream: "scripted", Price: price},
			{Name: free, Upstream: "scripted", Price: "0"},
		},
		Payments: gateway.PaymentsConfig{PayTo: payTo, Networks: []string{c.Network.CAIP2}, Settle: settle},
	}
}

// startPaid runs farebox settling on the dev chain through the chain settler.
func startPaid(t testing.TB, settle string) (*testServer, *devchain.Chain) {
	t.Helper()
	c := devChain(t)
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, paidConfig(c, settle), gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready})
	return ts, c
}

// startPaidUnaccounted is startPaid without in-flight accounting (a settler
// that cannot read balances), so an unfunded payer reaches the model and
// its settlement fails: the path these tests follow. With the accounting
// on, such a payer is refused before the model
// (TestPayerRacingItsBalanceIsServedOnce).
func startPaidUnaccounted(t testing.TB, settle string) (*testServer, *devchain.Chain) {
	t.Helper()
	c := devChain(t)
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, paidConfig(c, settle), gateway.Options{Networks: []*x402.Network{c.Network}, Settler: unaccounted{st}, Ready: st.Ready})
	return ts, c
}

// payingClient is openai-go over the paying transport with the dev payer.
func payingClient(t testing.TB, ts *testServer, c *devchain.Chain, receipts *[]*x402.Receipt) *openai.Client {
	reg, err := x402.NewRegistry(c.Network)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	tr := payer.NewTransport(payer.NewSigner(c.PayerKey), payer.WithNetworks(reg),
		payer.WithPayTo(common.HexToAddress(payTo)),
		payer.OnReceipt(func(r *x402.Receipt) { mu.Lock(); *receipts = append(*receipts, r); mu.Unlock() }))
	return ts.client(t, option.WithHTTPClient(&http.Client{Transport: tr}))
}

func tokenBalance(t testing.TB, c *devchain.Chain, who common.Address) *big.Int {
	t.Helper()
	settledBalances(t, c)
	data := append(common.FromHex("0x70a08231"), common.LeftPadBytes(who.Bytes(), 32)...)
	out, err := c.Client.CallContract(context.Background(), ethereum.CallMsg{To: &c.Network.Asset, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(out)
}

// settledBalances waits until every transaction the dev relayer sent is
// mined: farebox answers once a transfer is broadcast, before its block.
func settledBalances(t testing.TB, c *devchain.Chain) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := devchain.AwaitMined(ctx, c.Client, c.Relayer); err != nil {
		t.Fatal(err)
	}
}

// checkSettled asserts the receipt names a mined, successful transaction.
func checkSettled(t testing.TB, c *devchain.Chain, r *x402.Receipt) {
	t.Helper()
	if r == nil || !r.Success || r.Network != c.Network.CAIP2 || !strings.EqualFold(r.Payer, c.Payer.Hex()) {
		t.Fatalf("receipt %+v", r)
	}
	settledBalances(t, c)
	rec, err := c.Client.TransactionReceipt(context.Background(), common.HexToHash(r.Transaction))
	if err != nil || rec.Status != 1 {
		t.Fatalf("transaction %s: %v %+v", r.Transaction, err, rec)
	}
}

func TestUnpaidOpenAIGoCallGetsA402Error(t *testing.T) {
	ts, _ := startPaid(t, "after")
	_, err := ts.client(t).Responses.New(context.Background(), oresponses.ResponseNewParams{Model: paid, Input: userText("hi")})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("want *openai.Error, got %T: %v", err, err)
	}
	if apiErr.StatusCode != 402 || apiErr.Code != "payment_required" {
		t.Fatalf("status %d code %q", apiErr.StatusCode, apiErr.Code)
	}
	res, body := post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"hi"}`)
	if err := schemas.Validate("x402.v1_payment_required", body); err != nil {
		t.Errorf("402 body: %v\n%s", err, body)
	}
	hdr, err := base64.StdEncoding.DecodeString(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil {
		t.Fatal(err)
	}
	if err := schemas.Validate("x402.payment_required", hdr); err != nil {
		t.Errorf("PAYMENT-REQUIRED: %v\n%s", err, hdr)
	}
	if got := gjson.GetBytes(hdr, "accepts.0.amount").String(); got != "1000" {
		t.Errorf("amount %q", got)
	}
	if got := gjson.GetBytes(hdr, "resource.url").String(); got != ts.URL+"/responses" {
		t.Errorf("resource %q", got)
	}
	if got := gjson.GetBytes(body, "accepts.0.network").String(); got != "farebox-dev" {
		t.Errorf("v1 accepts network %q", got)
	}
}

func TestPaidCallsSettleOnChain(t *testing.T) {
	for _, settle := range []string{"after", "before"} {
		t.Run(settle, func(t *testing.T) {
			ts, c := startPaid(t, settle)
			var receipts []*x402.Receipt
			cl := payingClient(t, ts, c, &receipts)
			ctx := context.Background()
			payerBefore, payToBefore := tokenBalance(t, c, c.Payer), tokenBalance(t, c, common.HexToAddress(payTo))

			res, err := cl.Responses.New(ctx, oresponses.ResponseNewParams{Model: paid, Input: userText("a paid hello")})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.OutputText(), "a paid hello") || len(receipts) != 1 {
				t.Fatalf("answer %q, %d receipts", res.OutputText(), len(receipts))
			}
			checkSettled(t, c, receipts[0])

			// Streaming: after settlement the receipt is in-band on the
			// terminal event's response; before, it is also in the headers.
			evs := collect(t, cl, oresponses.ResponseNewParams{Model: paid, Input: userText("a paid stream")})
			final := evs[len(evs)-1]
			if final.Type != "response.completed" {
				t.Fatalf("terminal %s", final.Type)
			}
			inband, ok := final.Response.JSON.ExtraFields["x402"]
			if !ok {
				t.Fatalf("no in-band receipt in %s", final.Response.RawJSON())
			}
			r := &x402.Receipt{Success: gjson.Get(inband.Raw(), "success").Bool(), Transaction: gjson.Get(inband.Raw(), "transaction").String(),
				Payer: gjson.Get(inband.Raw(), "payer").String(), Network: gjson.Get(inband.Raw(), "network").String()}
			checkSettled(t, c, r)
			if err := schemas.Validate("x402.settle_response", []byte(inband.Raw())); err != nil {
				t.Error(err)
			}

			// Tool round trip, both turns paid.
			tools := []oresponses.ToolUnionParam{weatherTool()}
			first, err := cl.Responses.New(ctx, oresponses.ResponseNewParams{Model: paid, Tools: tools, Input: userText("get_weather in Rome")})
			if err != nil || len(first.Output) != 1 || first.Output[0].Type != "function_call" {
				t.Fatalf("%v %+v", err, first)
			}
			call := first.Output[0]
			second, err := cl.Responses.New(ctx, oresponses.ResponseNewParams{Model: paid, Tools: tools, Input: items(
				oresponses.ResponseInputItemParamOfMessage("get_weather in Rome", oresponses.EasyInputMessageRoleUser),
				oresponses.ResponseInputItemParamOfFunctionCall(call.Arguments.OfString, call.CallID, call.Name),
				callOutput(call.CallID, "cloudy"))})
			if err != nil || !strings.Contains(second.OutputText(), "cloudy") {
				t.Fatalf("%v %q", err, second.OutputText())
			}
			wantReceipts := 3
			if settle == "before" {
				wantReceipts = 4 // the stream's receipt header was sent before the answer
			}
			if len(receipts) != wantReceipts {
				t.Errorf("%d header receipts, want %d", len(receipts), wantReceipts)
			}
			spent := new(big.Int).Sub(payerBefore, tokenBalance(t, c, c.Payer))
			got := new(big.Int).Sub(tokenBalance(t, c, common.HexToAddress(payTo)), payToBefore)
			if spent.Int64() != 4*atomics || got.Int64() != 4*atomics {
				t.Errorf("payer spent %s, payTo got %s, want %d each", spent, got, 4*atomics)
			}
		})
	}
}

// brokenModel is an upstream that fails, after emitting `before` text
// deltas: the one fake here is the model.
type brokenModel struct{ before int }

func (m brokenModel) Respond(ctx context.Context, req *fb.Request, out fb.Output) error {
	for i := 0; i < m.before; i++ {
		out.Text("partial ")
	}
	return &fb.Error{Status: 502, Type: "server_error", Code: "server_error", Message: "The upstream model failed."}
}

// A call refused before the model runs is not charged, and the
// authorization it carried can be used again. Under settle: after an exact
// transfer goes to the chain as the model starts, so a model that fails
// then is charged once: its error carries the receipt and x-should-retry:
// false, and the same request with the same payment runs the model again
// at no charge. Likewise a stream the upstream breaks after it started.
func TestNothingChargedWithoutAnAnswer(t *testing.T) {
	c := devChain(t)
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	cfg := paidConfig(c, "after")
	cfg.Models = append(cfg.Models,
		gateway.ModelConfig{Name: "broken-early", Upstream: inprocess.Kind, UpstreamConfig: inprocess.Use(brokenModel{}), Price: price},
		gateway.ModelConfig{Name: "broken-midway", Upstream: inprocess.Kind, UpstreamConfig: inprocess.Use(brokenModel{before: 3}), Price: price})
	ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st})
	signer := payer.NewSigner(c.PayerKey)
	name, value, err := signer.PaymentHeader(offerFor(t, ts, c), 2)
	if err != nil {
		t.Fatal(err)
	}
	before := tokenBalance(t, c, c.Payer)

	res, b := post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"hi","temperature":9}`, name, value)
	if res.StatusCode != 400 {
		t.Fatalf("invalid request with a payment: %d %s", res.StatusCode, b)
	}
	if spent := new(big.Int).Sub(before, tokenBalance(t, c, c.Payer)); spent.Sign() != 0 {
		t.Errorf("spent %s on a request refused before the model", spent)
	}
	for i := 0; i < 2; i++ {
		res, b = post(t, ts.URL+"/responses", `{"model":"broken-early","input":"hi"}`, name, value)
		if res.StatusCode != 502 {
			t.Fatalf("upstream failure before output (%d): %d %s", i, res.StatusCode, b)
		}
		if i == 0 {
			if rc, err := x402.DecodeReceipt(res.Header.Get(x402.HeaderPaymentResponse)); err != nil || !rc.Success || res.Header.Get("X-Should-Retry") != "false" {
				t.Errorf("the failed call's receipt %+v %v, x-should-retry %q", rc, err, res.Header.Get("X-Should-Retry"))
			}
		}
	}
	if spent := new(big.Int).Sub(before, tokenBalance(t, c, c.Payer)); spent.Int64() != atomics {
		t.Errorf("spent %s, want exactly one price: the retry with the same payment is not charged again", spent)
	}

	name2, value2, err := signer.PaymentHeader(offerFor(t, ts, c), 2)
	if err != nil {
		t.Fatal(err)
	}
	res, b = post(t, ts.URL+"/responses", `{"model":"broken-midway","input":"hi","stream":true}`, name2, value2)
	if res.StatusCode != 200 || !strings.Contains(string(b), "event: error") || !strings.Contains(string(b), "response.failed") {
		t.Fatalf("upstream failure mid-stream: %d %s", res.StatusCode, b)
	}
	if spent := new(big.Int).Sub(before, tokenBalance(t, c, c.Payer)); spent.Int64() != 2*atomics {
		t.Errorf("spent %s after a stream broken after its first event, want two prices", spent)
	}
	m, err := http.Get(strings.TrimSuffix(ts.URL, "/v1") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Body.Close()
	metrics, _ := io.ReadAll(m.Body)
	for _, want := range []string{"farebox_authorizations_released_total 0", "farebox_settlements_total 2", "farebox_settlement_failures_total 0"} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("metrics lack %q:\n%s", want, metrics)
		}
	}
}

// offerFor reads the requirement farebox offers for the paid model.
func offerFor(t testing.TB, ts *testServer, c *devchain.Chain) *x402.Requirement {
	t.Helper()
	res, _ := post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"hi"}`)
	offers, err := x402.DecodePaymentRequired(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil || len(offers) != 1 {
		t.Fatalf("offers %v %v", offers, err)
	}
	amount, _ := new(big.Int).SetString(offers[0].Amount, 10)
	return &x402.Requirement{Scheme: "exact", Network: c.Network, Amount: amount, PayTo: common.HexToAddress(offers[0].PayTo),
		MaxTimeoutSeconds: offers[0].MaxTimeoutSeconds, Resource: offers[0].Resource}
}

// One authorization sent with the same body by 100 concurrent requests is
// one purchase: while it is in flight the others get 409
// payment_in_progress; once it is paid, the same request is served again
// with the same receipt. Every answer names one transaction, and the payer
// pays once.
func TestOneAuthorizationServesOneOfManyConcurrentRequests(t *testing.T) {
	ts, c := startPaid(t, "after")
	name, value, err := payer.NewSigner(c.PayerKey).PaymentHeader(offerFor(t, ts, c), 2)
	if err != nil {
		t.Fatal(err)
	}
	before := tokenBalance(t, c, c.Payer)
	const n = 100
	codes := make([]string, n)
	statuses := make([]int, n)
	txs := make([]string, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res, b := post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"race"}`, name, value)
			statuses[i], codes[i] = res.StatusCode, gjson.GetBytes(b, "error.code").String()
			if r, err := x402.DecodeReceipt(res.Header.Get(x402.HeaderPaymentResponse)); err == nil {
				txs[i] = r.Transaction
			}
		}(i)
	}
	wg.Wait()
	served, refused := 0, 0
	paidBy := map[string]bool{}
	for i := range statuses {
		switch {
		case statuses[i] == 200:
			served++
			paidBy[txs[i]] = true
		case statuses[i] == 409 && codes[i] == "payment_in_progress":
			refused++ // the same purchase, in flight: retry it once answered
		default:
			t.Errorf("request %d: %d %s", i, statuses[i], codes[i])
		}
	}
	if served < 1 || served+refused != n || len(paidBy) != 1 || paidBy[""] {
		t.Errorf("served %d, refused %d, transactions %v: want one purchase, every answer naming its one transaction", served, refused, paidBy)
	}
	if spent := new(big.Int).Sub(before, tokenBalance(t, c, c.Payer)); spent.Int64() != atomics {
		t.Errorf("spent %s, want exactly one price", spent)
	}
	// After settlement the same purchase is served again with its receipt,
	// charged nothing more; the authorization buys nothing else.
	res, b := post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"race"}`, name, value)
	if res.StatusCode != 200 || !strings.Contains(string(b), "race") {
		t.Errorf("the same purchase retried after settlement: %d %s", res.StatusCode, b)
	}
	if r, err := x402.DecodeReceipt(res.Header.Get(x402.HeaderPaymentResponse)); err != nil || !r.Success {
		t.Errorf("a retried purchase carries its receipt: %+v %v", r, err)
	}
	res, b = post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"again"}`, name, value)
	if res.StatusCode != 402 || gjson.GetBytes(b, "error.code").String() != x402.ReasonNonceAlreadyUsed || res.Header.Get("X-Should-Retry") != "false" {
		t.Errorf("the authorization for another body after settlement: %d %s", res.StatusCode, b)
	}
	if spent := new(big.Int).Sub(before, tokenBalance(t, c, c.Payer)); spent.Int64() != atomics {
		t.Errorf("spent %s after the retry, want exactly one price", spent)
	}
}

// Fifty concurrent paid calls settle through the chain settler, batched
// into few transactions whose nonces never collide: each call paid once.
func TestConcurrentPaidCallsSettleSeparately(t *testing.T) {
	ts, c := startPaid(t, "after")
	before := tokenBalance(t, c, c.Payer)
	const n = 50
	var receipts []*x402.Receipt
	cl := payingClient(t, ts, c, &receipts)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: paid, Input: userText("concurrent")}); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Transfers are batched (several per transaction): each receipt names
	// a mined transaction, and the balance shows each call paid once.
	if len(receipts) != n {
		t.Errorf("%d receipts for %d calls", len(receipts), n)
	}
	for _, r := range receipts {
		checkSettled(t, c, r)
	}
	if spent := new(big.Int).Sub(before, tokenBalance(t, c, c.Payer)); spent.Int64() != n*atomics {
		t.Errorf("spent %s, want %d", spent, n*atomics)
	}
}

// A client that disconnects mid-stream does not stop a settlement that was
// due: the answer was being produced, so it is paid for.
func TestDisconnectMidStreamStillSettles(t *testing.T) {
	c := devChain(t)
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	cfg := paidConfig(c, "after")
	cfg.Models[0].UpstreamConfig = &scripted.Settings{Pace: gateway.Duration(50 * time.Millisecond)}
	ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st})
	name, value, err := payer.NewSigner(c.PayerKey).PaymentHeader(offerFor(t, ts, c), 2)
	if err != nil {
		t.Fatal(err)
	}
	before := tokenBalance(t, c, c.Payer)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL+"/responses",
		strings.NewReader(`{"model":"`+paid+`","stream":true,"input":"a long enough answer to be cut off in the middle of its stream"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(name, value)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 512)
	if _, err := res.Body.Read(buf); err != nil { // the stream has started
		t.Fatal(err)
	}
	cancel()
	res.Body.Close()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if spent := new(big.Int).Sub(before, tokenBalance(t, c, c.Payer)); spent.Int64() == atomics {
			// The access log says the client left (499) and what it cost.
			line := waitLog(t, ts, func(l gjson.Result) bool { return l.Get("charge").Exists() })
			if line.Get("status").Int() != 499 || line.Get("charge").String() != "settled" || line.Get("cost_usdc").String() != price ||
				line.Get("transaction").String() == "" {
				t.Errorf("access log: %s", line.Raw)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("the settlement due for a started stream never happened")
}

// A stream paid with exact settles before its first event: a settlement
// that fails then is a 402 carrying the failed receipt, with nothing of
// the answer written, and is counted on /metrics. The payer here holds no
// USDC, so the chain refuses the transfer (no simulation is configured to
// catch it earlier).
func TestFailedSettlementBeforeAStreamIsA402(t *testing.T) {
	ts, c := startPaidUnaccounted(t, "after")
	broke, _ := crypto.GenerateKey()
	name, value, err := payer.NewSigner(broke).PaymentHeader(offerFor(t, ts, c), 2)
	if err != nil {
		t.Fatal(err)
	}
	res, body := post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"stream then fail to pay","stream":true}`, name, value)
	if res.StatusCode != http.StatusPaymentRequired || strings.Contains(string(body), "response.output_text.delta") ||
		gjson.GetBytes(body, "error.code").String() == "" {
		t.Fatalf("%d %s", res.StatusCode, body)
	}
	if rc, err := x402.DecodeReceipt(res.Header.Get(x402.HeaderPaymentResponse)); err != nil || rc.Success {
		t.Errorf("receipt %+v %v, want the failed one", rc, err)
	}
	m, err := http.Get(strings.TrimSuffix(ts.URL, "/v1") + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Body.Close()
	metrics, _ := io.ReadAll(m.Body)
	if !strings.Contains(string(metrics), "farebox_settlement_failures_total 1") {
		t.Errorf("metrics:\n%s", metrics)
	}
}

// /readyz fails when the chain settler's relayer cannot pay gas.
func TestReadyzFailsWithoutGasMoney(t *testing.T) {
	c := devChain(t)
	poor, _ := crypto.GenerateKey()
	st, err := evm.NewSettler(context.Background(), c.Client, poor)
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, paidConfig(c, "after"), gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready})
	res, err := http.Get(strings.TrimSuffix(ts.URL, "/v1") + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("readyz with a relayer holding no ETH: %d", res.StatusCode)
	}
	if err := c.FundETH(context.Background(), crypto.PubkeyToAddress(poor.PublicKey), big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
	res, err = http.Get(strings.TrimSuffix(ts.URL, "/v1") + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("readyz once the relayer has gas: %d", res.StatusCode)
	}
}

// A non-streaming answer whose settlement fails is withheld (402 with the
// failed receipt). With settle: before nothing ran, so the authorization is
// released: once the payer has funds, the very same authorization pays for
// the call. With settle: after the transfer was refused while the model
// ran for it: the authorization is spent and the payer in debt, so
// neither the same authorization nor a new one runs the model again.
func TestFailedSettlementWithholdsTheAnswerAndReleases(t *testing.T) {
	for _, settle := range []string{"after", "before"} {
		t.Run(settle, func(t *testing.T) {
			ts, c := startPaidUnaccounted(t, settle)
			broke, _ := crypto.GenerateKey()
			name, value, err := payer.NewSigner(broke).PaymentHeader(offerFor(t, ts, c), 2)
			if err != nil {
				t.Fatal(err)
			}
			res, body := post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"pay me later"}`, name, value)
			if res.StatusCode != 402 || strings.Contains(string(body), "pay me later") || res.Header.Get(x402.HeaderPaymentResponse) == "" {
				t.Fatalf("unpayable call: %d %s", res.StatusCode, body)
			}
			if r, err := x402.DecodeReceipt(res.Header.Get(x402.HeaderPaymentResponse)); err != nil || r.Success {
				t.Errorf("receipt %+v %v", r, err)
			}
			if err := c.Fund(context.Background(), crypto.PubkeyToAddress(broke.PublicKey), big.NewInt(atomics)); err != nil {
				t.Fatal(err)
			}
			res, body = post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"pay me later"}`, name, value)
			if settle == "after" {
				if res.StatusCode != 402 || strings.Contains(string(body), "pay me later") {
					t.Fatalf("the spent authorization once funded: %d %s", res.StatusCode, body)
				}
				name, value, err = payer.NewSigner(broke).PaymentHeader(offerFor(t, ts, c), 2)
				if err != nil {
					t.Fatal(err)
				}
				if res, body = post(t, ts.URL+"/responses", `{"model":"`+paid+`","input":"pay me now"}`, name, value); res.StatusCode != 402 ||
					!strings.Contains(string(body), "earlier payment") {
					t.Fatalf("a new authorization of the payer in debt: %d %s", res.StatusCode, body)
				}
				if left := tokenBalance(t, c, crypto.PubkeyToAddress(broke.PublicKey)); left.Int64() != atomics {
					t.Errorf("payer holds %s, want %d: nothing more was taken", left, atomics)
				}
				return
			}
			if res.StatusCode != 200 || !strings.Contains(string(body), "pay me later") {
				t.Fatalf("the same authorization once funded: %d %s", res.StatusCode, body)
			}
			if left := tokenBalance(t, c, crypto.PubkeyToAddress(broke.PublicKey)); left.Sign() != 0 {
				t.Errorf("payer still holds %s", left)
			}
		})
	}
}

// With settle: before the payment is taken before the model runs, so a
// model failure must not make an SDK retry (and pay) again: the error
// carries the receipt and X-Should-Retry: false, and openai-go, retrying
// 5xx by default, pays once.
func TestSettleBeforeFailureIsNotRetriedIntoASecondPayment(t *testing.T) {
	c := devChain(t)
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	st.PollInterval = 10 * time.Millisecond
	cfg := paidConfig(c, "before")
	cfg.Models = append(cfg.Models, gateway.ModelConfig{Name: "broken-early", Upstream: inprocess.Kind, UpstreamConfig: inprocess.Use(brokenModel{}), Price: price})
	ts := startServer(t, cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st})
	before := tokenBalance(t, c, c.Payer)
	var receipts []*x402.Receipt
	reg, _ := x402.NewRegistry(c.Network)
	tr := payer.NewTransport(payer.NewSigner(c.PayerKey), payer.WithNetworks(reg),
		payer.OnReceipt(func(r *x402.Receipt) { receipts = append(receipts, r) }))
	cl := openai.NewClient(option.WithBaseURL(ts.URL+"/"), option.WithAPIKey("x"), option.WithHTTPClient(&http.Client{Transport: tr}),
		option.WithMaxRetries(2), option.WithRequestTimeout(30*time.Second))
	_, err = cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: "broken-early", Input: userText("hi")})
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 502 {
		t.Fatalf("want the upstream's 502, got %v", err)
	}
	if len(receipts) != 1 || !receipts[0].Success {
		t.Errorf("receipts %+v: the failed call was paid once and says so", receipts)
	}
	if spent := new(big.Int).Sub(before, tokenBalance(t, c, c.Payer)); spent.Int64() != atomics {
		t.Errorf("spent %s, want one price (no retry paid again)", spent)
	}
}
