package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// voucherParams are the sizes of the voucher arm's phase.
type voucherParams struct {
	warm, rounds, calls int
	cpuRate             float64
	cpuDur              time.Duration
	cpuRounds           int       // rounds of the CPU phase, each free calls then voucher calls
	steps               []float64 // none: no rate search
	stepDur             time.Duration
}

var (
	fullVoucher = voucherParams{warm: chainPayers, rounds: 5, calls: 40, cpuRate: 300, cpuDur: 4 * time.Second, cpuRounds: 3,
		steps: []float64{10, 25, 50, 100, 250, 500, 750, 1000, 1500}, stepDur: 2 * time.Second}
	smokeVoucher = voucherParams{warm: chainPayers, rounds: 1, calls: 6, cpuRate: 10, cpuDur: time.Second, cpuRounds: 1}
)

// voucherJudgeWithin is how long the chain has to show every claim: a
// few claim intervals and blocks.
const voucherJudgeWithin = 90 * time.Second

// VoucherResult is the batch-settlement arm: voucher calls on a per-token
// model against the free route of the same farebox process.
type VoucherResult struct {
	Arm           string `json:"arm"`
	Chain         string `json:"chain"`
	ClaimInterval string `json:"claim_interval"`
	Price         string `json:"price"`
	// P50us..AddedP99us time the paid request alone (sent to body read),
	// as the other paid arms' single pre-paid request; Added* are minus the
	// free route's quantile in the same round.
	P50us      Spread `json:"p50_us"`
	P99us      Spread `json:"p99_us"`
	AddedP50us Spread `json:"added_p50_us_vs_free"`
	AddedP99us Spread `json:"added_p99_us_vs_free"`
	FreeP50us  Spread `json:"free_p50_us"`
	Samples    int    `json:"latency_samples"`
	// E2E* time the whole call through the Go transport: signing the
	// voucher and the paid request (the transport pays straight away once
	// it has paid the endpoint: no 402 first).
	E2EP50us      Spread `json:"e2e_p50_us"`
	E2EP99us      Spread `json:"e2e_p99_us"`
	E2EAddedP50us Spread `json:"e2e_added_p50_us_vs_free"`
	// CPU of the farebox process per call, voucher calls and free calls at
	// the same offered rate.
	CPUPerCallUs       Spread  `json:"cpu_per_call_us"`
	SchedPerCallUs     Spread  `json:"sched_per_call_us"`
	FreeCPUPerCallUs   Spread  `json:"free_cpu_per_call_us"`
	FreeSchedPerCallUs Spread  `json:"free_sched_per_call_us"`
	CPUOfferedPer      float64 `json:"cpu_offered_per_s"`
	CPUFailed          string  `json:"cpu_phase_failed,omitempty"`
	// AllocsPerCall and FreeAllocsPerCall are farebox's heap allocations
	// per voucher call (all its requests) and per free call; IdleMsPerSec
	// its CPU with no calls (ms per s: the claim loop, chain heads).
	AllocsPerCall     float64 `json:"allocs_per_call"`
	FreeAllocsPerCall float64 `json:"free_allocs_per_call"`
	IdleMsPerSec      float64 `json:"idle_cpu_ms_per_s"`
	// HeldPerSec is the highest offered rate of voucher calls with p99 <
	// 20 ms (from each call's scheduled start through the Go transport) and
	// no errors (-1 when not searched).
	HeldPerSec  float64 `json:"held_per_s_p99_under_20ms"`
	P99AtHeldUs float64 `json:"p99_at_held_us"`
	FailedAt    string  `json:"failed_at,omitempty"`
	// Calls are the paid calls answered; Deposits the calls that opened a
	// channel; Charged and Deposited the sums the receipts reported (atomic).
	Calls int `json:"calls"`
	// RequestsPerCall is the HTTP requests the transports sent per paid
	// call (1 when each pays straight away; each payer's first reads a 402).
	RequestsPerCall float64 `json:"http_requests_per_call"`
	Deposits        int     `json:"deposits"`
	Charged         string  `json:"charged_atomic"`
	Deposited       string  `json:"deposited_atomic"`
	// Transactions, Reverted and GasUsed are farebox's relayer's mined
	// transactions (deposits and claims); GasPerCall divides by Calls.
	Transactions int     `json:"transactions"`
	Reverted     int     `json:"reverted_transactions"`
	GasUsed      uint64  `json:"gas_used"`
	GasPerCall   float64 `json:"gas_per_call"`
	Verdict      string  `json:"chain_verdict"`
	// Node is the official @x402/evm client's end-to-end timing, when run.
	Node *NodeVoucherResult `json:"node,omitempty"`
}

// measureVoucher runs the voucher arm: warm-up (every payer's deposit),
// latency interleaved with the same process's free route, CPU per call of
// both, then the chain judges the claims and the gas is read.
func (h *harness) measureVoucher(ctx context.Context, c *http.Client) error {
	va := h.voucher
	if va == nil {
		return nil
	}
	vp := fullVoucher
	if h.smoke {
		vp = smokeVoucher
	}
	free := &arm{name: armFree + " (same process)", url: va.url, model: "bench-free", proc: va.proc}
	phase(fmt.Sprintf("voucher arm: warm-up, one call per payer at once (its deposit is mined here), then %d calls", vp.warm))
	if err := voucherWarmUp(ctx, c, va, free, vp); err != nil {
		return err
	}
	_, depositsWarm, _, _, _ := va.totals()
	va.takeE2E()
	res := &VoucherResult{Arm: armVoucher, Chain: "anvil, 2 s blocks, 150M gas (same chain as " + armChain + ")",
		ClaimInterval: voucherClaimInterval.String(), CPUOfferedPer: vp.cpuRate, HeldPerSec: -1,
		Price: fmt.Sprintf("per token: %s USDC/M input, %s USDC/M output, ceiling %s USDC", voucherInput, voucherOutput, voucherCeiling)}

	phase(fmt.Sprintf("voucher latency: %d rounds x %d calls, concurrency 1, with the same process's free route", vp.rounds, vp.calls))
	if err := voucherLatency(ctx, c, va, free, vp, res); err != nil {
		return err
	}
	phase(fmt.Sprintf("voucher cpu: %d rounds of free calls then voucher calls, %.0f calls/s for %v each", vp.cpuRounds, vp.cpuRate, vp.cpuDur))
	if err := h.voucherLoad(ctx, c, va, vp, res); err != nil {
		return err
	}
	va.takeE2E()
	if _, deposits, _, _, _ := va.totals(); deposits != depositsWarm {
		h.note(fmt.Sprintf("%s: %d deposits after the warm-up (a channel was topped up inside a measured phase).", armVoucher, deposits-depositsWarm))
	}

	if h.nodeVoucher && !h.smoke {
		phase("voucher arm: the official @x402/evm BatchSettlementEvmScheme through @x402/fetch (node)")
		nr, err := h.runNodeVoucher(ctx, va, vp.calls)
		if err != nil {
			h.note("Node voucher timing SKIPPED: " + err.Error())
		} else {
			res.Node = nr
		}
	}

	phase(fmt.Sprintf("voucher arm: waiting for the claims (every %v) and the chain's judgement", voucherClaimInterval))
	if err := h.voucherJudge(ctx, va, res); err != nil {
		return err
	}
	h.report.Voucher = res
	return nil
}

// voucherWarmUp deposits every payer's channel, then makes vp.warm calls
// on the voucher arm and its free route, so nothing timed pays a deposit.
func voucherWarmUp(ctx context.Context, c *http.Client, va *voucherArm, free *arm, vp voucherParams) error {
	// The payers' first calls (their deposits, each waiting for a block) go
	// at once: one per payer, since calls take the payers in turn.
	errs := make(chan error, len(va.payers))
	for range va.payers {
		go func() { _, err := callOnce(ctx, c, va.arm); errs <- err }()
	}
	for range va.payers {
		if err := <-errs; err != nil {
			return fmt.Errorf("voucher warm-up (deposits): %w%s", err, procTail(va.arm))
		}
	}
	for i := 0; i < vp.warm; i++ {
		if _, err := callOnce(ctx, c, va.arm); err != nil {
			return fmt.Errorf("voucher warm-up: %w%s", err, procTail(va.arm))
		}
		if _, err := callOnce(ctx, c, free); err != nil {
			return fmt.Errorf("voucher warm-up: %w%s", err, procTail(va.arm))
		}
	}
	return nil
}

// voucherLatency times the voucher arm at concurrency 1, each round
// interleaved with the same process's free route (the order alternating),
// and records the spreads of the rounds' quantiles in res.
func voucherLatency(ctx context.Context, c *http.Client, va *voucherArm, free *arm, vp voucherParams, res *VoucherResult) error {
	var p50, p99, a50, a99, f50, e50, e99, ea50 []float64
	for r := 0; r < vp.rounds; r++ {
		order := []*arm{free, va.arm}
		if r%2 == 1 {
			order = []*arm{va.arm, free}
		}
		lat, err := measureLatency(ctx, c, order, 1, vp.calls)
		if err != nil {
			return fmt.Errorf("voucher latency: %w%s", err, procTail(va.arm))
		}
		var fs, vs []time.Duration
		for _, l := range lat {
			if l.Arm == armVoucher {
				vs = l.all
			} else {
				fs = l.all
			}
		}
		e := sortedCopy(va.takeE2E())
		res.Samples += len(vs)
		fq50, fq99 := quantile(fs, .5), quantile(fs, .99)
		p50, p99 = append(p50, micros(quantile(vs, .5))), append(p99, micros(quantile(vs, .99)))
		a50, a99 = append(a50, micros(quantile(vs, .5)-fq50)), append(a99, micros(quantile(vs, .99)-fq99))
		f50 = append(f50, micros(fq50))
		e50, e99, ea50 = append(e50, micros(quantile(e, .5))), append(e99, micros(quantile(e, .99))), append(ea50, micros(quantile(e, .5)-fq50))
	}
	res.P50us, res.P99us, res.AddedP50us, res.AddedP99us, res.FreeP50us = spreadOf(p50), spreadOf(p99), spreadOf(a50), spreadOf(a99), spreadOf(f50)
	res.E2EP50us, res.E2EP99us, res.E2EAddedP50us = spreadOf(e50), spreadOf(e99), spreadOf(ea50)
	return nil
}

// voucherLoad measures the voucher arm's CPU per call beside its free
// route and, when steps are set, the rate it holds with p99 under 20 ms.
func (h *harness) voucherLoad(ctx context.Context, c *http.Client, va *voucherArm, vp voucherParams, res *VoucherResult) error {
	cpu, err := measureChainCPU(ctx, c, []*arm{va.arm}, vp.cpuRate, vp.cpuDur, vp.cpuRounds)
	if err != nil {
		return err
	}
	res.CPUPerCallUs, res.SchedPerCallUs = cpu[0].PerCallUs, cpu[0].SchedPerCallUs
	res.FreeCPUPerCallUs, res.FreeSchedPerCallUs = cpu[0].FreePerCallUs, cpu[0].FreeSchedPerCallUs
	res.AllocsPerCall, res.FreeAllocsPerCall, res.IdleMsPerSec = cpu[0].AllocsPerCall, cpu[0].FreeAllocsPerCall, cpu[0].IdleMsPerSec
	res.CPUFailed = strings.TrimSpace(cpu[0].failed)
	if res.CPUFailed != "" {
		h.note(armVoucher + " in the CPU phase: " + res.CPUFailed)
	}
	if len(vp.steps) > 0 {
		phase(fmt.Sprintf("voucher rate: steps %v calls/s, %v each, p99 < 20 ms", vp.steps, vp.stepDur))
		rates, err := measureMaxRate(ctx, c, []*arm{va.arm}, vp.steps, vp.stepDur, 20*time.Millisecond)
		if err != nil {
			return err
		}
		res.HeldPerSec, res.P99AtHeldUs, res.FailedAt = rates[0].HeldPerSec, rates[0].P99AtHeldUs, rates[0].FailedAt
		if len(res.FailedAt) > 200 {
			res.FailedAt = res.FailedAt[:200] + "..."
		}
	}
	return nil
}

// voucherJudge waits for the claims, lets the chain judge them against the
// calls served and reads the gas of every claim transaction.
func (h *harness) voucherJudge(ctx context.Context, va *voucherArm, res *VoucherResult) error {
	var err error
	calls, deposits, charged, deposited, _ := va.totals()
	res.Calls, res.Deposits, res.Charged, res.Deposited = calls, deposits, charged.String(), deposited.String()
	if calls > 0 {
		res.RequestsPerCall = float64(va.requests.Load()) / float64(calls)
	}
	if res.Verdict, err = va.judge(ctx, voucherJudgeWithin); err != nil {
		return fmt.Errorf("%s: reading the chain: %w", armVoucher, err)
	}
	if res.Transactions, res.Reverted, res.GasUsed, err = va.gas(ctx); err != nil {
		return fmt.Errorf("%s: reading receipts: %w", armVoucher, err)
	}
	if res.Calls > 0 {
		res.GasPerCall = float64(res.GasUsed) / float64(res.Calls)
	}
	if !strings.HasPrefix(res.Verdict, "ok") {
		fmt.Fprintf(os.Stderr, "\n!!! %s: %s\n\n", armVoucher, res.Verdict)
		h.note("CHAIN MISMATCH on " + armVoucher + ": " + res.Verdict)
		h.chainMismatch = true
	}
	return nil
}

// writeVoucherTable prints the voucher section of the table.
func (r *Report) writeVoucherTable(w io.Writer) {
	v := r.Voucher
	if v == nil {
		return
	}
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	sp := func(s Spread) string { return fmt.Sprintf("%.0f (%.0f..%.0f)", s.Median, s.Min, s.Max) }
	p("\n### batch-settlement vouchers on anvil (the chain is the judge)\n\n")
	p("`%s`: `farebox serve` with `settler: chain` on %s, the canonical x402 contracts, a per-token model (%s), `claim_interval: %s`. %d payers, each with farebox's Go paying transport (`payer.NewTransport`, `WithSchemes(\"batch-settlement\")`) and one channel, deposited during the warm-up. Latency at concurrency 1, interleaved with the free route of the same farebox process, median of %d round values (lowest..highest), µs.\n\n",
		v.Arm, v.Chain, v.Price, v.ClaimInterval, chainPayers, v.P50us.Rounds)
	p("| figure | p50 | p99 | added p50 vs free | added p99 vs free |\n|---|---|---|---|---|\n")
	p("| voucher call, the paid request alone (server side) | %s | %s | %s | %s |\n", sp(v.P50us), sp(v.P99us), sp(v.AddedP50us), sp(v.AddedP99us))
	p("| voucher call end to end through the Go transport (voucher signed, paid request: no 402 once the endpoint was paid) | %s | %s | %s | |\n", sp(v.E2EP50us), sp(v.E2EP99us), sp(v.E2EAddedP50us))
	p("| free call, same process | %s | | | |\n", sp(v.FreeP50us))
	if v.Node != nil {
		n := v.Node
		p("| voucher call end to end from Node, official @x402/evm %s BatchSettlementEvmScheme via @x402/fetch (%d calls after %d warm-up) | %.0f | %.0f | | |\n", n.Version, n.Calls, n.Warm, n.P50us, n.P99us)
	}
	p("\n%d calls, %d samples in the latency phase; %.3f HTTP requests per paid call (each payer's first call reads the 402).\n\n", v.Calls, v.Samples, v.RequestsPerCall)
	p("| farebox at %.0f calls/s | voucher | free |\n|---|---|---|\n| CPU µs/call (utime+stime; schedstat) | %s; %s | %s; %s |\n| allocations per call | %.0f | %.0f |\n\n",
		v.CPUOfferedPer, sp(v.CPUPerCallUs), sp(v.SchedPerCallUs), sp(v.FreeCPUPerCallUs), sp(v.FreeSchedPerCallUs), v.AllocsPerCall, v.FreeAllocsPerCall)
	p("Idle CPU of the process (no calls, claim loop and chain heads running): %.2f ms per s.\n\n", v.IdleMsPerSec)
	switch {
	case v.HeldPerSec > 0:
		p("Highest rate of voucher calls held with p99 < 20 ms: %.0f/s (p99 %.1f ms); next: %s\n\n", v.HeldPerSec, v.P99AtHeldUs/1000, v.FailedAt)
	case v.HeldPerSec == 0:
		p("Highest rate of voucher calls held with p99 < 20 ms: none; first step failed: %s\n\n", v.FailedAt)
	}
	p("| paid calls | deposits | charged (atomic) | deposited (atomic) | relayer txs / reverted | gas used | gas per call | chain check |\n|---|---|---|---|---|---|---|---|\n")
	p("| %d | %d | %s | %s | %d / %d | %d | %.0f | %s |\n", v.Calls, v.Deposits, v.Charged, v.Deposited, v.Transactions, v.Reverted, v.GasUsed, v.GasPerCall, v.Verdict)
	p("\nGas per call is everything farebox's relayer spent (the deposits and every claim transaction) divided by the calls they paid for; it falls as more calls share a deposit and a claim.\n")
	if v.CPUFailed != "" {
		p("\nFailed in the CPU phase: %s\n", v.CPUFailed)
	}
}
