package gateway_test

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"github.com/farebox/farebox/internal/testkit/inprocess"
	"io"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	gethtypes "github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	gethrpc "github.com/ethereum/go-ethereum/rpc"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	fb "github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/payer"
	"github.com/tidwall/gjson"
)

// heldModel writes its first delta, then waits for hold to close (or
// its call to end) before writing the rest: the test acts on chain in
// between. started is closed when it is called.
type heldModel struct {
	started, hold chan struct{}
	once          sync.Once
}

func newHeldModel() *heldModel {
	return &heldModel{started: make(chan struct{}), hold: make(chan struct{})}
}

func (m *heldModel) Respond(ctx context.Context, req *fb.Request, out fb.Output) error {
	m.once.Do(func() { close(m.started) })
	if err := out.Text("first delta. "); err != nil {
		return err
	}
	select {
	case <-m.hold:
	case <-ctx.Done():
		return ctx.Err()
	}
	for _, d := range []string{"second delta. ", "the end."} {
		if err := out.Text(d); err != nil {
			return err
		}
	}
	return nil
}

// startHeldFarebox is farebox settling on anvil with its own relayer,
// serving m under settle: after.
func startHeldFarebox(t *testing.T, m fb.Model) *usdcFarebox {
	t.Helper()
	a := sharedAnvil(t)
	key, err := a.NewRelayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pc := usdcPayments(a)
	pc.Settler = "chain"
	pc.Chain = gateway.ChainConfig{RPCURL: a.RPCURL, RelayerKeyEnv: relayerEnv}
	env := map[string]string{relayerEnv: hexutil.Encode(crypto.FromECDSA(key))}
	cfg := gateway.Config{
		Models:   []gateway.ModelConfig{{Name: usdcModel, Upstream: inprocess.Kind, UpstreamConfig: inprocess.Use(m), Price: price}},
		Payments: pc,
	}
	ts := startServer(t, cfg, gateway.Options{Getenv: func(k string) string { return env[k] }})
	return &usdcFarebox{testServer: ts, a: a, payTo: common.HexToAddress(pc.PayTo)}
}

// fundedPayer is a key with gas money and exactly funds USDC.
func fundedPayer(t *testing.T, f *usdcFarebox, funds int64) (*ecdsa.PrivateKey, common.Address) {
	t.Helper()
	key, err := f.a.NewRelayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	addr := crypto.PubkeyToAddress(key.PublicKey)
	if err := f.a.Fund(context.Background(), addr, funds); err != nil {
		t.Fatal(err)
	}
	return key, addr
}

// A third party copies the payer's transferWithAuthorization from the
// node's pool and has it mined before farebox's relayer's (a higher tip,
// while the model runs): the money reached payTo, so farebox answers,
// its receipt names the third party's transaction, and the payer owes
// nothing (its next call is served).
func TestHostileFrontRunIsPaid(t *testing.T) {
	m := newHeldModel()
	f := startHeldFarebox(t, m)
	key, from := fundedPayer(t, f, 2*atomics)
	req := f.offer(t, 2)
	p, err := payer.NewSigner(key).Sign(req, 2)
	if err != nil {
		t.Fatal(err)
	}
	value, err := x402.EncodePayment(p, req)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rpc := manualMining(t, f.a)
	type answer struct {
		res  *http.Response
		body []byte
	}
	done := make(chan answer, 1)
	var wg sync.WaitGroup
	release := sync.OnceFunc(func() { close(m.hold) })
	t.Cleanup(func() { release(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		res, b := post(t, f.URL+"/responses", `{"model":"`+usdcModel+`","input":"front-run me"}`, x402.HeaderPaymentSignature, value)
		done <- answer{res, b}
	}()
	<-m.started
	awaitPending(t, f.a) // farebox's transfer went to the node as the model started
	third, err := f.a.NewRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	front := frontRunTx(t, f, third, p)
	if err := f.a.Client.SendTransaction(ctx, front); err != nil {
		t.Fatal(err)
	}
	if err := rpc.CallContext(ctx, nil, "evm_mine"); err != nil {
		t.Fatal(err)
	}
	if err := rpc.CallContext(ctx, nil, "evm_setAutomine", true); err != nil {
		t.Fatal(err)
	}
	waitLogged(t, f.testServer, "paid by another sender's transaction")
	release()
	got := <-done
	if got.res.StatusCode != 200 || !strings.Contains(string(got.body), "the end.") {
		t.Fatalf("front-run call: %d %s\nlogs:\n%s", got.res.StatusCode, got.body, f.logs.String())
	}
	rc, err := x402.DecodeReceipt(got.res.Header.Get(x402.HeaderPaymentResponse))
	if err != nil || !rc.Success || !strings.EqualFold(rc.Transaction, front.Hash().Hex()) {
		t.Fatalf("receipt %+v %v, want success naming %s", rc, err, front.Hash().Hex())
	}
	if spent, paid := new(big.Int).Sub(big.NewInt(2*atomics), usdcBalance(t, f.a, from)), usdcBalance(t, f.a, f.payTo); spent.Int64() != atomics || paid.Int64() != atomics {
		t.Fatalf("payer spent %s, payTo received %s, want %d each", spent, paid, atomics)
	}
	// No debt: the same payer's next call is served.
	name, next, err := payer.NewSigner(key).PaymentHeader(req, 2)
	if err != nil {
		t.Fatal(err)
	}
	if res, b := postBounded(t, f.URL+"/responses", `{"model":"`+usdcModel+`","input":"again"}`, name, next); res.StatusCode != 200 {
		t.Fatalf("the payer's next call: %d %s", res.StatusCode, b)
	}
}

// manualMining turns anvil's automine off until the test ends (a block is
// then mined by evm_mine): transactions wait in the pool.
func manualMining(t *testing.T, a *chaintest.Anvil) *gethrpc.Client {
	t.Helper()
	ctx := context.Background()
	rpc := a.Client.Client()
	if err := rpc.CallContext(ctx, nil, "evm_setAutomine", false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rpc.CallContext(ctx, nil, "evm_setAutomine", true); rpc.CallContext(ctx, nil, "evm_mine") })
	return rpc
}

// awaitPending waits until anvil's pool holds a transaction.
func awaitPending(t *testing.T, a *chaintest.Anvil) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var status struct{ Pending hexutil.Uint64 }
		if err := a.Client.Client().CallContext(context.Background(), &status, "txpool_status"); err != nil {
			t.Fatal(err)
		}
		if status.Pending > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no transaction reached the pool")
		}
	}
}

// waitLogged waits until the server logged a line containing msg.
func waitLogged(t *testing.T, ts *testServer, msg string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(ts.logs.String(), msg); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the logs:\n%s", msg, ts.logs.String())
		}
	}
}

// frontRunTx is key's own transferWithAuthorization of p, with a tip far
// above farebox's relayer's so a block orders it first.
func frontRunTx(t *testing.T, f *usdcFarebox, key *ecdsa.PrivateKey, p *x402.Payment) *gethtypes.Transaction {
	t.Helper()
	au := p.Authorization
	var r, s [32]byte
	copy(r[:], p.Signature[:32])
	copy(s[:], p.Signature[32:64])
	data := contracts.NewFareboxUSDv2().PackTransferWithAuthorization0(au.From, au.To, au.Value, au.ValidAfter, au.ValidBefore, au.Nonce, p.Signature[64], r, s)
	nonce, err := f.a.Client.PendingNonceAt(context.Background(), crypto.PubkeyToAddress(key.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	asset := f.a.Network.Asset
	tx, err := gethtypes.SignNewTx(key, gethtypes.LatestSignerForChainID(big.NewInt(chaintest.ChainID)), &gethtypes.DynamicFeeTx{
		ChainID: big.NewInt(chaintest.ChainID), Nonce: nonce, GasTipCap: big.NewInt(500e9), GasFeeCap: big.NewInt(1000e9),
		Gas: 200_000, To: &asset, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// A payer that moves its funds away after the first delta of a stream paid
// with exact does not get the rest for free: the transfer went to the
// chain before the first delta left, so payTo has the price on chain and
// the stream ends completed with a successful receipt.
func TestHostileStreamPayerMovesFundsAfterFirstDelta(t *testing.T) {
	m := newHeldModel()
	f := startHeldFarebox(t, m)
	key, from := fundedPayer(t, f, atomics)
	name, value, err := payer.NewSigner(key).PaymentHeader(f.offer(t, 2), 2)
	if err != nil {
		t.Fatal(err)
	}
	hreq, _ := http.NewRequest(http.MethodPost, f.URL+"/responses", strings.NewReader(`{"model":"`+usdcModel+`","input":"stream me","stream":true}`))
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set(name, value)
	res, err := http.DefaultClient.Do(hreq)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("stream: %d", res.StatusCode)
	}
	sc := bufio.NewScanner(res.Body)
	var events []string
	next := func() string { // the next event's data
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "data: ") {
				events = append(events, line[6:])
				return line[6:]
			}
		}
		t.Fatalf("the stream ended after %d events: %v", len(events), sc.Err())
		return ""
	}
	for gjson.Get(next(), "type").String() != "response.output_text.delta" {
	}
	// The payer moves everything it holds elsewhere, from its own key.
	own, err := evm.NewSettler(context.Background(), f.a.Client, key)
	if err != nil {
		t.Fatal(err)
	}
	asset := f.a.Network.Asset
	tx, err := own.Call(context.Background(), asset, contracts.NewFareboxUSDv2().PackTransfer(common.HexToAddress(freshAddress()), usdcBalance(t, f.a, from)), nil)
	if err == nil {
		_, err = own.AwaitCall(context.Background(), tx)
	}
	if err != nil {
		// A transfer of everything can only fail when it is already gone
		// to payTo: that is the point.
		t.Logf("moving the funds away: %v", err)
	}
	close(m.hold)
	last := ""
	for {
		last = next()
		if typ := gjson.Get(last, "type").String(); typ == "response.completed" || typ == "response.failed" {
			break
		}
	}
	if typ := gjson.Get(last, "type").String(); typ != "response.completed" || !gjson.Get(last, "response.x402.success").Bool() {
		t.Errorf("the stream ended with %s", last)
	}
	if paid := usdcBalance(t, f.a, f.payTo); paid.Int64() != atomics {
		t.Fatalf("payTo received %s on chain, want %d: the payer read the stream for free", paid, atomics)
	}
}

// payments.streams: escrow_only sells streams only against escrow: an
// exact payment for stream: true is a 402 (unsupported_scheme) whose offer
// lists no exact requirement, its authorization unspent; the same kind of
// payment buys a non-streaming call.
func TestHostileStreamEscrowOnlyRefusesExact(t *testing.T) {
	a := sharedAnvil(t)
	key, err := a.NewRelayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pc := usdcPayments(a)
	pc.Settler = "chain"
	pc.Streams = "escrow_only"
	pc.Chain = gateway.ChainConfig{RPCURL: a.RPCURL, RelayerKeyEnv: relayerEnv}
	f := startUSDCFarebox(t, a, pc, map[string]string{relayerEnv: hexutil.Encode(crypto.FromECDSA(key))})
	req := f.offer(t, 2)
	signer := payer.NewSigner(a.PayerKey)
	name, value, err := signer.PaymentHeader(req, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, b := post(t, f.URL+"/responses", `{"model":"`+usdcModel+`","input":"stream me","stream":true}`, name, value)
	if res.StatusCode != http.StatusPaymentRequired || gjson.GetBytes(b, "error.code").String() != x402.ReasonUnsupportedScheme {
		t.Fatalf("exact stream: %d %s, want 402 %s", res.StatusCode, b, x402.ReasonUnsupportedScheme)
	}
	pr, err := base64.StdEncoding.DecodeString(res.Header.Get(x402.HeaderPaymentRequired))
	if err != nil || !gjson.ValidBytes(pr) || strings.Contains(string(pr), `"exact"`) {
		t.Errorf("the refusal's offer: %s %v, want no exact requirement", pr, err)
	}
	if n := f.model.calls.Load(); n != 0 {
		t.Errorf("the model ran %d times", n)
	}
	res, b = post(t, f.URL+"/responses", `{"model":"`+usdcModel+`","input":"no stream"}`, name, value)
	if res.StatusCode != 200 {
		t.Fatalf("the same authorization for a non-streaming call: %d %s", res.StatusCode, b)
	}
}

// A payer that empties its balance with a higher-fee transaction landing in
// the same block as the stream's transfer makes that transfer fail on
// chain after the first delta left: the stream is stopped at once with
// response.failed (no further content), payTo has nothing, and the payer
// is in debt (its next call is refused).
func TestHostileStreamTransferFailsMidStream(t *testing.T) {
	m := newHeldModel()
	f := startHeldFarebox(t, m)
	key, from := fundedPayer(t, f, atomics)
	req := f.offer(t, 2)
	name, value, err := payer.NewSigner(key).PaymentHeader(req, 2)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rpc := f.a.Client.Client()
	if err := rpc.CallContext(ctx, nil, "evm_setAutomine", false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rpc.CallContext(ctx, nil, "evm_setAutomine", true); rpc.CallContext(ctx, nil, "evm_mine") })

	hreq, _ := http.NewRequest(http.MethodPost, f.URL+"/responses", strings.NewReader(`{"model":"`+usdcModel+`","input":"stream me","stream":true}`))
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set(name, value)
	res, err := (&http.Client{Timeout: 60 * time.Second}).Do(hreq)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("stream: %d", res.StatusCode)
	}
	sc := bufio.NewScanner(res.Body)
	var data []string
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = append(data, d)
			if gjson.Get(d, "type").String() == "response.output_text.delta" {
				break
			}
		}
	}
	// The transfer is in the node's pool: the payer outbids it with a
	// transfer of everything it holds, and the block carries both.
	drain := drainTx(t, f, key, from, atomics)
	if err := f.a.Client.SendTransaction(ctx, drain); err != nil {
		t.Fatal(err)
	}
	if err := rpc.CallContext(ctx, nil, "evm_mine"); err != nil {
		t.Fatal(err)
	}
	for sc.Scan() { // the model is still held: only farebox can end the stream
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			data = append(data, d)
		}
	}
	all := strings.Join(data, "\n")
	if strings.Contains(all, "second delta") {
		t.Errorf("content after the transfer failed: %s", all)
	}
	terminal := ""
	for _, d := range data {
		if typ := gjson.Get(d, "type").String(); typ == "response.failed" || typ == "response.completed" {
			terminal = d
		}
	}
	// The spec's error codes have no payment reason: server_error, the
	// reason in the message.
	if gjson.Get(terminal, "type").String() != "response.failed" || gjson.Get(terminal, "response.error.code").String() != "server_error" ||
		!strings.Contains(gjson.Get(terminal, "response.error.message").String(), x402.ReasonInsufficientFunds) {
		t.Fatalf("the stream ended with %q (%v)", terminal, sc.Err())
	}
	close(m.hold)
	if err := rpc.CallContext(ctx, nil, "evm_setAutomine", true); err != nil {
		t.Fatal(err)
	}
	// The engine finds the transfer failed after broadcast: a debt.
	waitMetric(t, strings.TrimSuffix(f.URL, "/v1"), "farebox_settlement_events_total", 1, "event", "failed")
	if paid := usdcBalance(t, f.a, f.payTo); paid.Sign() != 0 {
		t.Errorf("payTo received %s", paid)
	}
	if err := f.a.Fund(ctx, from, atomics); err != nil {
		t.Fatal(err)
	}
	name, value, err = payer.NewSigner(key).PaymentHeader(req, 2)
	if err != nil {
		t.Fatal(err)
	}
	if res, b := postBounded(t, f.URL+"/responses", `{"model":"`+usdcModel+`","input":"again"}`, name, value); res.StatusCode != http.StatusPaymentRequired ||
		!strings.Contains(string(b), "earlier payment") {
		t.Fatalf("the payer's next call: %d %s, want refused for its debt", res.StatusCode, b)
	}
}

// drainTx is key's transfer of amount (all its USDC) elsewhere, with a
// tip far above the relayer's so a block orders it first.
func drainTx(t *testing.T, f *usdcFarebox, key *ecdsa.PrivateKey, from common.Address, amount int64) *gethtypes.Transaction {
	t.Helper()
	ctx := context.Background()
	nonce, err := f.a.Client.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	asset := f.a.Network.Asset
	data := contracts.NewFareboxUSDv2().PackTransfer(common.HexToAddress(freshAddress()), big.NewInt(amount))
	tx, err := gethtypes.SignNewTx(key, gethtypes.LatestSignerForChainID(big.NewInt(chaintest.ChainID)), &gethtypes.DynamicFeeTx{
		ChainID: big.NewInt(chaintest.ChainID), Nonce: nonce, GasTipCap: big.NewInt(500e9), GasFeeCap: big.NewInt(1000e9),
		Gas: 200_000, To: &asset, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// runHoldingModel holds every call after its first delta until release
// is closed or its call is cancelled, and counts the runs it saw start,
// finish and be cancelled: the upstream's own log.
type runHoldingModel struct {
	release                   chan struct{}
	runs, finished, cancelled atomic.Int64
}

func (m *runHoldingModel) Respond(ctx context.Context, req *fb.Request, out fb.Output) error {
	m.runs.Add(1)
	if err := out.Text("first delta. "); err != nil {
		return err
	}
	select {
	case <-m.release:
	case <-ctx.Done():
		m.cancelled.Add(1)
		return ctx.Err()
	}
	m.finished.Add(1)
	return out.Text("the end.")
}

// awaitRuns waits until m has started n runs.
func (m *runHoldingModel) awaitRuns(t *testing.T, n int64) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); m.runs.Load() < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d model runs started, want %d", m.runs.Load(), n)
		}
	}
}

// moveAll transfers all of key's USDC elsewhere from its own key and
// waits for the block: the payer's funds leave while the model runs.
func moveAll(t *testing.T, f *usdcFarebox, key *ecdsa.PrivateKey, from common.Address) {
	t.Helper()
	own, err := evm.NewSettler(context.Background(), f.a.Client, key)
	if err != nil {
		t.Fatal(err)
	}
	all := usdcBalance(t, f.a, from)
	tx, err := own.Call(context.Background(), f.a.Network.Asset, contracts.NewFareboxUSDv2().PackTransfer(common.HexToAddress(freshAddress()), all), nil)
	if err == nil {
		_, err = own.AwaitCall(context.Background(), tx)
	}
	if err != nil {
		// Moving everything fails only when farebox's transfers took
		// some of it first: that is the point.
		t.Logf("moving %s away: %v", all, err)
	}
}

// A payer funded for N calls sends N at once under settle: after (each
// with its own authorization, JSON answers) and moves its whole balance
// away while the N model runs are under way, then moves it back and
// replays the same N authorizations. Each exact transfer went to the node
// as its model started: every run is paid on chain or, its transfer
// refused, cancelled while still running (402, nothing of the answer);
// the replays run the model no more, and a payer that made the model run
// unpaid is refused until it settles. The upstream's own count and the
// chain judge.
func TestHostileFundedForNMovesFundsWhileTheModelRuns(t *testing.T) {
	const n = 4
	m := &runHoldingModel{release: make(chan struct{})}
	f := startHeldFarebox(t, m)
	key, from := fundedPayer(t, f, n*atomics)
	req := f.offer(t, 2)
	signer := payer.NewSigner(key)
	values := make([]string, n)
	for i := range values {
		p, err := signer.Sign(req, 2)
		if err != nil {
			t.Fatal(err)
		}
		if values[i], err = x402.EncodePayment(p, req); err != nil {
			t.Fatal(err)
		}
	}
	body := func(i int) string { return `{"model":"` + usdcModel + `","input":"free run ` + strconv.Itoa(i) + `"}` }
	type answer struct {
		status int
		body   string
	}
	answers := make([]answer, n)
	var wg sync.WaitGroup
	var releaseOnce sync.Once
	release := func() { releaseOnce.Do(func() { close(m.release) }) }
	t.Cleanup(func() { release(); wg.Wait() })
	for i := range values {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hreq, _ := http.NewRequest(http.MethodPost, f.URL+"/responses", strings.NewReader(body(i)))
			hreq.Header.Set("Content-Type", "application/json")
			hreq.Header.Set(x402.HeaderPaymentSignature, values[i])
			res, err := (&http.Client{Timeout: 60 * time.Second}).Do(hreq)
			if err != nil {
				answers[i] = answer{0, err.Error()}
				return
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			answers[i] = answer{res.StatusCode, string(b)}
		}()
	}
	m.awaitRuns(t, n)
	moveAll(t, f, key, from)
	// Every run is now paid on chain or cancelled (its transfer refused):
	// none is left running unpaid.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		paid := usdcBalance(t, f.a, f.payTo).Int64() / atomics
		if paid+m.cancelled.Load() == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("with the funds moved away: %d runs paid, %d cancelled, of %d still running", paid, m.cancelled.Load(), n)
		}
	}
	release()
	wg.Wait()
	paid := usdcBalance(t, f.a, f.payTo).Int64() / atomics
	served := 0
	for i, a := range answers {
		switch {
		case a.status == 200 && strings.Contains(a.body, "the end."):
			served++
		case a.status == http.StatusPaymentRequired && !strings.Contains(a.body, "first delta"):
		default:
			t.Errorf("call %d: %d %s", i, a.status, a.body)
		}
	}
	if int64(served) != paid || m.finished.Load() != paid || m.cancelled.Load() != n-paid {
		t.Fatalf("%d served, %d paid on chain, %d runs finished, %d cancelled, of %d", served, paid, m.finished.Load(), m.cancelled.Load(), n)
	}
	t.Logf("%d of %d runs paid, %d cancelled when their transfer was refused", paid, n, n-paid)

	// The funds come back; the same authorizations are replayed.
	if err := f.a.Fund(context.Background(), from, n*atomics); err != nil {
		t.Fatal(err)
	}
	for i, v := range values {
		res, b := postBounded(t, f.URL+"/responses", body(i), x402.HeaderPaymentSignature, v)
		if res.StatusCode != 200 && res.StatusCode != http.StatusPaymentRequired {
			t.Errorf("replay %d: %d %s", i, res.StatusCode, b)
		}
	}
	if runs := m.runs.Load(); runs != n {
		t.Errorf("the model ran %d times, want %d: the replays ran it again", runs, n)
	}
	if got := usdcBalance(t, f.a, f.payTo).Int64(); got != paid*atomics {
		t.Errorf("payTo holds %d after the replays, want %d", got, paid*atomics)
	}
	if paid == n {
		return
	}
	// It made the model run unpaid: a fresh authorization is refused.
	name, value, err := signer.PaymentHeader(req, 2)
	if err != nil {
		t.Fatal(err)
	}
	if res, b := postBounded(t, f.URL+"/responses", body(n), name, value); res.StatusCode != http.StatusPaymentRequired || !strings.Contains(string(b), "earlier payment") {
		t.Fatalf("the payer's next call: %d %s, want refused for its debt", res.StatusCode, b)
	}
	if runs := m.runs.Load(); runs != n {
		t.Errorf("the model ran %d times, want %d", runs, n)
	}
}

// A payer funded for N calls outbids farebox's transfers: once all N went
// to the node with their models running, it empties its balance with a
// higher-fee transaction that lands first in the same block. Farebox's
// transfers fail on chain: every model run is cancelled when the block
// shows it (402 with nothing of the answer), payTo has nothing and the
// payer is in debt. What the payer got is bounded by the model time from
// the transfer's broadcast to that block; the test logs how long after
// the block the runs were cancelled.
func TestHostileFundedForNOutbidsTheTransfers(t *testing.T) {
	const n = 4
	m := &runHoldingModel{release: make(chan struct{})}
	f := startHeldFarebox(t, m)
	key, from := fundedPayer(t, f, n*atomics)
	req := f.offer(t, 2)
	ctx := context.Background()
	rpc := manualMining(t, f.a)
	signer := payer.NewSigner(key)
	statuses := make([]int, n)
	var wg sync.WaitGroup
	release := sync.OnceFunc(func() { close(m.release) })
	t.Cleanup(func() { release(); wg.Wait() })
	for i := range statuses {
		name, value, err := signer.PaymentHeader(req, 2)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			hreq, _ := http.NewRequest(http.MethodPost, f.URL+"/responses", strings.NewReader(`{"model":"`+usdcModel+`","input":"outbid `+strconv.Itoa(i)+`"}`))
			hreq.Header.Set("Content-Type", "application/json")
			hreq.Header.Set(name, value)
			if res, err := (&http.Client{Timeout: 60 * time.Second}).Do(hreq); err == nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				statuses[i] = res.StatusCode
			}
		}()
	}
	m.awaitRuns(t, n)
	root := strings.TrimSuffix(f.URL, "/v1")
	waitMetric(t, root, "farebox_settlement_events_total", n, "event", "broadcast") // all N in the pool
	drain := drainTx(t, f, key, from, n*atomics)
	if err := f.a.Client.SendTransaction(ctx, drain); err != nil {
		t.Fatal(err)
	}
	mined := time.Now()
	if err := rpc.CallContext(ctx, nil, "evm_mine"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); m.cancelled.Load() < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d model runs cancelled after the block that failed their transfers", m.cancelled.Load(), n)
		}
	}
	t.Logf("all %d model runs cancelled %v after the block that failed their transfers", n, time.Since(mined).Round(time.Millisecond))
	release()
	wg.Wait()
	for i, st := range statuses {
		if st != http.StatusPaymentRequired {
			t.Errorf("call %d: %d, want 402", i, st)
		}
	}
	if err := rpc.CallContext(ctx, nil, "evm_setAutomine", true); err != nil {
		t.Fatal(err)
	}
	waitMetric(t, root, "farebox_settlement_events_total", n, "event", "failed")
	if paid := usdcBalance(t, f.a, f.payTo); paid.Sign() != 0 || m.finished.Load() != 0 {
		t.Errorf("payTo received %s, %d runs finished", paid, m.finished.Load())
	}
	if err := f.a.Fund(ctx, from, atomics); err != nil {
		t.Fatal(err)
	}
	name, value, err := signer.PaymentHeader(req, 2)
	if err != nil {
		t.Fatal(err)
	}
	if res, b := postBounded(t, f.URL+"/responses", `{"model":"`+usdcModel+`","input":"again"}`, name, value); res.StatusCode != http.StatusPaymentRequired ||
		!strings.Contains(string(b), "earlier payment") {
		t.Fatalf("the payer's next call: %d %s, want refused for its debt", res.StatusCode, b)
	}
}
