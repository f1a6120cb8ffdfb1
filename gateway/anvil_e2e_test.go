package gateway_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"github.com/farebox/farebox/internal/testkit/inprocess"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/internal/testkit/testenv"
	fb "github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/upstream/scripted"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/payer"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

// usdcModel is the priced model of the anvil tests: the scripted model,
// in process, counting its calls.
const usdcModel = "usdc-scripted"

// relayerEnv names the variable the config points the relayer key at; the
// tests supply it through Options.Getenv.
const relayerEnv = "ANVIL_RELAYER_KEY"

var (
	anvilOnce   sync.Once
	anvilShared *chaintest.Anvil
	anvilErr    error
)

// sharedAnvil is one anvil with Circle's FiatToken v2.2 per test binary,
// stopped by TestMain (tests read balance differences, never absolutes).
func sharedAnvil(t testing.TB) *chaintest.Anvil {
	t.Helper()
	testenv.SkipShort(t, "anvil")
	anvilOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if anvilShared, anvilErr = chaintest.Start(ctx); anvilErr == nil {
			afterAll(anvilShared.Stop)
		}
	})
	if anvilErr != nil {
		t.Fatal(anvilErr)
	}
	return anvilShared
}

// countingModel is the scripted model, counting how often it was asked:
// the proof that a refused payment never reached the model.
type countingModel struct {
	calls atomic.Int64
	inner fb.Model
}

func (m *countingModel) Respond(ctx context.Context, req *fb.Request, out fb.Output) error {
	m.calls.Add(1)
	return m.inner.Respond(ctx, req, out)
}

// usdcFarebox is farebox taking USDC on anvil, built from a gateway.Config.
type usdcFarebox struct {
	*testServer
	a     *chaintest.Anvil
	model *countingModel
	payTo common.Address
}

// usdcPayments is the payments section for anvil's USDC: the custom
// eip155:84532 network (v1 name base-sepolia) replaces the built-in Base
// Sepolia with the token deployed on anvil; payTo is a fresh address.
func usdcPayments(a *chaintest.Anvil) gateway.PaymentsConfig {
	return gateway.PaymentsConfig{
		PayTo:    freshAddress(),
		Networks: []string{"eip155:84532"},
		CustomNetworks: []gateway.NetworkConfig{{CAIP2: "eip155:84532", V1Name: "base-sepolia", ChainID: chaintest.ChainID,
			Asset: a.Network.Asset.Hex(), Name: "USDC", Version: "2"}},
	}
}

// startUSDCFarebox runs farebox with pc and the counting model priced at
// 0.001 USDC; env is its environment (secrets).
func startUSDCFarebox(t testing.TB, a *chaintest.Anvil, pc gateway.PaymentsConfig, env map[string]string) *usdcFarebox {
	t.Helper()
	m := &countingModel{inner: scripted.New(scripted.Options{})}
	cfg := gateway.Config{
		Models:   []gateway.ModelConfig{{Name: usdcModel, Upstream: inprocess.Kind, UpstreamConfig: inprocess.Use(m), Price: price}},
		Payments: pc,
	}
	ts := startServer(t, cfg, gateway.Options{Getenv: func(k string) string { return env[k] }})
	return &usdcFarebox{testServer: ts, a: a, model: m, payTo: common.HexToAddress(pc.PayTo)}
}

// startChainFarebox is farebox settling on anvil by itself: the chain
// settler with a relayer of its own, simulation on.
func startChainFarebox(t testing.TB) *usdcFarebox {
	t.Helper()
	a := sharedAnvil(t)
	key, err := a.NewRelayer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	pc := usdcPayments(a)
	pc.Settler = "chain"
	pc.Chain = gateway.ChainConfig{RPCURL: a.RPCURL, RelayerKeyEnv: relayerEnv} // simulation on by default
	return startUSDCFarebox(t, a, pc, map[string]string{relayerEnv: hexutil.Encode(crypto.FromECDSA(key))})
}

func freshAddress() string {
	k, err := crypto.GenerateKey()
	if err != nil {
		panic(err)
	}
	return crypto.PubkeyToAddress(k.PublicKey).Hex()
}

// offer is the requirement farebox offers for usdcModel, read the way a
// client of that x402 version reads it (v2 header, v1 body).
func (f *usdcFarebox) offer(t testing.TB, version int) *x402.Requirement {
	t.Helper()
	res, body := post(t, f.URL+"/responses", `{"model":"`+usdcModel+`","input":"hi"}`)
	var offers []x402.Offer
	var err error
	if version == 2 {
		offers, err = x402.DecodePaymentRequired(res.Header.Get(x402.HeaderPaymentRequired))
	} else {
		offers, err = x402.DecodeV1Offers(body)
	}
	if err != nil || len(offers) != 1 {
		t.Fatalf("v%d offers %+v: %v", version, offers, err)
	}
	reg, err := x402.NewRegistry(f.a.Network)
	if err != nil {
		t.Fatal(err)
	}
	req, err := offers[0].Requirement(reg)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// client is openai-go paying with key through the paying transport. For
// version 1 the 402's PAYMENT-REQUIRED header is hidden from the transport,
// so it pays from the v1 body with X-PAYMENT, as a v1 client does. sent
// records the payment header of every request.
func (f *usdcFarebox) client(t testing.TB, key *ecdsa.PrivateKey, version int, receipts *[]*x402.Receipt, sent *[]string) *openai.Client {
	reg, err := x402.NewRegistry(f.a.Network)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	base := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		for _, h := range []string{x402.HeaderPaymentSignature, x402.HeaderXPayment} {
			if req.Header.Get(h) != "" {
				mu.Lock()
				*sent = append(*sent, h)
				mu.Unlock()
			}
		}
		res, err := http.DefaultTransport.RoundTrip(req)
		if err == nil && version == 1 {
			res.Header.Del(x402.HeaderPaymentRequired)
		}
		return res, err
	})
	tr := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithBase(base),
		payer.WithPayTo(f.payTo), payer.WithSpendCap(big.NewInt(atomics)),
		payer.OnReceipt(func(r *x402.Receipt) { mu.Lock(); *receipts = append(*receipts, r); mu.Unlock() }))
	return f.testServer.client(t, option.WithHTTPClient(&http.Client{Transport: tr}))
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// usdcBalance reads balanceOf(who) from the FiatToken on anvil.
func usdcBalance(t testing.TB, a *chaintest.Anvil, who common.Address) *big.Int {
	t.Helper()
	poolEmpty(t, a)
	data := append(common.FromHex("0x70a08231"), common.LeftPadBytes(who.Bytes(), 32)...)
	out, err := a.Client.CallContract(context.Background(), ethereum.CallMsg{To: &a.Network.Asset, Data: data}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Int).SetBytes(out)
}

// poolEmpty waits until anvil holds no unmined transaction: farebox
// answers once a transfer is broadcast, before its block.
func poolEmpty(t testing.TB, a *chaintest.Anvil) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		var status struct{ Pending hexutil.Uint64 }
		if err := a.Client.Client().CallContext(context.Background(), &status, "txpool_status"); err != nil {
			t.Fatal(err)
		}
		if status.Pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d transactions never mined", status.Pending)
		}
	}
}

// checkMinedReceipt asserts the receipt reports a successful settlement by
// payer on network, in a transaction mined with status 1 on anvil.
func checkMinedReceipt(t testing.TB, a *chaintest.Anvil, r *x402.Receipt, payer common.Address, network string) {
	t.Helper()
	if r == nil || !r.Success || r.Network != network || !strings.EqualFold(r.Payer, payer.Hex()) {
		t.Fatalf("receipt %+v, want success by %s on %s", r, payer, network)
	}
	poolEmpty(t, a)
	rec, err := a.Client.TransactionReceipt(context.Background(), common.HexToHash(r.Transaction))
	if err != nil || rec.Status != 1 {
		t.Fatalf("transaction %s: %v %+v", r.Transaction, err, rec)
	}
}

// networkName is how an x402 version names anvil's chain.
func networkName(version int) string {
	if version == 1 {
		return "base-sepolia"
	}
	return "eip155:84532"
}

func paymentHeaderName(version int) string {
	if version == 1 {
		return x402.HeaderXPayment
	}
	return x402.HeaderPaymentSignature
}

func TestUSDCOnAnvilPaidCallMovesExactlyThePrice(t *testing.T) {
	for _, version := range []int{2, 1} {
		t.Run(networkName(version), func(t *testing.T) {
			f := startChainFarebox(t)
			var receipts []*x402.Receipt
			var sent []string
			cl := f.client(t, f.a.PayerKey, version, &receipts, &sent)
			payerBefore := usdcBalance(t, f.a, f.a.Payer)

			res, err := cl.Responses.New(context.Background(), oresponses.ResponseNewParams{Model: usdcModel, Input: userText("paid in USDC")})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.OutputText(), "paid in USDC") || len(receipts) != 1 {
				t.Fatalf("answer %q, %d receipts", res.OutputText(), len(receipts))
			}
			if len(sent) != 1 || sent[0] != paymentHeaderName(version) {
				t.Fatalf("payment headers sent %v, want one %s", sent, paymentHeaderName(version))
			}
			checkMinedReceipt(t, f.a, receipts[0], f.a.Payer, networkName(version))
			f.checkPaidOnce(t, f.a.Payer, payerBefore)
		})
	}
}

// checkPaidOnce asserts one paid call: payer's balance (before: its
// balance before the call) dropped by exactly the price, payTo received
// exactly the price, and the model ran once.
func (f *usdcFarebox) checkPaidOnce(t *testing.T, payer common.Address, before *big.Int) {
	t.Helper()
	spent := new(big.Int).Sub(before, usdcBalance(t, f.a, payer))
	if got := usdcBalance(t, f.a, f.payTo); spent.Int64() != atomics || got.Int64() != atomics {
		t.Errorf("payer spent %s, payTo received %s, want %d each", spent, got, atomics)
	}
	if n := f.model.calls.Load(); n != 1 {
		t.Errorf("model called %d times, want 1", n)
	}
}

// usedPayment signs a payment for req and settles it on chain with a
// relayer of its own, as another server would: the authorization's nonce
// is used when farebox sees it. It returns the header value.
func usedPayment(t *testing.T, a *chaintest.Anvil, req *x402.Requirement, version int) string {
	t.Helper()
	ctx := context.Background()
	p, err := payer.NewSigner(a.PayerKey).Sign(req, version)
	if err != nil {
		t.Fatal(err)
	}
	value, err := x402.EncodePayment(p, req)
	if err != nil {
		t.Fatal(err)
	}
	key, err := a.NewRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, err := evm.NewSettler(ctx, a.Client, key)
	if err != nil {
		t.Fatal(err)
	}
	st.PollInterval = 10 * time.Millisecond
	if rc, err := st.Settle(ctx, p, req); err != nil || !rc.Success {
		t.Fatalf("direct settlement: %+v %v", rc, err)
	}
	return value
}

// refusal posts a paid request and asserts a 402 with the x402 reason code.
func (f *usdcFarebox) refusal(t *testing.T, name, value, reason string) {
	t.Helper()
	res, b := post(t, f.URL+"/responses", `{"model":"`+usdcModel+`","input":"refuse me"}`, name, value)
	if res.StatusCode != http.StatusPaymentRequired || gjson.GetBytes(b, "error.code").String() != reason {
		t.Fatalf("%d %s, want 402 with code %s", res.StatusCode, b, reason)
	}
}

func TestUSDCOnAnvilRefusesBeforeTheModel(t *testing.T) {
	for _, version := range []int{2, 1} {
		t.Run(networkName(version), func(t *testing.T) {
			f := startChainFarebox(t)
			req := f.offer(t, version)
			payerBefore := usdcBalance(t, f.a, f.a.Payer)

			t.Run("used nonce", func(t *testing.T) {
				value := usedPayment(t, f.a, req, version)
				f.refusal(t, paymentHeaderName(version), value, x402.ReasonNonceAlreadyUsed)
			})
			t.Run("expired", func(t *testing.T) {
				s := payer.NewSigner(f.a.PayerKey)
				s.Now = func() time.Time { return time.Now().Add(-time.Duration(req.MaxTimeoutSeconds+60) * time.Second) }
				name, value, err := s.PaymentHeader(req, version)
				if err != nil {
					t.Fatal(err)
				}
				f.refusal(t, name, value, x402.ReasonValidBefore)
			})
			t.Run("insufficient balance", func(t *testing.T) {
				poor, err := crypto.GenerateKey()
				if err != nil {
					t.Fatal(err)
				}
				name, value, err := payer.NewSigner(poor).PaymentHeader(req, version)
				if err != nil {
					t.Fatal(err)
				}
				f.refusal(t, name, value, x402.ReasonInsufficientFunds)
			})
			if n := f.model.calls.Load(); n != 0 {
				t.Errorf("model called %d times for refused payments, want 0", n)
			}
			// Only the direct settlement moved money.
			spent := new(big.Int).Sub(payerBefore, usdcBalance(t, f.a, f.a.Payer))
			if got := usdcBalance(t, f.a, f.payTo); spent.Int64() != atomics || got.Int64() != atomics {
				t.Errorf("payer spent %s, payTo received %s, want %d each (the direct settlement)", spent, got, atomics)
			}
		})
	}
}

// walletPayment signs req for Circle's MockERC1271Wallet: authorization.from
// is the wallet, and signer signs the EIP-712 digest (the wallet's
// isValidSignature accepts its owner's signature).
func walletPayment(t testing.TB, a *chaintest.Anvil, req *x402.Requirement, version int, signer *ecdsa.PrivateKey) string {
	t.Helper()
	p := &x402.Payment{Version: version, Scheme: x402.SchemeExact}
	au := &p.Authorization
	au.From, au.To, au.Value = a.Wallet, req.PayTo, new(big.Int).Set(req.Amount)
	au.ValidAfter, au.ValidBefore = new(big.Int), big.NewInt(time.Now().Unix()+req.MaxTimeoutSeconds)
	if _, err := rand.Read(au.Nonce[:]); err != nil {
		t.Fatal(err)
	}
	p.Signature = signDigest(t, signer, req.Network.Digest(au))
	value, err := x402.EncodePayment(p, req)
	if err != nil {
		t.Fatal(err)
	}
	return value
}

func TestUSDCOnAnvilContractWalletPays(t *testing.T) {
	for _, version := range []int{2, 1} {
		t.Run(networkName(version), func(t *testing.T) {
			f := startChainFarebox(t)
			req := f.offer(t, version)
			walletBefore := usdcBalance(t, f.a, f.a.Wallet)

			// Signed by someone other than the wallet's owner: refused, unserved.
			forged := walletPayment(t, f.a, req, version, f.a.PayerKey)
			f.refusal(t, paymentHeaderName(version), forged, x402.ReasonSignature)
			if n := f.model.calls.Load(); n != 0 {
				t.Fatalf("model called %d times for a forged wallet signature", n)
			}

			value := walletPayment(t, f.a, req, version, f.a.WalletOwnerKey)
			res, b := post(t, f.URL+"/responses", `{"model":"`+usdcModel+`","input":"a wallet pays"}`, paymentHeaderName(version), value)
			if res.StatusCode != 200 || !strings.Contains(gjson.GetBytes(b, "output.0.content.0.text").String(), "a wallet pays") {
				t.Fatalf("%d %s", res.StatusCode, b)
			}
			hdr := res.Header.Get(x402.HeaderPaymentResponse)
			if version == 1 {
				hdr = res.Header.Get(x402.HeaderXPaymentResponse)
			}
			rc, err := x402.DecodeReceipt(hdr)
			if err != nil {
				t.Fatal(err)
			}
			checkMinedReceipt(t, f.a, rc, f.a.Wallet, networkName(version))
			f.checkPaidOnce(t, f.a.Wallet, walletBefore)
		})
	}
}

// With confirm: broadcast (the chain settler's default) a paid call is
// answered once the node accepted its transfer, not once it is mined: with
// mining stopped the client still gets its answer and a receipt naming the
// transaction, the authorization buys nothing else, and once the block is
// mined the payer has paid exactly once.
func TestUSDCOnAnvilAnswersBeforeTheBlock(t *testing.T) {
	a := sharedAnvil(t)
	ctx := context.Background()
	key, err := a.NewRelayer(ctx)
	if err != nil {
		t.Fatal(err)
	}
	pc := usdcPayments(a)
	pc.Settler = "chain"
	pc.SettleTimeout = gateway.Duration(time.Second)
	pc.Chain = gateway.ChainConfig{RPCURL: a.RPCURL, RelayerKeyEnv: relayerEnv}
	f := startUSDCFarebox(t, a, pc, map[string]string{relayerEnv: hexutil.Encode(crypto.FromECDSA(key))})
	name, value, err := payer.NewSigner(a.PayerKey).PaymentHeader(f.offer(t, 2), 2)
	if err != nil {
		t.Fatal(err)
	}
	before := usdcBalance(t, a, a.Payer)
	rpc := a.Client.Client()
	if err := rpc.CallContext(ctx, nil, "evm_setAutomine", false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rpc.CallContext(ctx, nil, "evm_setAutomine", true); rpc.CallContext(ctx, nil, "evm_mine") })

	res, body := post(t, f.URL+"/responses", `{"model":"`+usdcModel+`","input":"answer me anyway"}`, name, value)
	if res.StatusCode != 200 || !strings.Contains(string(body), "answer me anyway") {
		t.Fatalf("answer before the block: %d %s", res.StatusCode, body)
	}
	r, err := x402.DecodeReceipt(res.Header.Get(x402.HeaderPaymentResponse))
	if err != nil || !r.Success || r.Transaction == "" {
		t.Fatalf("receipt %+v %v", r, err)
	}
	if _, err := a.Client.TransactionReceipt(ctx, common.HexToHash(r.Transaction)); err == nil {
		t.Fatal("the transfer was mined before the answer: nothing shows the answer did not wait for it")
	}
	f.refusal(t, name, value, x402.ReasonNonceAlreadyUsed)

	if err := rpc.CallContext(ctx, nil, "evm_setAutomine", true); err != nil {
		t.Fatal(err)
	}
	if err := rpc.CallContext(ctx, nil, "evm_mine"); err != nil {
		t.Fatal(err)
	}
	mined, err := a.Client.TransactionReceipt(ctx, common.HexToHash(r.Transaction))
	if err != nil || mined.Status != 1 {
		t.Fatalf("the pending transaction %s: %v", r.Transaction, err)
	}
	if spent := new(big.Int).Sub(before, usdcBalance(t, a, a.Payer)); spent.Int64() != atomics {
		t.Errorf("payer spent %s, want exactly %d", spent, atomics)
	}
}
