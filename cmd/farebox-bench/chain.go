package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/payer"
)

// Real-settlement arm names: farebox paid calls whose money moves on anvil.
const (
	armChain        = "farebox-paid-chain"
	armChainInstant = "farebox-paid-chain-instant"
	armFacReal      = "farebox-paid-facilitator-real"
)

// chainPrice is the paid model's price in USDC atomic units (0.001 USDC).
const chainPrice = 1000

// chainPayers is how many funded keys pay on each real-settlement arm; each
// is minted chainFunds, far above what a run spends, so a payer's balance
// less its calls in flight always covers the next call.
const (
	chainPayers = 3
	chainFunds  = 1_000_000_000_000 // 1,000,000 USDC
)

// chainNetwork is the anvil chain's USDC as farebox is told about it.
func chainNetwork(a *chaintest.Anvil) *x402.Network {
	return x402.NewNetwork("eip155:84532", "base-sepolia", big.NewInt(chaintest.ChainID), a.Network.Asset, "USDC", "2")
}

// chainArm is a paid arm whose settlements land on an anvil chain.
type chainArm struct {
	*arm
	anvil            *chaintest.Anvil
	gasPayer         common.Address // the key that sends (and pays gas for) the settlements
	payTo            common.Address
	settler, confirm string
	simulate         string // payments.chain.simulate ("": farebox's default, every payment)
	chain            string
	startBlock       uint64
	before           map[common.Address]*big.Int // each payer's and payTo's USDC before any call
	judgeWithin      time.Duration               // how long judge waits for the balances (default a minute)
}

// chainRig is the chains, the reference facilitator and the arms on them.
type chainRig struct {
	anvils []*chaintest.Anvil
	fac    *chaintest.Facilitator
	arms   []*chainArm
}

func (r *chainRig) close() {
	if r.fac != nil {
		r.fac.Stop()
	}
	for _, a := range r.anvils {
		a.Stop()
	}
}

// startChain brings up anvil with 2 s blocks (and, unless smoke, one with
// instant mining and the x402 reference facilitator) and a farebox on each.
func (h *harness) startChain(ctx context.Context, bin string) error {
	h.chain = &chainRig{}
	fmt.Println("starting anvil (Circle's USDC, Multicall3) ...")
	// Both chains start on automine so funding is quick; the 2 s one
	// switches to interval mining once every payer is funded.
	based, err := chaintest.Start(ctx, chaintest.GasLimit(150_000_000))
	if err != nil {
		return fmt.Errorf("anvil: %w", err)
	}
	h.chain.anvils = append(h.chain.anvils, based)
	key, err := based.NewRelayer(ctx)
	if err != nil {
		return err
	}
	if !h.voucherOnly {
		if err := h.addChainArm(ctx, bin, armChain, based, key, "chain", "broadcast", "anvil, 2 s blocks, 150M gas", ""); err != nil {
			return err
		}
	}
	if !h.chainOnly {
		if err := h.addVoucherArm(ctx, bin, based); err != nil {
			return fmt.Errorf("%s: %w", armVoucher, err)
		}
	}
	if h.voucherOnly {
		h.note("Voucher-only run (-voucher-only): only " + armVoucher + " against the free route of its own farebox.")
	} else if !h.smoke && !h.chainOnly {
		instant, err := chaintest.Start(ctx, chaintest.GasLimit(150_000_000))
		if err != nil {
			return fmt.Errorf("anvil (instant): %w", err)
		}
		h.chain.anvils = append(h.chain.anvils, instant)
		key, err := instant.NewRelayer(ctx)
		if err != nil {
			return err
		}
		if err := h.addChainArm(ctx, bin, armChainInstant, instant, key, "chain", "broadcast", "anvil, instant mining", ""); err != nil {
			return err
		}
		if err := h.addFacilitatorArm(ctx, bin, based); err != nil {
			h.note(armFacReal + " SKIPPED: " + err.Error())
		}
	} else if h.chainOnly {
		h.note("Chain-only run (-chain-only): only " + armChain + " against farebox-free.")
	} else {
		h.note("Smoke run: only " + armChain + " and " + armVoucher + " (without the Node client) of the real-settlement arms, with a handful of calls and no rate search.")
	}
	if err := based.Client.Client().CallContext(ctx, nil, "evm_setIntervalMining", 2); err != nil {
		return fmt.Errorf("anvil: evm_setIntervalMining: %w", err)
	}
	return nil
}

// addFacilitatorArm starts the reference facilitator on a and a farebox
// settling through it.
func (h *harness) addFacilitatorArm(ctx context.Context, bin string, a *chaintest.Anvil) error {
	key, err := a.NewRelayer(ctx)
	if err != nil {
		return err
	}
	fmt.Println("starting the x402 reference facilitator (npm) ...")
	if h.chain.fac, err = chaintest.StartReferenceFacilitator(ctx, a.RPCURL, key); err != nil {
		return err
	}
	return h.addChainArm(ctx, bin, armFacReal, a, key, "facilitator", "mined", "anvil, 2 s blocks, 150M gas (same chain as "+armChain+")", h.chain.fac.URL)
}

// addChainArm starts a farebox settling on a (with its own relayer, or
// through facURL when set) and funds its payers.
func (h *harness) addChainArm(ctx context.Context, bin, name string, a *chaintest.Anvil, gasKey *ecdsa.PrivateKey, settler, confirm, chain, facURL string) error {
	gasPayer := crypto.PubkeyToAddress(gasKey.PublicKey)
	payToKey, err := crypto.GenerateKey()
	if err != nil {
		return err
	}
	ca := &chainArm{anvil: a, gasPayer: gasPayer, payTo: crypto.PubkeyToAddress(payToKey.PublicKey), settler: settler, confirm: confirm, chain: chain,
		before: map[common.Address]*big.Int{}}
	if name == armChain {
		ca.simulate = h.chainSimulate
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cfg := filepath.Join(h.tmp, name+".yaml")
	if err := os.WriteFile(cfg, []byte(h.chainConfig(addr, name, ca, facURL)), 0o600); err != nil {
		return err
	}
	env := []string{"FAREBOX_BENCH_UPSTREAM_KEY=sk-bench-unused"}
	if facURL == "" {
		env = append(env, "FAREBOX_BENCH_RELAYER_KEY="+hexutil.Encode(crypto.FromECDSA(gasKey)))
	}
	p, err := h.serveFarebox(name, env, bin, cfg, addr)
	if err != nil {
		return err
	}
	h.procs = append(h.procs, p)
	base := "http://" + addr
	if err := p.waitHTTP(base+"/healthz", 30*time.Second); err != nil {
		return err
	}
	var signers []*payer.Signer
	for i := 0; i < chainPayers; i++ {
		s, err := newSigner()
		if err != nil {
			return err
		}
		if err := a.Fund(ctx, s.Address(), chainFunds); err != nil {
			return fmt.Errorf("%s: funding a payer: %w", name, err)
		}
		signers = append(signers, s)
	}
	pool, err := newPayPool(ctx, newClient(), base+"/v1/responses", "bench-paid", chainNetwork(a), signers...)
	if err != nil {
		return fmt.Errorf("%s: %w\n%s", name, err, p.tail())
	}
	for _, who := range append([]common.Address{ca.payTo}, addrsOf(signers)...) {
		if ca.before[who], err = usdcBalance(ctx, a, who); err != nil {
			return err
		}
	}
	if ca.startBlock, err = a.Client.BlockNumber(ctx); err != nil {
		return err
	}
	ca.arm = &arm{name: name, url: base + "/v1/responses", model: "bench-paid", proc: p, pay: pool}
	h.chain.arms = append(h.chain.arms, ca)
	return nil
}

// chainConfig is the YAML of a farebox settling on ca's chain: a free and
// a paid route to the fake upstream, USDC on anvil as a custom network.
func (h *harness) chainConfig(addr, name string, ca *chainArm, facURL string) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "addr: %s\nlog_level: %s\nmetrics: {public: true}\ndata_dir: %q\n", addr, h.logLevel, filepath.Join(h.tmp, name+"-data"))
	fmt.Fprintf(&b, "payments:\n  pay_to: %q\n  networks: [\"eip155:84532\"]\n  max_timeout_seconds: 3600\n  settler: %s\n  confirm: %s\n", ca.payTo.Hex(), ca.settler, ca.confirm)
	fmt.Fprintf(&b, "  chain:\n    rpc_url: %q\n", ca.anvil.RPCURL)
	if ca.simulate != "" {
		fmt.Fprintf(&b, "    simulate: %s\n", ca.simulate)
	}
	if facURL == "" {
		b.WriteString("    relayer_key_env: FAREBOX_BENCH_RELAYER_KEY\n")
	} else {
		fmt.Fprintf(&b, "  facilitator:\n    url: %q\n", facURL)
	}
	fmt.Fprintf(&b, "  custom_networks:\n    - {caip2: \"eip155:84532\", v1_name: base-sepolia, chain_id: %d, asset: %q, name: USDC, version: \"2\"}\nmodels:\n",
		chaintest.ChainID, ca.anvil.Network.Asset.Hex())
	for _, m := range [][2]string{{"bench-free", "0"}, {"bench-paid", "0.001"}} {
		fmt.Fprintf(&b, "  - name: %s\n    upstream: %s\n    upstream_model: anything\n    base_url: %q\n    api_key_env: FAREBOX_BENCH_UPSTREAM_KEY\n    price: %q\n",
			m[0], h.kind, h.fake.URL(), m[1])
	}
	return b.String()
}

func addrsOf(signers []*payer.Signer) []common.Address {
	out := make([]common.Address, len(signers))
	for i, s := range signers {
		out[i] = s.Address()
	}
	return out
}

// usdcBalance reads who's USDC on a.
func usdcBalance(ctx context.Context, a *chaintest.Anvil, who common.Address) (*big.Int, error) {
	var out hexutil.Bytes
	data := append(common.FromHex("0x70a08231"), common.LeftPadBytes(who.Bytes(), 32)...)
	arg := map[string]any{"to": a.Network.Asset, "data": hexutil.Bytes(data)}
	if err := a.Client.Client().CallContext(ctx, &out, "eth_call", arg, "latest"); err != nil {
		return nil, err
	}
	return new(big.Int).SetBytes(out), nil
}

// judge waits until the arm's gas payer has nothing pending and every
// balance moved by exactly price x served calls (or a minute passed), and
// says what the chain shows.
func (ca *chainArm) judge(ctx context.Context) (settled int, verdict string, err error) {
	served := ca.pay.servedBy()
	for _, n := range served {
		settled += n
	}
	within := ca.judgeWithin
	if within == 0 {
		within = time.Minute
	}
	deadline := time.Now().Add(within)
	for {
		var mismatch []string
		pending, err := ca.anvil.Client.PendingNonceAt(ctx, ca.gasPayer)
		if err != nil {
			return settled, "", err
		}
		mined, err := ca.anvil.Client.NonceAt(ctx, ca.gasPayer, nil)
		if err != nil {
			return settled, "", err
		}
		if pending != mined {
			mismatch = append(mismatch, fmt.Sprintf("%d transactions still pending", pending-mined))
		}
		check := func(who common.Address, want *big.Int) error {
			now, err := usdcBalance(ctx, ca.anvil, who)
			if err != nil {
				return err
			}
			if got := new(big.Int).Sub(now, ca.before[who]); got.Cmp(want) != 0 {
				mismatch = append(mismatch, fmt.Sprintf("%s moved %s, want %s", who.Hex(), got, want))
			}
			return nil
		}
		for _, who := range addrsOf(ca.pay.signers) {
			if err := check(who, big.NewInt(-int64(served[who])*chainPrice)); err != nil {
				return settled, "", err
			}
		}
		if err := check(ca.payTo, big.NewInt(int64(settled)*chainPrice)); err != nil {
			return settled, "", err
		}
		if len(mismatch) == 0 {
			return settled, fmt.Sprintf("ok: %d payers each moved price x their %d..%d served calls; pay_to received %d x price", len(served), minOf(served), maxOf(served), settled), nil
		}
		if time.Now().After(deadline) {
			return settled, fmt.Sprintf("MISMATCH after %v: %v", within, mismatch), nil
		}
		select {
		case <-ctx.Done():
			return settled, "", ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// gas sums gasUsed over the gas payer's mined transactions since the arm
// started (eth_getBlockReceipts, block by block) and counts the reverted.
func (ca *chainArm) gas(ctx context.Context) (txs, reverted int, gas uint64, err error) {
	last, err := ca.anvil.Client.BlockNumber(ctx)
	if err != nil {
		return 0, 0, 0, err
	}
	for n := ca.startBlock + 1; n <= last; n++ {
		var rs []struct {
			From    common.Address `json:"from"`
			GasUsed hexutil.Uint64 `json:"gasUsed"`
			Status  hexutil.Uint64 `json:"status"`
		}
		if err := ca.anvil.Client.Client().CallContext(ctx, &rs, "eth_getBlockReceipts", hexutil.EncodeUint64(n)); err != nil {
			return 0, 0, 0, err
		}
		for _, r := range rs {
			if r.From != ca.gasPayer {
				continue
			}
			txs++
			gas += uint64(r.GasUsed)
			if r.Status == 0 {
				reverted++
			}
		}
	}
	return txs, reverted, gas, nil
}

func minOf(m map[common.Address]int) int {
	v := -1
	for _, n := range m {
		if v < 0 || n < v {
			v = n
		}
	}
	return max(v, 0)
}

func maxOf(m map[common.Address]int) int {
	v := 0
	for _, n := range m {
		v = max(v, n)
	}
	return v
}

// errChainMismatch ends a run whose chain balances disagree with the calls served.
var errChainMismatch = errors.New("the chain's balances disagree with the calls served (see the real-settlement table)")
