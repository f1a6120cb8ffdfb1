package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel"
	"github.com/farebox/farebox/x402/evm/contracts"
	"github.com/farebox/farebox/x402/payer"
)

// armVoucher is the batch-settlement arm: a per-token model paid with
// vouchers through farebox's Go paying transport, claimed on anvil.
const armVoucher = "farebox-voucher-chain"

// The voucher arm's per-token price: 1 USDC per million input tokens, 4
// per million output tokens, a ceiling of 0.001 USDC per call; its channels
// are claimed every voucherClaimInterval.
const (
	voucherModel         = "bench-metered"
	voucherInput         = "1"
	voucherOutput        = "4"
	voucherCeiling       = "0.001"
	voucherClaimInterval = 3 * time.Second
)

// voucherDeposit is each payer's one deposit (10 USDC): ten thousand
// ceilings, so no channel needs a top-up inside a measured phase.
var voucherDeposit = big.NewInt(10_000_000)

// voucherArm is farebox serving a per-token model with settler chain on
// the 2 s anvil, each payer with its own paying transport and channel.
type voucherArm struct {
	*arm
	anvil      *chaintest.Anvil
	gasPayer   common.Address // farebox's relayer: it sends deposits and claims
	payTo      common.Address
	startBlock uint64
	before     map[common.Address]*big.Int
	payers     []*voucherPayer
	next       atomic.Uint64
	mu         sync.Mutex
	e2e        []time.Duration // whole calls through the transport (the paid request, after a 402 for a payer's first)
	// requests counts the HTTP requests the transports sent (a 402 read
	// first is one more than the paid request).
	requests atomic.Int64
}

// voucherPayer is one payer's transport and what its receipts reported.
type voucherPayer struct {
	addr      common.Address
	client    *http.Client
	mu        sync.Mutex
	charged   *big.Int // sum of the receipts' chargedAmount
	deposited *big.Int // sum of the deposits its answered calls made
	calls     int
	deposits  int
	bad       []string // receipts that were not what a voucher call must get
}

// paidStartKey carries a call's *time.Time: when its paid request left.
type paidStartKey struct{}

// paidClock is the transports' base: it notes when a request carrying a
// payment is sent, so the paid request can be timed apart from a 402 read
// first (a payer's first call; later ones pay straight away), and counts
// the requests.
type paidClock struct {
	base     http.RoundTripper
	requests *atomic.Int64
}

func (p paidClock) RoundTrip(req *http.Request) (*http.Response, error) {
	p.requests.Add(1)
	if at, ok := req.Context().Value(paidStartKey{}).(*time.Time); ok && req.Header.Get(x402.HeaderPaymentSignature) != "" {
		*at = time.Now()
	}
	return p.base.RoundTrip(req)
}

// addVoucherArm installs the canonical x402 contracts on a and starts a
// farebox with a per-token model settling there, and its paying clients.
func (h *harness) addVoucherArm(ctx context.Context, bin string, a *chaintest.Anvil) error {
	if err := contracts.InstallCanonical(ctx, a.Client.Client(), big.NewInt(chaintest.ChainID)); err != nil {
		return err
	}
	gasKey, err := a.NewRelayer(ctx)
	if err != nil {
		return err
	}
	payToKey, err := crypto.GenerateKey()
	if err != nil {
		return err
	}
	va := &voucherArm{anvil: a, gasPayer: crypto.PubkeyToAddress(gasKey.PublicKey), payTo: crypto.PubkeyToAddress(payToKey.PublicKey),
		before: map[common.Address]*big.Int{}}
	port, err := freePort()
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cfg := filepath.Join(h.tmp, armVoucher+".yaml")
	if err := os.WriteFile(cfg, []byte(h.voucherConfig(addr, va)), 0o600); err != nil {
		return err
	}
	env := []string{"FAREBOX_BENCH_UPSTREAM_KEY=sk-bench-unused", "FAREBOX_BENCH_RELAYER_KEY=" + hexutil.Encode(crypto.FromECDSA(gasKey))}
	p, err := h.serveFarebox(armVoucher, env, bin, cfg, addr)
	if err != nil {
		return err
	}
	h.procs = append(h.procs, p)
	base := "http://" + addr
	if err := p.waitHTTP(base+"/healthz", 30*time.Second); err != nil {
		return err
	}
	reg, err := x402.NewRegistry(chainNetwork(a))
	if err != nil {
		return err
	}
	for i := 0; i < chainPayers; i++ {
		key, err := crypto.GenerateKey()
		if err != nil {
			return err
		}
		vp := &voucherPayer{addr: crypto.PubkeyToAddress(key.PublicKey), charged: new(big.Int), deposited: new(big.Int)}
		if err := a.Fund(ctx, vp.addr, chainFunds); err != nil {
			return fmt.Errorf("%s: funding a payer: %w", armVoucher, err)
		}
		hc := newClient()
		tr := payer.NewTransport(payer.NewSigner(key), payer.WithNetworks(reg), payer.WithSchemes(channel.Scheme),
			payer.WithBase(paidClock{base: hc.Transport, requests: &va.requests}), payer.WithChain(a.Client),
			payer.WithDepositMultiplier(10_000), payer.WithMaxDeposit(voucherDeposit))
		vp.client = &http.Client{Timeout: hc.Timeout, Transport: tr}
		va.payers = append(va.payers, vp)
	}
	for _, who := range append([]common.Address{va.payTo}, va.addrs()...) {
		if va.before[who], err = usdcBalance(ctx, a, who); err != nil {
			return err
		}
	}
	if va.startBlock, err = a.Client.BlockNumber(ctx); err != nil {
		return err
	}
	va.arm = &arm{name: armVoucher, url: base + "/v1/responses", model: voucherModel, proc: p}
	va.arm.via = va.call
	h.voucher = va
	return nil
}

// voucherConfig is the YAML of the voucher arm's farebox: a free route and
// the per-token one, settler chain, vouchers claimed every few seconds.
func (h *harness) voucherConfig(addr string, va *voucherArm) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "addr: %s\nlog_level: %s\nmetrics: {public: true}\ndata_dir: %q\n", addr, h.logLevel, filepath.Join(h.tmp, armVoucher+"-data"))
	fmt.Fprintf(&b, "payments:\n  pay_to: %q\n  networks: [\"eip155:84532\"]\n  max_timeout_seconds: 3600\n  settler: chain\n  confirm: broadcast\n", va.payTo.Hex())
	fmt.Fprintf(&b, "  chain:\n    rpc_url: %q\n    relayer_key_env: FAREBOX_BENCH_RELAYER_KEY\n", va.anvil.RPCURL)
	fmt.Fprintf(&b, "  batch_settlement:\n    claim_interval: %s\n", voucherClaimInterval)
	fmt.Fprintf(&b, "  custom_networks:\n    - {caip2: \"eip155:84532\", v1_name: base-sepolia, chain_id: %d, asset: %q, name: USDC, version: \"2\"}\nmodels:\n",
		chaintest.ChainID, va.anvil.Network.Asset.Hex())
	fmt.Fprintf(&b, "  - name: bench-free\n    upstream: %s\n    upstream_model: anything\n    base_url: %q\n    api_key_env: FAREBOX_BENCH_UPSTREAM_KEY\n    price: \"0\"\n", h.kind, h.fake.URL())
	fmt.Fprintf(&b, "  - name: %s\n    upstream: %s\n    upstream_model: anything\n    base_url: %q\n    api_key_env: FAREBOX_BENCH_UPSTREAM_KEY\n    price_per_mtok: {input: %q, output: %q, max_per_call: %q}\n",
		voucherModel, h.kind, h.fake.URL(), voucherInput, voucherOutput, voucherCeiling)
	return b.String()
}

func (va *voucherArm) addrs() []common.Address {
	out := make([]common.Address, len(va.payers))
	for i, vp := range va.payers {
		out[i] = vp.addr
	}
	return out
}

// call pays one call through the next payer's transport and returns the
// time of its paid request alone (sent to body read, as the other arms'
// single pre-paid request); the whole call's time goes to va.e2e.
func (va *voucherArm) call(ctx context.Context) (time.Duration, error) {
	vp := va.payers[(va.next.Add(1)-1)%uint64(len(va.payers))]
	var paidAt time.Time
	var got []*payer.Settlement
	var gotMu sync.Mutex
	ctx = context.WithValue(ctx, paidStartKey{}, &paidAt)
	ctx = payer.WithHooks(ctx, &payer.Hooks{Settled: func(s *payer.Settlement) { gotMu.Lock(); got = append(got, s); gotMu.Unlock() }})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, va.url, strings.NewReader(`{"model":"`+voucherModel+`","input":"Say hello."}`))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	t0 := time.Now()
	res, err := vp.client.Do(req)
	if err != nil {
		return 0, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	end := time.Now()
	if err != nil {
		return 0, err
	}
	if res.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s: HTTP %d: %.300s", va.name, res.StatusCode, body)
	}
	if !bytes.Contains(body, []byte(fakeupstream.DefaultText)) {
		return 0, fmt.Errorf("%s: the answer lacks the upstream's text: %.300s", va.name, body)
	}
	gotMu.Lock()
	defer gotMu.Unlock()
	if len(got) != 1 || got[0].Scheme != channel.Scheme || got[0].Charged == nil {
		return 0, fmt.Errorf("%s: want one batch-settlement settlement with a charge, got %+v", va.name, got)
	}
	s := got[0]
	vp.mu.Lock()
	vp.calls++
	vp.charged.Add(vp.charged, s.Charged)
	if s.Deposited != nil {
		vp.deposits++
		vp.deposited.Add(vp.deposited, s.Deposited)
	} else if s.Transaction != "" {
		vp.bad = append(vp.bad, "a voucher-only call's receipt names transaction "+s.Transaction)
	}
	vp.mu.Unlock()
	va.mu.Lock()
	va.e2e = append(va.e2e, end.Sub(t0))
	va.mu.Unlock()
	if paidAt.IsZero() {
		return 0, fmt.Errorf("%s: no paid request was seen", va.name)
	}
	return end.Sub(paidAt), nil
}

// takeE2E returns the whole-call times recorded since the last take.
func (va *voucherArm) takeE2E() []time.Duration {
	va.mu.Lock()
	defer va.mu.Unlock()
	out := va.e2e
	va.e2e = nil
	return out
}

// totals sums the payers' receipts: calls, deposits, charged, deposited.
func (va *voucherArm) totals() (calls, deposits int, charged, deposited *big.Int, bad []string) {
	charged, deposited = new(big.Int), new(big.Int)
	for _, vp := range va.payers {
		vp.mu.Lock()
		calls += vp.calls
		deposits += vp.deposits
		charged.Add(charged, vp.charged)
		deposited.Add(deposited, vp.deposited)
		bad = append(bad, vp.bad...)
		vp.mu.Unlock()
	}
	return calls, deposits, charged, deposited, bad
}

// judge waits until farebox's relayer has nothing pending, pay_to moved by
// exactly the sum of the charges the receipts reported and every payer by
// exactly its deposits (or within passed), and says what the chain shows.
func (va *voucherArm) judge(ctx context.Context, within time.Duration) (string, error) {
	_, _, charged, _, bad := va.totals()
	deadline := time.Now().Add(within)
	for {
		mismatch := append([]string(nil), bad...)
		pending, err := va.anvil.Client.PendingNonceAt(ctx, va.gasPayer)
		if err != nil {
			return "", err
		}
		mined, err := va.anvil.Client.NonceAt(ctx, va.gasPayer, nil)
		if err != nil {
			return "", err
		}
		if pending != mined {
			mismatch = append(mismatch, fmt.Sprintf("%d transactions still pending", pending-mined))
		}
		check := func(who common.Address, want *big.Int) error {
			now, err := usdcBalance(ctx, va.anvil, who)
			if err != nil {
				return err
			}
			if got := new(big.Int).Sub(now, va.before[who]); got.Cmp(want) != 0 {
				mismatch = append(mismatch, fmt.Sprintf("%s moved %s, want %s", who.Hex(), got, want))
			}
			return nil
		}
		for _, vp := range va.payers {
			vp.mu.Lock()
			want := new(big.Int).Neg(vp.deposited)
			vp.mu.Unlock()
			if err := check(vp.addr, want); err != nil {
				return "", err
			}
		}
		if err := check(va.payTo, charged); err != nil {
			return "", err
		}
		if len(mismatch) == 0 {
			return fmt.Sprintf("ok: pay_to received exactly the %s atomic units the receipts charged; each payer moved exactly its deposit", charged), nil
		}
		if time.Now().After(deadline) {
			return fmt.Sprintf("MISMATCH after %v: %v", within, mismatch), nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// gas is chainArm.gas for the voucher arm's relayer.
func (va *voucherArm) gas(ctx context.Context) (txs, reverted int, gas uint64, err error) {
	ca := &chainArm{anvil: va.anvil, gasPayer: va.gasPayer, startBlock: va.startBlock}
	return ca.gas(ctx)
}
