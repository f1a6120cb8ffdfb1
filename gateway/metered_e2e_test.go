package gateway_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/gateway"
	fb "github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/farebox/farebox/x402/settle"
	"github.com/farebox/farebox/x402/settle/boltjournal"
	oresponses "github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"
)

const (
	metered        = "farebox-scripted-metered"
	ceilingAtomics = 20000 // max_per_call 0.02
	inputPerMTok   = 1_250_000
	outputPerMTok  = 10_000_000
	nodeDir        = "testdata/node"
)

var (
	meteredPrice     = gateway.TokenPriceConfig{Input: "1.25", Output: "10", MaxPerCall: "0.02"}
	meteredChainOnce sync.Once
	meteredChain     *devchain.Chain
	meteredChainErr  error
)

// meteredDevChain is a dev chain with Base's 2 s blocks and an HTTP
// JSON-RPC endpoint, which the official clients read (Permit2 allowance,
// EIP-2612 nonces), shared by the tests of this file (they read balance
// differences).
func meteredDevChain(t testing.TB) *devchain.Chain {
	t.Helper()
	meteredChainOnce.Do(func() {
		meteredChain, meteredChainErr = devchain.Start(context.Background(), devchain.Config{RPCAddr: "127.0.0.1:0", BlockTime: 2 * time.Second})
		if meteredChainErr == nil {
			afterAll(func() { meteredChain.Close() })
		}
	})
	if meteredChainErr != nil {
		t.Fatal(meteredChainErr)
	}
	return meteredChain
}

// startMetered runs farebox with the per-token scripted model (and extra
// models, in process) settling on the metered dev chain.
func startMetered(t testing.TB, extra map[string]fb.Model) (*testServer, *devchain.Chain) {
	t.Helper()
	cfg, opts, c := meteredConfig(t, extra)
	return startServer(t, cfg, opts), c
}

// meteredConfig is startMetered's configuration.
func meteredConfig(t testing.TB, extra map[string]fb.Model) (gateway.Config, gateway.Options, *devchain.Chain) {
	t.Helper()
	c := meteredDevChain(t)
	st, err := evm.NewSettler(context.Background(), c.Client, c.RelayerKey)
	if err != nil {
		t.Fatal(err)
	}
	cfg := gateway.Config{
		Models: []gateway.ModelConfig{
			{Name: metered, Upstream: "scripted", PricePerMTok: &meteredPrice},
			{Name: paid, Upstream: "scripted", Price: price},
		},
		Payments: gateway.PaymentsConfig{PayTo: payTo, Networks: []string{c.Network.CAIP2}},
	}
	for name := range extra {
		p := meteredPrice
		cfg.Models = append(cfg.Models, gateway.ModelConfig{Name: name, Upstream: "inprocess", PricePerMTok: &p})
	}
	return cfg, gateway.Options{Networks: []*x402.Network{c.Network}, Settler: st, Ready: st.Ready, Models: extra}, c
}

// freshPayer is a new key holding usdc atomic units, and ETH when eth.
func freshPayer(t testing.TB, c *devchain.Chain, usdc int64, eth bool) *ecdsa.PrivateKey {
	t.Helper()
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	addr := crypto.PubkeyToAddress(key.PublicKey)
	if err := c.Fund(ctx, addr, big.NewInt(usdc)); err != nil {
		t.Fatal(err)
	}
	if eth {
		if err := c.FundETH(ctx, addr, big.NewInt(1e18)); err != nil {
			t.Fatal(err)
		}
	}
	return key
}

// approvePermit2 approves Permit2 for every dollar of key, as a wallet
// that used Permit2 before has.
func approvePermit2(t testing.TB, c *devchain.Chain, key *ecdsa.PrivateKey) {
	t.Helper()
	tr, err := evm.NewTransactor(context.Background(), c.Client, key)
	if err != nil {
		t.Fatal(err)
	}
	maxUint := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	asset := c.Network.Asset
	if _, err := tr.Send(context.Background(), &asset, contracts.NewFareboxUSDv2().PackApprove(contracts.CanonicalPermit2, maxUint), nil); err != nil {
		t.Fatal(err)
	}
}

// installNode runs `npm ci` in nodeDir unless node_modules matches the
// lockfile; a file lock serialises parallel test binaries.
func installNode(t testing.TB) {
	t.Helper()
	lock, err := os.OpenFile(filepath.Join(nodeDir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	lockInfo, err := os.Stat(filepath.Join(nodeDir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	if mark, err := os.Stat(filepath.Join(nodeDir, "node_modules", ".package-lock.json")); err == nil && !mark.ModTime().Before(lockInfo.ModTime()) {
		return
	}
	cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
	cmd.Dir = nodeDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci: %v\n%s", err, out)
	}
}

// nodePaid is what pay.mjs saw of one call paid with @x402/fetch and the
// official UptoEvmScheme.
type nodePaid struct {
	Status   int           `json:"status"`
	Body     string        `json:"body"`
	Receipt  *x402.Receipt `json:"receipt"`
	Payments int           `json:"payments"`
	Header   string        `json:"header"`
	Sent     string        `json:"sent"`
}

// payUpto posts body to farebox through @x402/fetch paying with upto.
func payUpto(t testing.TB, ts *testServer, c *devchain.Chain, key *ecdsa.PrivateKey, body map[string]any) nodePaid {
	t.Helper()
	installNode(t)
	in, _ := json.Marshal(map[string]any{
		"privateKey": "0x" + common.Bytes2Hex(crypto.FromECDSA(key)), "url": ts.URL + "/responses", "body": body,
		"asset": c.Network.Asset.Hex(), "network": c.Network.CAIP2, "maxAtomic": "20000", "rpcUrl": c.RPCURL,
	})
	cmd := exec.Command("node", "pay.mjs")
	cmd.Dir = nodeDir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pay.mjs: %v\n%s", err, stderr.String())
	}
	var p nodePaid
	if err := json.Unmarshal(out, &p); err != nil {
		t.Fatalf("pay.mjs answered %s: %v", out, err)
	}
	return p
}

// expectedCharge is ceil((in*inP + out*outP)/1e6), capped at the ceiling,
// from the usage the response reports.
func expectedCharge(t testing.TB, body string) int64 {
	t.Helper()
	in, out := gjson.Get(body, "usage.input_tokens").Int(), gjson.Get(body, "usage.output_tokens").Int()
	if in == 0 || out == 0 {
		t.Fatalf("no usage in %s", body)
	}
	return min((in*inputPerMTok+out*outputPerMTok+999_999)/1_000_000, ceilingAtomics)
}

func addressOf(key *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(key.PublicKey) }

// An upto payment from the official client is charged exactly usage x
// price, on chain; the response's max_output_tokens is bounded by the
// ceiling; the same payment and body again is served with the same
// receipt and charged nothing more.
func TestUptoChargesExactlyTheUse(t *testing.T) {
	ts, c := startMetered(t, nil)
	key := freshPayer(t, c, 1_000_000, true)
	approvePermit2(t, c, key)
	payer, receiver := addressOf(key), common.HexToAddress(payTo)
	payerBefore, receiverBefore := tokenBalance(t, c, payer), tokenBalance(t, c, receiver)

	p := payUpto(t, ts, c, key, map[string]any{"model": metered, "input": strings.Repeat("metered words ", 20), "max_output_tokens": 1_000_000})
	if p.Status != http.StatusOK || p.Payments != 1 {
		t.Fatalf("status %d after %d payments: %s", p.Status, p.Payments, p.Body)
	}
	want := expectedCharge(t, p.Body)
	r := p.Receipt
	if r == nil || !r.Success || r.Amount != big.NewInt(want).String() || r.Extra.ChargedAmount != r.Amount || r.Transaction == "" {
		t.Fatalf("receipt %+v, want amount %d", r, want)
	}
	checkMinedTx(t, c, r.Transaction)
	if got := new(big.Int).Sub(payerBefore, tokenBalance(t, c, payer)); got.Int64() != want {
		t.Errorf("payer paid %s, want %d", got, want)
	}
	if got := new(big.Int).Sub(tokenBalance(t, c, receiver), receiverBefore); got.Int64() != want {
		t.Errorf("receiver got %s, want %d", got, want)
	}
	// max_output_tokens was bounded: (ceiling*1e6 - ceil(body/4)*inP) / outP.
	bound := (ceilingAtomics*1_000_000 - int64((len(p.Sent)+3)/4)*inputPerMTok) / outputPerMTok
	if got := gjson.Get(p.Body, "max_output_tokens").Int(); got != bound {
		t.Errorf("max_output_tokens %d, want the bound %d", got, bound)
	}

	// The same payment and body: the same answer's receipt, no second charge.
	res, _ := post(t, ts.URL+"/responses", p.Sent, "PAYMENT-SIGNATURE", p.Header)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("replay: %d", res.StatusCode)
	}
	again, err := x402.DecodeReceipt(res.Header.Get("PAYMENT-RESPONSE"))
	if err != nil || *again != *r {
		t.Errorf("replayed receipt %+v (%v), want %+v", again, err, r)
	}
	if got := new(big.Int).Sub(payerBefore, tokenBalance(t, c, payer)); got.Int64() != want {
		t.Errorf("after the replay the payer paid %s, want %d", got, want)
	}
}

// A payer with no ETH who never approved Permit2 pays with the EIP-2612
// permit of the gas-sponsoring extension: farebox's relayer sends
// settleWithPermit and the payer still holds no ETH.
func TestUptoGasSponsoredPayerWithoutETH(t *testing.T) {
	ts, c := startMetered(t, nil)
	key := freshPayer(t, c, 1_000_000, false)
	payer := addressOf(key)
	before := tokenBalance(t, c, payer)
	p := payUpto(t, ts, c, key, map[string]any{"model": metered, "input": "gasless"})
	if p.Status != http.StatusOK {
		t.Fatalf("status %d: %s", p.Status, p.Body)
	}
	if !headerHas(t, p.Header, "extensions.eip2612GasSponsoring") {
		t.Fatalf("the client sent no gas-sponsoring permit: %s", p.Header)
	}
	want := expectedCharge(t, p.Body)
	if p.Receipt == nil || p.Receipt.Amount != big.NewInt(want).String() {
		t.Fatalf("receipt %+v, want amount %d", p.Receipt, want)
	}
	checkMinedTx(t, c, p.Receipt.Transaction)
	if got := new(big.Int).Sub(before, tokenBalance(t, c, payer)); got.Int64() != want {
		t.Errorf("payer paid %s, want %d", got, want)
	}
	if eth, err := c.Client.BalanceAt(context.Background(), payer, nil); err != nil || eth.Sign() != 0 {
		t.Errorf("payer ETH %v (%v), want 0", eth, err)
	}
}

// headerHas reports whether the decoded payment header has path.
func headerHas(t testing.TB, header, path string) bool {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(header)
	if err != nil {
		t.Fatal(err)
	}
	return gjson.GetBytes(raw, path).Exists()
}

// checkMinedTx asserts the transaction was mined and succeeded.
func checkMinedTx(t testing.TB, c *devchain.Chain, tx string) {
	t.Helper()
	settledBalances(t, c)
	rec, err := c.Client.TransactionReceipt(context.Background(), common.HexToHash(tx))
	if err != nil || rec.Status != 1 {
		t.Fatalf("transaction %s: %v %+v", tx, err, rec)
	}
}

// permit2NonceUsed reads Permit2's bitmap for the nonce of an upto header.
func permit2NonceUsed(t testing.TB, c *devchain.Chain, header string) bool {
	t.Helper()
	raw, err := base64.StdEncoding.DecodeString(header)
	if err != nil {
		t.Fatal(err)
	}
	nonce, ok := new(big.Int).SetString(gjson.GetBytes(raw, "payload.permit2Authorization.nonce").String(), 10)
	if !ok {
		t.Fatalf("no nonce in %s", raw)
	}
	from := common.HexToAddress(gjson.GetBytes(raw, "payload.permit2Authorization.from").String())
	p2 := contracts.NewPermit2()
	permit2 := contracts.CanonicalPermit2
	out, err := c.Client.CallContract(context.Background(), ethereum.CallMsg{To: &permit2,
		Data: p2.PackNonceBitmap(from, new(big.Int).Rsh(nonce, 8))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	bitmap, err := p2.UnpackNonceBitmap(out)
	if err != nil {
		t.Fatal(err)
	}
	return bitmap.Bit(int(nonce.Uint64()&0xff)) == 1
}

// zeroUsage answers with text and reports no tokens at all.
type zeroUsage struct{}

func (zeroUsage) Respond(ctx context.Context, req *fb.Request, out fb.Output) error {
	if err := out.Text("free of charge"); err != nil {
		return err
	}
	out.SetUsage(fb.Usage{})
	return nil
}

// A failed model call charges nothing, and a zero charge sends nothing:
// the permit stays unused on chain and the receipt says amount "0".
func TestUptoFailedOrZeroCallMovesNothing(t *testing.T) {
	ts, c := startMetered(t, map[string]fb.Model{"broken-metered": brokenModel{}, "zero-metered": zeroUsage{}})
	key := freshPayer(t, c, 1_000_000, false)
	payer := addressOf(key)
	before := tokenBalance(t, c, payer)

	p := payUpto(t, ts, c, key, map[string]any{"model": "broken-metered", "input": "fail"})
	if p.Status != http.StatusBadGateway || p.Payments != 1 {
		t.Fatalf("broken model: status %d after %d payments: %s", p.Status, p.Payments, p.Body)
	}
	if permit2NonceUsed(t, c, p.Header) {
		t.Error("a failed call used the payer's permit")
	}

	z := payUpto(t, ts, c, key, map[string]any{"model": "zero-metered", "input": "nothing used"})
	if z.Status != http.StatusOK {
		t.Fatalf("zero usage: status %d: %s", z.Status, z.Body)
	}
	if r := z.Receipt; r == nil || !r.Success || r.Amount != "0" || r.Extra.ChargedAmount != "0" || r.Transaction != "" {
		t.Errorf("zero-charge receipt %+v", r)
	}
	if permit2NonceUsed(t, c, z.Header) {
		t.Error("a zero charge used the payer's permit")
	}
	if got := tokenBalance(t, c, payer); got.Cmp(before) != 0 {
		t.Errorf("payer balance %s, want %s unchanged", got, before)
	}
}

// A client that speaks only exact pays the ceiling: exact moves exactly
// the signed value.
func TestExactOnMeteredModelChargesTheCeiling(t *testing.T) {
	ts, c := startMetered(t, nil)
	payerBefore := tokenBalance(t, c, c.Payer)
	var receipts []*x402.Receipt
	res, err := payingClient(t, ts, c, &receipts).Responses.New(context.Background(), oresponses.ResponseNewParams{Model: metered, Input: userText("exact please")})
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

// A batch-settlement payment is refused with a clear reason until the
// channel service is plugged in.
func TestBatchSettlementPaymentIsRefused(t *testing.T) {
	ts, c := startMetered(t, nil)
	env := `{"x402Version":2,"accepted":{"scheme":"batch-settlement","network":"` + c.Network.CAIP2 + `"},"payload":{"type":"voucher"}}`
	res, body := post(t, ts.URL+"/responses", `{"model":"`+metered+`","input":"hi"}`,
		"PAYMENT-SIGNATURE", base64.StdEncoding.EncodeToString([]byte(env)))
	if res.StatusCode != http.StatusPaymentRequired || gjson.GetBytes(body, "error.code").String() != x402.ReasonUnsupportedScheme {
		t.Errorf("status %d: %s", res.StatusCode, body)
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

// A restart between the answer and its block loses nothing: the journal
// (data_dir) holds the upto purchase with its charge before the send, and
// the next process resumes it (decoding the upto payment again) until the
// chain confirms it.
func TestUptoPurchaseSurvivesARestart(t *testing.T) {
	dir := t.TempDir()
	cfg, opts, c := meteredConfig(t, nil)
	cfg.DataDir = dir
	first := startServer(t, cfg, opts)
	key := freshPayer(t, c, 1_000_000, false)
	payer := addressOf(key)
	before := tokenBalance(t, c, payer)
	p := payUpto(t, first, c, key, map[string]any{"model": metered, "input": "restart me"})
	if p.Status != http.StatusOK || p.Receipt == nil || !p.Receipt.Success {
		t.Fatalf("status %d, receipt %+v: %s", p.Status, p.Receipt, p.Body)
	}
	// Answered once broadcast, before its block (2 s): stop at once.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := first.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	entry := func() *settle.Entry {
		j, err := boltjournal.Open(dir, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		raw, _ := base64.StdEncoding.DecodeString(p.Header)
		nonce, _ := new(big.Int).SetString(gjson.GetBytes(raw, "payload.permit2Authorization.nonce").String(), 10)
		var k [32]byte
		nonce.FillBytes(k[:])
		en, err := j.Get(context.Background(), x402.Key{ChainID: c.Network.ChainID.String(), Asset: c.Network.Asset, From: payer, Nonce: k})
		if err != nil {
			t.Fatal(err)
		}
		return en
	}
	want := expectedCharge(t, p.Body)
	if en := entry(); en.Charge == nil || en.Charge.Int64() != want || en.Amount.Int64() != ceilingAtomics || en.Tx == (common.Hash{}) {
		t.Fatalf("journaled %+v, want charge %d of ceiling %d with its transaction", en, want, ceilingAtomics)
	}

	second := startServer(t, cfg, opts)
	res, _ := post(t, second.URL+"/responses", p.Sent, "PAYMENT-SIGNATURE", p.Header)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("the same purchase after the restart: %d", res.StatusCode)
	}
	if r, err := x402.DecodeReceipt(res.Header.Get("PAYMENT-RESPONSE")); err != nil || *r != *p.Receipt {
		t.Errorf("receipt after the restart %+v (%v), want %+v", r, err, p.Receipt)
	}
	checkMinedTx(t, c, p.Receipt.Transaction)
	if got := new(big.Int).Sub(before, tokenBalance(t, c, payer)); got.Int64() != want {
		t.Errorf("payer paid %s, want %d", got, want)
	}
	if err := second.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if en := entry(); en.State != settle.Confirmed {
		t.Errorf("after the resume the entry is %s, want confirmed", en.State)
	}
}
