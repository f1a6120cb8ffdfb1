package gateway_test

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	ethtypes "github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/tidwall/gjson"

	"github.com/farebox/farebox/gateway"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/internal/testkit/faultproxy"
	fb "github.com/farebox/farebox/responses"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/evm/devchain"
	"github.com/farebox/farebox/x402/payer"
)

// countedModel is a per-token model whose every answer reports the same
// usage (so every call costs countedCharge), counting its runs.
type countedModel struct{ calls atomic.Int64 }

// countedCharge is what one call of countedModel costs in atomic units:
// 100 input tokens at 1.25 and 50 output tokens at 10 per million.
const countedCharge = 625

const countedName = "farebox-counted-metered"

func (m *countedModel) Respond(_ context.Context, _ *fb.Request, out fb.Output) error {
	m.calls.Add(1)
	if err := out.Text("served"); err != nil {
		return err
	}
	out.SetUsage(fb.Usage{InputTokens: 100, OutputTokens: 50})
	return nil
}

// channelFault is farebox delegating batch-settlement to the reference
// facilitator (its receiver authorizer) behind a Toxiproxy proxy, on the
// metered dev chain, with claims only when the admin API (or the
// shutdown) asks.
type channelFault struct {
	ts       *testServer
	c        *devchain.Chain
	proxy    *faultproxy.Proxy
	model    *countedModel
	relayer  common.Address // the facilitator's: it sends every transaction
	block    uint64         // the head when the rig started
	receiver common.Address
	received *big.Int // the receiver's balance when the rig started
}

func newChannelFault(t *testing.T) *channelFault {
	t.Helper()
	m := &countedModel{}
	cfg, opts, c := meteredConfig(t, map[string]fb.Model{countedName: m})
	ctx := context.Background()
	relayer, _ := crypto.GenerateKey()
	if err := c.FundETH(ctx, addressOf(relayer), big.NewInt(1e18)); err != nil {
		t.Fatal(err)
	}
	// The reference facilitator's fixed settle gas does not fit a first
	// transfer to an empty receiver (see the delegated test).
	if err := c.Fund(ctx, common.HexToAddress(payTo), big.NewInt(1)); err != nil {
		t.Fatal(err)
	}
	authorizer, _ := crypto.GenerateKey()
	u, err := url.Parse(chaintest.StartBatchFacilitator(t, c.RPCURL, relayer, authorizer))
	if err != nil {
		t.Fatal(err)
	}
	proxy := faultproxy.Start(t, u.Host)
	cfg.Payments.Settler = "facilitator"
	cfg.Payments.Facilitator.URL = proxy.URL() + u.Path
	cfg.Payments.Chain.RPCURL = c.RPCURL
	cfg.Payments.SettleTimeout = gateway.Duration(10 * time.Second) // a deposit waits for its block (2 s)
	cfg.Payments.BatchSettlement.ClaimInterval = 0                  // the default hour: claims are the test's
	cfg.Admin.TokenEnv = "FAREBOX_ADMIN_TOKEN"
	opts.Getenv = func(n string) string { return map[string]string{"FAREBOX_ADMIN_TOKEN": adminToken}[n] }
	opts.Settler, opts.Ready = nil, nil
	block, err := c.Client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	f := &channelFault{c: c, proxy: proxy, model: m, relayer: addressOf(relayer), block: block, receiver: common.HexToAddress(payTo)}
	f.received = tokenBalance(t, c, f.receiver)
	f.ts = startServer(t, cfg, opts)
	return f
}

// facChannelPayer is farebox's own payer paying by channel, keeping every
// payment it sends.
type facChannelPayer struct {
	tr        *payer.Transport
	sent      *paymentRecorder
	addr      common.Address
	before    *big.Int // its wallet when it was made
	served    int      // its calls answered 200
	deposited *big.Int
	id        common.Hash
}

func (f *channelFault) newPayer(t *testing.T) *facChannelPayer {
	t.Helper()
	key := freshPayer(t, f.c, 1_000_000, false)
	reg, err := x402.NewRegistry(f.c.Network)
	if err != nil {
		t.Fatal(err)
	}
	p := &facChannelPayer{sent: &paymentRecorder{}, addr: addressOf(key)}
	p.before = tokenBalance(t, f.c, p.addr)
	p.tr = payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithChain(f.c.Client),
		payer.WithSchemes(channel.Scheme), payer.WithBase(p.sent), payer.OnSettlement(func(s *payer.Settlement) {
			if s.Deposited != nil {
				p.deposited = s.Deposited
			}
			p.id = s.ChannelID
		}))
	return p
}

// call sends one call through p's transport (which answers the 402 with
// a deposit or a voucher) and returns the answer with the payment sent.
func (f *channelFault) call(t *testing.T, p *facChannelPayer, in string) facAnswer {
	t.Helper()
	body := `{"model":"` + countedName + `","input":"` + in + `"}`
	req, err := http.NewRequest(http.MethodPost, f.ts.URL+"/responses", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := (&http.Client{Transport: p.tr}).Do(req)
	if err != nil {
		t.Fatalf("%s: %v", in, err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	a := facAnswer{body: body, payment: p.sent.last(t).header, status: res.StatusCode,
		retryAfter: res.Header.Get("Retry-After"), code: gjson.GetBytes(b, "error.code").String()}
	if a.status == http.StatusOK {
		p.served++
	}
	return a
}

// resend posts a payment again as it was sent, as a client's retry does.
func (f *channelFault) resend(t *testing.T, p *facChannelPayer, a facAnswer) facAnswer {
	t.Helper()
	res, b := post(t, f.ts.URL+"/responses", a.body, x402.HeaderPaymentSignature, a.payment)
	out := facAnswer{body: a.body, payment: a.payment, status: res.StatusCode,
		retryAfter: res.Header.Get("Retry-After"), code: gjson.GetBytes(b, "error.code").String()}
	if out.status == http.StatusOK {
		p.served++
		rc, _ := x402.DecodeReceipt(res.Header.Get(x402.HeaderPaymentResponse))
		if d, ok := new(big.Int).SetString(rcAmount(rc), 10); ok && rc.Transaction != "" {
			p.deposited = d // the deposit this payment carried
		}
	}
	return out
}

func rcAmount(rc *x402.Receipt) string {
	if rc == nil {
		return ""
	}
	return rc.Amount
}

// claim asks the admin API to claim every channel now: its status, the
// atomic amount it says it claimed (-1 when it says none) and its body.
func (f *channelFault) claim(t *testing.T) (int, int64, string) {
	t.Helper()
	status, _, b := do(t, "POST", strings.TrimSuffix(f.ts.URL, "/v1")+"/admin/api/channels/claim", nil, "Authorization", "Bearer "+adminToken)
	claimed := int64(-1)
	if v := gjson.GetBytes(b, "claimed"); v.Exists() {
		claimed = atomicUSDC(t, v.String())
	}
	return status, claimed, string(b)
}

// transactions counts the facilitator relayer's transactions mined since
// the rig started, and those that reverted.
func (f *channelFault) transactions(t *testing.T) (sent, reverted int) {
	t.Helper()
	ctx := context.Background()
	head, err := f.c.Client.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for n := f.block + 1; n <= head; n++ {
		b, err := f.c.Client.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		signer := ethtypes.LatestSignerForChainID(f.c.Network.ChainID)
		for _, tx := range b.Transactions() {
			if from, err := ethtypes.Sender(signer, tx); err != nil || from != f.relayer {
				continue
			}
			sent++
			if r, err := f.c.Client.TransactionReceipt(ctx, tx.Hash()); err != nil || r.Status != ethtypes.ReceiptStatusSuccessful {
				reverted++
			}
		}
	}
	return sent, reverted
}

// totalClaimed is the channel's totalClaimed on chain.
func (f *channelFault) totalClaimed(t *testing.T, id common.Hash) int64 {
	t.Helper()
	cs := channel.NewContracts(f.c.Network.ChainID, contracts.CanonicalBatchSettlement, contracts.CanonicalERC3009DepositCollector,
		contracts.CanonicalPermit2DepositCollector, contracts.CanonicalPermit2)
	o, err := cs.ReadOnchain(context.Background(), f.c.Client, id)
	if err != nil {
		t.Fatal(err)
	}
	return o.TotalClaimed.Int64()
}

// untilServed sends a payment again as a client honouring Retry-After
// would, until it is served: every other answer must be the 503 refusal.
// It returns the refusals.
func (f *channelFault) untilServed(t *testing.T, p *facChannelPayer, a facAnswer) int {
	t.Helper()
	for n := 0; n < 30; n++ {
		if a = f.resend(t, p, a); a.status == http.StatusOK {
			return n
		}
		if !refused(a) {
			t.Fatalf("a refused payment sent again after the heal: %s, want 200 or the 503 refusal", show(a))
		}
		waitRetryAfter(a)
	}
	t.Fatal("a refused payment was refused 30 times after the heal")
	return 0
}

// The facilitator that batch-settlement is delegated to goes down
// (connections refused) and comes back. Vouchers on a channel opened
// before keep being served: farebox verifies and records them itself.
// A call that opens a channel needs the facilitator now (its /verify,
// then its /settle of the deposit), so it is refused 503
// payments_unavailable with Retry-After before its model runs, nothing
// moves on chain, and the same payment sent again after the heal is
// served; a refund is refused the same way. /readyz says not ready. The
// claim asked during the outage fails and claims nothing; after the heal
// one claim takes every voucher served, once. Judged on chain: each
// channel's totalClaimed is the sum of its vouchers, the receiver holds
// exactly their sum, no transaction reverted.
func TestFaultFacilitatorDownWithChannels(t *testing.T) {
	channelOutage(t, (*faultproxy.Proxy).Refuse, (*faultproxy.Proxy).Accept)
}

// As TestFaultFacilitatorDownWithChannels, with a facilitator that
// accepts connections and never answers: the first exchange to meet the
// hang gives up at the settle timeout, the next calls are refused at once.
func TestFaultFacilitatorHangsWithChannels(t *testing.T) {
	channelOutage(t, (*faultproxy.Proxy).Hang, (*faultproxy.Proxy).Heal)
}

func channelOutage(t *testing.T, fault, heal func(*faultproxy.Proxy)) {
	f := newChannelFault(t)
	open, late := f.newPayer(t), f.newPayer(t)
	for i := range 2 {
		if a := f.call(t, open, "before the fault"); a.status != http.StatusOK {
			t.Fatalf("call %d before the fault: %s", i, show(a))
		}
	}
	if open.deposited == nil {
		t.Fatal("the first call made no deposit")
	}
	fault(f.proxy)
	runs := f.model.calls.Load()
	for i := range 3 {
		if a := f.call(t, open, "a voucher during the fault"); a.status != http.StatusOK {
			t.Fatalf("voucher %d on an open channel during the fault: %s", i, show(a))
		}
	}
	during := open.served - 2
	first := f.call(t, late, "a deposit during the fault")
	refusals := 0
	for i, a := range []facAnswer{first, f.call(t, late, "another deposit during the fault")} {
		if !refused(a) {
			t.Fatalf("deposit %d during the fault: %s, want 503 payments_unavailable with Retry-After", i, show(a))
		}
		refusals++
	}
	if ran := f.model.calls.Load() - runs; ran != int64(during) {
		t.Errorf("the model ran %d times during the fault for %d vouchers served", ran, during)
	}
	if got := tokenBalance(t, f.c, late.addr); got.Cmp(late.before) != 0 {
		t.Errorf("a refused deposit moved the payer's money: %s -> %s", late.before, got)
	}
	refundBody := `{"model":"` + countedName + `","input":"."}`
	refundReq := func() *http.Request {
		req, _ := http.NewRequest(http.MethodPost, f.ts.URL+"/responses", strings.NewReader(refundBody))
		req.Header.Set("Content-Type", "application/json")
		return req
	}
	if _, err := open.tr.Refund(refundReq(), nil); err == nil {
		t.Fatal("a refund was served during the fault")
	}
	refusals++
	if a := f.resend(t, open, facAnswer{body: refundBody, payment: open.sent.last(t).header}); !refused(a) {
		t.Errorf("a refund during the fault: %s, want 503 payments_unavailable with Retry-After", show(a))
	} else {
		refusals++
	}
	if s := readyz(t, f.ts.URL); s != http.StatusServiceUnavailable {
		t.Errorf("/readyz during the fault: %d", s)
	}
	if status, _, body := f.claim(t); status != http.StatusServiceUnavailable || gjson.Get(body, "error.code").String() != "claim_failed" {
		t.Errorf("the claim during the fault: %d %s, want 503 claim_failed", status, body)
	}
	if got := f.totalClaimed(t, open.id); got != 0 {
		t.Errorf("%d claimed during the fault", got)
	}

	heal(f.proxy)
	refusals += f.untilServed(t, late, first)
	for _, p := range []*facChannelPayer{open, late} {
		if a := f.call(t, p, "after the heal"); a.status != http.StatusOK {
			t.Fatalf("a voucher after the heal: %s", show(a))
		}
	}
	served := open.served + late.served
	want := int64(served) * countedCharge
	if status, claimed, body := f.claim(t); status != http.StatusOK || claimed != want {
		t.Fatalf("the claim after the heal: %d %s, want %d claimed", status, body, want)
	}
	if status, claimed, body := f.claim(t); status != http.StatusOK || claimed != 0 {
		t.Errorf("a second claim: %d %s, want nothing claimed", status, body)
	}
	s, err := open.tr.Refund(refundReq(), nil)
	if err != nil {
		t.Fatalf("the refund after the heal: %v", err)
	}
	if left := new(big.Int).Sub(open.deposited, big.NewInt(int64(open.served)*countedCharge)); s.Refunded == nil || s.Refunded.Cmp(left) != 0 {
		t.Errorf("refunded %v, want the deposit less the vouchers, %s", s.Refunded, left)
	}
	f.judge(t, want, open, late)
	if n := f.model.calls.Load(); n != int64(served) {
		t.Errorf("the model ran %d times for %d calls served", n, served)
	}
	if s := readyz(t, f.ts.URL); s != http.StatusOK {
		t.Errorf("/readyz after the heal: %d", s)
	}
	txs, reverted := f.transactions(t)
	if reverted != 0 {
		t.Errorf("%d of the facilitator's %d transactions reverted", reverted, txs)
	}
	t.Logf("sent %d, served %d (%d vouchers during the fault), refused 503 %d (2 deposits and 2 refunds during the fault, "+
		"the deposit sent again %d times after the heal before it was served); claimed %d atomic once after the heal, "+
		"by %d facilitator transactions (2 deposits, claim, sweep, refund), %d reverted",
		served+refusals, served, during, refusals, refusals-4, want, txs, reverted)
}

// judge waits for the receiver to hold want and checks the chain: each
// payer's channel claimed exactly its vouchers, the open payer (refunded)
// spent exactly them, the late one its deposit.
func (f *channelFault) judge(t *testing.T, want int64, open, late *facChannelPayer) {
	t.Helper()
	gained := func() int64 { return new(big.Int).Sub(tokenBalance(t, f.c, f.receiver), f.received).Int64() }
	for deadline := time.Now().Add(time.Minute); gained() < want && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond) // the sweep is mined with the dev chain's 2 s blocks
	}
	if got := gained(); got != want {
		t.Errorf("the receiver gained %d, want the %d the vouchers charged", got, want)
	}
	for _, p := range []*facChannelPayer{open, late} {
		if got := f.totalClaimed(t, p.id); got != int64(p.served)*countedCharge {
			t.Errorf("channel %s claimed %d on chain, want %d for %d vouchers", p.id.Hex(), got, int64(p.served)*countedCharge, p.served)
		}
	}
	if spent := new(big.Int).Sub(open.before, tokenBalance(t, f.c, open.addr)); spent.Int64() != int64(open.served)*countedCharge {
		t.Errorf("the refunded payer spent %s, want its %d vouchers", spent, open.served)
	}
	if spent := new(big.Int).Sub(late.before, tokenBalance(t, f.c, late.addr)); late.deposited == nil || spent.Cmp(late.deposited) != 0 {
		t.Errorf("the late payer spent %s, want its deposit %v", spent, late.deposited)
	}
}

// show is an answer without its payment, for a failure message.
func show(a facAnswer) string {
	return fmt.Sprintf("%d %s (Retry-After %q)", a.status, a.code, a.retryAfter)
}
