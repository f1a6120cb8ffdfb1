package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/evm"
)

// The settler arm times farebox's chain settler alone, without a gateway in
// front of it (through the gateway this 2-core machine runs out of CPU
// long before the chain does): pre-signed authorizations from many payers
// to one pay_to are handed to evm.Settler.Broadcast by many goroutines at
// once, on anvil mining every 2 s with Base's 150M block gas limit, and
// the chain judges the result from its blocks and balances.
var (
	settlerOnly   = flag.Bool("settler-only", false, "measure only the chain settler's throughput (anvil, 2 s blocks, 150M gas; pre-signed payments, no gateway); output to a temp dir unless -out")
	settlerN      = flag.Int("settler-settlements", 0, "settlements offered in the settler arm (default 12000, smoke 300)")
	settlerPayers = flag.Int("settler-payers", 0, "payers in the settler arm, each paying settlements/payers times (default 256, smoke 16)")
)

// settlerPrice is what each settlement moves (atomic USDC units).
const settlerPrice = 1000

// settlerBlockTime and settlerGasLimit are Base's.
const (
	settlerBlockTime = 2 * time.Second
	settlerGasLimit  = 150_000_000
)

// SettlerResult is the settler arm: how many settlements per second the
// chain mined, at what gas, and whether the balances agree.
type SettlerResult struct {
	Chain       string `json:"chain"`
	Payers      int    `json:"payers"`
	Settlements int    `json:"settlements"`
	// PerSec is the rate held while the settler had more to send than the
	// chain could take: the settlements of the blocks from the first that
	// carried one to the last carrying at least 90% of the fullest one's,
	// over the chain time from the block before the first to that one (by
	// block timestamps, so a slow block counts against it).
	PerSec float64 `json:"settlements_per_s"`
	// OverallPerSec is every settlement over the chain time until the last
	// was mined, the draining tail included.
	OverallPerSec float64 `json:"overall_settlements_per_s"`
	// PeakBlockPerSec is the fullest block's settlements over the block time.
	PeakBlockPerSec     float64 `json:"peak_block_settlements_per_s"`
	GasPerSettlement    float64 `json:"gas_per_settlement"`
	SettlementsPerTx    float64 `json:"settlements_per_tx"`
	TxsPerBlock         float64 `json:"txs_per_block"`
	Blocks              int     `json:"blocks"`
	Transactions        int     `json:"transactions"`
	BlockGasFillPercent float64 `json:"block_gas_fill_percent"` // of the blocks that carried settlements, gas used / limit
	Reverted            int     `json:"reverted"`               // relayer transactions reverted plus transfers sent but not carried out
	FeeBumps            int64   `json:"fee_bumps"`
	BroadcastSec        float64 `json:"all_broadcast_s"` // wall time until the node accepted the last one
	// MaxPerSecAtThisGas is what 150M gas every 2 s allows at the measured gas per settlement.
	MaxPerSecAtThisGas float64 `json:"max_per_s_at_this_gas"`
	Verdict            string  `json:"verdict"`
}

// measureSettler runs the settler arm into the report (the full run and
// smoke; not -chain-only or -voucher-only).
func (h *harness) measureSettler(ctx context.Context) error {
	if h.chainOnly || h.voucherOnly {
		return nil
	}
	fmt.Printf("%s  settler: pre-signed settlements on anvil, 2 s blocks, 150M gas (load avg %s)\n", time.Now().Format("15:04:05"), loadavg())
	res, err := runSettlerArm(ctx, h.smoke)
	if err != nil {
		return fmt.Errorf("settler arm: %w", err)
	}
	h.report.Settler, h.report.SettlerThroughput = res, res.PerSec
	if !strings.HasPrefix(res.Verdict, "ok") {
		h.chainMismatch = true
	}
	return nil
}

// runSettlerOnly is -settler-only: the settler arm alone, written as
// latest.json and results.md into outDir (a temp dir when empty).
func runSettlerOnly(ctx context.Context, smoke bool, outDir string) error {
	r := &Report{Generated: stamp(), Smoke: smoke, Command: "go run ./cmd/farebox-bench " + strings.Join(os.Args[1:], " "), Machine: machine(ctx)}
	res, err := runSettlerArm(ctx, smoke)
	if err != nil {
		return err
	}
	r.Settler, r.SettlerThroughput = res, res.PerSec
	r.Machine.LoadAfter = loadavg()
	r.Notes = append(r.Notes, "Settler-only run (-settler-only): evm.Settler alone, no gateway.")
	if outDir == "" {
		if outDir, err = os.MkdirTemp("", "farebox-bench-settler-"); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(outDir, "latest.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	var md strings.Builder
	fmt.Fprintf(&md, "## farebox settler benchmark (%s)\n\nMachine: %s, %d cores; load average before %s, after %s.\n", r.Generated, r.Machine.CPU, r.Machine.Cores, r.Machine.LoadBefore, r.Machine.LoadAfter)
	r.writeSettlerTable(&md)
	if err := os.WriteFile(filepath.Join(outDir, "results.md"), []byte(md.String()), 0o644); err != nil {
		return err
	}
	fmt.Print(md.String())
	fmt.Printf("\nwrote %s/{latest.json,results.md}\n", outDir)
	if !strings.HasPrefix(res.Verdict, "ok") {
		return errChainMismatch
	}
	return nil
}

// runSettlerArm starts its own anvil, funds the payers, signs every
// payment, then offers them all at once and reads the outcome from the chain.
func runSettlerArm(ctx context.Context, smoke bool) (*SettlerResult, error) {
	n, payers := settlerSize(smoke)
	fmt.Println("starting anvil for the settler arm ...")
	a, err := chaintest.Start(ctx, chaintest.GasLimit(settlerGasLimit)) // automine while funding
	if err != nil {
		return nil, fmt.Errorf("anvil: %w", err)
	}
	defer a.Stop()
	keys, err := fundPayers(ctx, a, payers)
	if err != nil {
		return nil, err
	}
	payToKey, err := crypto.GenerateKey()
	if err != nil {
		return nil, err
	}
	payTo := crypto.PubkeyToAddress(payToKey.PublicKey)
	relayer, err := a.NewRelayer(ctx)
	if err != nil {
		return nil, err
	}
	s, err := evm.NewSettler(ctx, a.Client, relayer)
	if err != nil {
		return nil, err
	}
	// One settlement first (automine), from the chain's own payer: the
	// settler measures the token's transfer gas on it, as it does on its
	// first payment in production.
	wp, wreq := presign(a.Network, a.PayerKey, payTo)
	if rc, err := s.Settle(ctx, wp, wreq); err != nil || !rc.Success {
		return nil, fmt.Errorf("warm-up settlement: %+v %v", rc, err)
	}
	// Payments are signed before the clock starts, round robin over the
	// payers (the order least kind to batching).
	pays := make([]*x402.Payment, n)
	reqs := make([]*x402.Requirement, n)
	for i := range n {
		pays[i], reqs[i] = presign(a.Network, keys[i%payers], payTo)
	}
	before := map[common.Address]*big.Int{}
	for _, who := range append([]common.Address{payTo}, addrsOfKeys(keys)...) {
		if before[who], err = usdcBalance(ctx, a, who); err != nil {
			return nil, err
		}
	}
	if err := a.Client.Client().CallContext(ctx, nil, "evm_setIntervalMining", int(settlerBlockTime/time.Second)); err != nil {
		return nil, fmt.Errorf("evm_setIntervalMining: %w", err)
	}
	startBlock, err := a.Client.BlockNumber(ctx)
	if err != nil {
		return nil, err
	}
	fmt.Printf("settler: offering %d pre-signed settlements from %d payers to one pay_to ...\n", n, payers)
	o := offerAll(ctx, s, pays, reqs)
	res := &SettlerResult{Chain: "anvil, 2 s blocks, 150M gas, Circle's FiatToken v2.2, Multicall3", Payers: payers, Settlements: n,
		BroadcastSec: o.broadcast.Seconds(), FeeBumps: s.Stats().FeeBumps}
	if err := judgeSettler(ctx, a, s.Relayer(), startBlock, res); err != nil {
		return nil, err
	}
	if err := settlerVerdict(ctx, a, res, o, before, keys, payTo); err != nil {
		return nil, err
	}
	return res, nil
}

// settlerSize is how many settlements the arm offers and from how many
// payers: the defaults (smaller for a smoke run) unless the flags say.
func settlerSize(smoke bool) (n, payers int) {
	n, payers = 12000, 256
	if smoke {
		n, payers = 300, 16
	}
	if *settlerN > 0 {
		n = *settlerN
	}
	if *settlerPayers > 0 {
		payers = *settlerPayers
	}
	return n, min(payers, n)
}

// fundPayers makes payers fresh keys, each funded with chainFunds.
func fundPayers(ctx context.Context, a *chaintest.Anvil, payers int) ([]*ecdsa.PrivateKey, error) {
	keys := make([]*ecdsa.PrivateKey, payers)
	for i := range keys {
		var err error
		if keys[i], err = crypto.GenerateKey(); err != nil {
			return nil, err
		}
		if err := a.Fund(ctx, crypto.PubkeyToAddress(keys[i].PublicKey), chainFunds); err != nil {
			return nil, fmt.Errorf("funding payer %d: %w", i, err)
		}
	}
	return keys, nil
}

// offered is what offering the settlements came to: how long handing them
// all to the settler took, how many failed, and the first failure.
type offered struct {
	broadcast time.Duration
	failed    int64
	first     error
}

// offerAll hands every payment to s.Broadcast from 1024 goroutines at once
// and awaits each broadcast transfer mined.
func offerAll(ctx context.Context, s *evm.Settler, pays []*x402.Payment, reqs []*x402.Requirement) offered {
	var next, failed atomic.Int64
	var errMu sync.Mutex
	var firstErr error
	fail := func(err error) {
		failed.Add(1)
		errMu.Lock()
		if firstErr == nil {
			firstErr = err
		}
		errMu.Unlock()
	}
	var callers, awaits sync.WaitGroup
	start := time.Now()
	for range 1024 {
		callers.Add(1)
		go func() {
			defer callers.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(pays) {
					return
				}
				rc, err := s.Broadcast(ctx, pays[i], reqs[i], nil)
				if err != nil || !rc.Success {
					fail(fmt.Errorf("broadcast: %+v %v", rc, err))
					continue
				}
				awaits.Add(1)
				go func() {
					defer awaits.Done()
					if err := s.Await(ctx, common.HexToHash(rc.Transaction), pays[i]); err != nil {
						fail(fmt.Errorf("await: %w", err))
					}
				}()
			}
		}()
	}
	callers.Wait()
	broadcast := time.Since(start)
	awaits.Wait()
	errMu.Lock()
	defer errMu.Unlock()
	return offered{broadcast: broadcast, failed: failed.Load(), first: firstErr}
}

// settlerVerdict lets the chain judge: each payer paid price x its
// settlements, pay_to received the sum, nothing failed or reverted.
func settlerVerdict(ctx context.Context, a *chaintest.Anvil, res *SettlerResult, o offered,
	before map[common.Address]*big.Int, keys []*ecdsa.PrivateKey, payTo common.Address) error {
	n, payers := res.Settlements, res.Payers
	var mismatch []string
	if o.failed > 0 {
		mismatch = append(mismatch, fmt.Sprintf("%d settlements failed (first: %v)", o.failed, o.first))
	}
	check := func(who common.Address, want int64) error {
		now, err := usdcBalance(ctx, a, who)
		if err != nil {
			return err
		}
		if got := new(big.Int).Sub(now, before[who]); got.Cmp(big.NewInt(want)) != 0 {
			mismatch = append(mismatch, fmt.Sprintf("%s moved %s, want %d", who.Hex(), got, want))
		}
		return nil
	}
	for i, key := range keys {
		count := int64(n / payers)
		if i < n%payers {
			count++
		}
		if err := check(crypto.PubkeyToAddress(key.PublicKey), -count*settlerPrice); err != nil {
			return err
		}
	}
	if err := check(payTo, int64(n)*settlerPrice); err != nil {
		return err
	}
	if res.Reverted > 0 {
		mismatch = append(mismatch, fmt.Sprintf("%d reverted", res.Reverted))
	}
	if len(mismatch) > 0 {
		res.Verdict = fmt.Sprintf("MISMATCH: %s", strings.Join(mismatch, "; "))
	} else {
		res.Verdict = fmt.Sprintf("ok: each of %d payers moved exactly price x its settlements; pay_to received %d x price; 0 reverted", payers, n)
	}
	return nil
}

// presign is an exact payment of settlerPrice from key to payTo, valid
// from ten minutes ago for an hour, signed now.
func presign(n *x402.Network, key *ecdsa.PrivateKey, payTo common.Address) (*x402.Payment, *x402.Requirement) {
	now := time.Now().Unix()
	p := &x402.Payment{Version: 2, Scheme: "exact", Network: n.CAIP2, Authorization: x402.Authorization{
		From: crypto.PubkeyToAddress(key.PublicKey), To: payTo, Value: big.NewInt(settlerPrice),
		ValidAfter: big.NewInt(now - 600), ValidBefore: big.NewInt(now + 3600)}}
	if _, err := rand.Read(p.Authorization.Nonce[:]); err != nil {
		panic(err)
	}
	digest := n.Digest(&p.Authorization)
	sig, err := crypto.Sign(digest[:], key)
	if err != nil {
		panic(err)
	}
	sig[64] += 27
	p.Signature = sig
	return p, &x402.Requirement{Scheme: "exact", Network: n, Amount: big.NewInt(settlerPrice), PayTo: payTo, MaxTimeoutSeconds: 3600}
}

func addrsOfKeys(keys []*ecdsa.PrivateKey) []common.Address {
	out := make([]common.Address, len(keys))
	for i, k := range keys {
		out[i] = crypto.PubkeyToAddress(k.PublicKey)
	}
	return out
}

// writeSettlerTable prints the settler arm's section of the report.
func (r *Report) writeSettlerTable(w io.Writer) {
	s := r.Settler
	if s == nil {
		return
	}
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("\n### Chain settler throughput (%s; pre-signed payments, no gateway)\n\n", s.Chain)
	p("| settlements/s held | overall | peak block | gas per settlement | most at this gas | settlements per tx | txs per block | block gas used | blocks | reverted | fee bumps | payers | settlements |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	p("| %.0f | %.0f | %.0f/s | %.0f | %.0f/s | %.1f | %.1f | %.0f%% | %d | %d | %d | %d | %d |\n", s.PerSec, s.OverallPerSec, s.PeakBlockPerSec, s.GasPerSettlement, s.MaxPerSecAtThisGas,
		s.SettlementsPerTx, s.TxsPerBlock, s.BlockGasFillPercent, s.Blocks, s.Reverted, s.FeeBumps, s.Payers, s.Settlements)
	p("\nHeld: settlements mined while the settler had more than the chain could take (blocks up to the last at 90%% of the fullest) over their chain time by block timestamps; overall includes the draining tail. All %d were handed to the settler within %.1f s. Most at this gas: 150M gas per 2 s block over the gas per settlement. Chain check: %s.\n", s.Settlements, s.BroadcastSec, s.Verdict)
}
