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

// chainParams are the sizes of the real-settlement phase: far fewer calls
// than the stand-in's, since a mined settlement waits for a block.
type chainParams struct {
	warm, rounds, calls int
	cpuRate             float64
	cpuDur              time.Duration
	cpuRounds           int       // rounds of the CPU phase, each the free route then the paid one
	steps               []float64 // none: no rate search
	stepDur             time.Duration
}

var (
	fullChain = chainParams{warm: 3, rounds: 3, calls: 10, cpuRate: 300, cpuDur: 4 * time.Second, cpuRounds: 3,
		steps: []float64{10, 25, 50, 100, 250, 500, 750, 1000, 1500}, stepDur: 2 * time.Second}
	smokeChain = chainParams{warm: 2, rounds: 1, calls: 3, cpuRate: 5, cpuDur: time.Second, cpuRounds: 1}
)

// chainP99Limit is the latency a real settlement must stay under (p99)
// for its rate to count as held: the stand-in arms' limit, so the rates
// compare.
const chainP99Limit = 20 * time.Millisecond

// ChainResult is one real-settlement arm: farebox paid calls whose USDC
// moves on anvil, judged by the chain's balances at the end.
type ChainResult struct {
	Arm     string `json:"arm"`
	Settler string `json:"settler"`
	// Confirm is when farebox counts a settlement done and answers:
	// broadcast (the node accepted it) or mined (its block is in).
	Confirm string `json:"confirm"`
	// Simulate is the arm's payments.chain.simulate ("": the default,
	// every payment before the model).
	Simulate string `json:"simulate,omitempty"`
	Chain    string `json:"chain"`
	// Latency at concurrency 1, interleaved with farebox-free; Added* are
	// minus farebox-free's quantile in the same round.
	P50us      Spread `json:"p50_us"`
	P99us      Spread `json:"p99_us"`
	AddedP50us Spread `json:"added_p50_us_vs_free"`
	AddedP99us Spread `json:"added_p99_us_vs_free"`
	Samples    int    `json:"latency_samples"`
	// CPUPerCallUs is farebox's own CPU (utime+stime) per paid call; the
	// facilitator's and anvil's are not in it.
	CPUPerCallUs Spread `json:"cpu_per_call_us"`
	// SchedPerCallUs is the same from the threads' schedstat (ns clock).
	SchedPerCallUs Spread `json:"sched_per_call_us"`
	// FreeCPUPerCallUs and FreeSchedPerCallUs are the same process's free
	// route at the same rate, in rounds alternating with the paid ones.
	FreeCPUPerCallUs   Spread  `json:"free_cpu_per_call_us"`
	FreeSchedPerCallUs Spread  `json:"free_sched_per_call_us"`
	CPUOfferedPer      float64 `json:"cpu_offered_per_s"`
	// AllocsPerCall is farebox's heap allocations per paid call at that
	// rate; IdleMsPerSec its CPU with no calls (ms per s), apart.
	AllocsPerCall float64 `json:"allocs_per_call"`
	IdleMsPerSec  float64 `json:"idle_cpu_ms_per_s"`
	// CPUFailed says how many calls of the CPU phase failed, and the first
	// error: a real settler can refuse under load where the stand-in never does.
	CPUFailed string `json:"cpu_phase_failed,omitempty"`
	// HeldPerSec is the highest offered rate with p99 < chainP99Limit and no errors
	// (0 with FailedAt when the first step failed; -1 when not searched).
	HeldPerSec  float64 `json:"settlements_per_s_p99_under_20ms"`
	P99AtHeldUs float64 `json:"p99_at_held_us"`
	FailedAt    string  `json:"failed_at,omitempty"`
	// Settlements is every paid call served with a successful receipt;
	// Transactions, Reverted and GasUsed are the gas payer's mined
	// transactions as anvil's receipts show them.
	Settlements      int     `json:"settlements"`
	Transactions     int     `json:"transactions"`
	Reverted         int     `json:"reverted_transactions"`
	GasUsed          uint64  `json:"gas_used"`
	GasPerSettlement float64 `json:"gas_per_settlement"`
	// Chain is the judge's verdict: every payer's balance delta against
	// price x its served calls, and pay_to's against the total.
	Verdict string `json:"chain_verdict"`
}

// measureChain runs the real-settlement arms: warm-up, latency against
// farebox-free, CPU per call, the p99 < chainP99Limit rate search (not in smoke),
// then lets the chain judge every balance and reads the gas.
func (h *harness) measureChain(ctx context.Context, c *http.Client) error {
	cp := fullChain
	if h.smoke {
		cp = smokeChain
	}
	if h.chainOnly {
		cp.rounds, cp.calls = 5, 40
	}
	var arms []*arm
	for _, ca := range h.chain.arms {
		arms = append(arms, ca.arm)
	}
	if len(arms) == 0 {
		return nil
	}
	if err := fillPools(arms, cp.warm+1); err != nil {
		return err
	}
	for _, a := range arms {
		for i := 0; i < cp.warm; i++ {
			if _, err := callOnce(ctx, c, a); err != nil {
				return fmt.Errorf("real-settlement warm-up: %w%s", err, procTail(a))
			}
		}
	}
	var free *arm
	for _, a := range h.arms {
		if a.name == armFree {
			free = a
		}
	}
	phase(fmt.Sprintf("real settlement latency: %d rounds x %d calls per arm, concurrency 1, with farebox-free", cp.rounds, cp.calls))
	lat, err := measureLatency(ctx, c, append([]*arm{free}, arms...), cp.rounds, cp.calls)
	if err != nil {
		return err
	}
	phase(fmt.Sprintf("real settlement cpu: %d rounds per arm of its free route then its paid route, %.0f calls/s for %v each", cp.cpuRounds, cp.cpuRate, cp.cpuDur))
	cpu, err := measureChainCPU(ctx, c, arms, cp.cpuRate, cp.cpuDur, cp.cpuRounds)
	if err != nil {
		return err
	}
	var rates []*RateResult
	if len(cp.steps) > 0 {
		phase(fmt.Sprintf("real settlement rate: steps %v calls/s, %v each, p99 < %v", cp.steps, cp.stepDur, chainP99Limit))
		if rates, err = measureMaxRate(ctx, c, arms, cp.steps, cp.stepDur, chainP99Limit); err != nil {
			return err
		}
	}
	phase("real settlement: waiting for the chain to judge the balances")
	mismatch := false
	for i, ca := range h.chain.arms {
		l := lat[i+1]
		res := &ChainResult{Arm: ca.name, Settler: ca.settler, Confirm: ca.confirm, Simulate: ca.simulate, Chain: ca.chain,
			P50us: l.P50us, P99us: l.P99us, AddedP50us: l.AddedP50us, AddedP99us: l.AddedP99us, Samples: l.Samples,
			CPUPerCallUs: cpu[i].PerCallUs, SchedPerCallUs: cpu[i].SchedPerCallUs, FreeCPUPerCallUs: cpu[i].FreePerCallUs, FreeSchedPerCallUs: cpu[i].FreeSchedPerCallUs, CPUOfferedPer: cpu[i].Rate, CPUFailed: cpu[i].failed, HeldPerSec: -1,
			AllocsPerCall: cpu[i].AllocsPerCall, IdleMsPerSec: cpu[i].IdleMsPerSec}
		if res.CPUFailed != "" {
			h.note(ca.name + " in the CPU phase: " + res.CPUFailed)
		}
		if rates != nil {
			res.HeldPerSec, res.P99AtHeldUs, res.FailedAt = rates[i].HeldPerSec, rates[i].P99AtHeldUs, rates[i].FailedAt
			if len(res.FailedAt) > 200 {
				res.FailedAt = res.FailedAt[:200] + "..."
			}
		}
		if res.Settlements, res.Verdict, err = ca.judge(ctx); err != nil {
			return fmt.Errorf("%s: reading the chain: %w", ca.name, err)
		}
		if res.Transactions, res.Reverted, res.GasUsed, err = ca.gas(ctx); err != nil {
			return fmt.Errorf("%s: reading receipts: %w", ca.name, err)
		}
		if res.Settlements > 0 {
			res.GasPerSettlement = float64(res.GasUsed) / float64(res.Settlements)
		}
		if !strings.HasPrefix(res.Verdict, "ok") {
			mismatch = true
			fmt.Fprintf(os.Stderr, "\n!!! %s: %s\n\n", ca.name, res.Verdict)
			h.note("CHAIN MISMATCH on " + ca.name + ": " + res.Verdict)
		}
		if late := ca.pay.lateCount(); late > 0 {
			h.note(fmt.Sprintf("%s: %d payments had to be signed inside timed intervals.", ca.name, late))
		}
		h.report.RealSettlement = append(h.report.RealSettlement, res)
	}
	if h.chain.fac != nil {
		h.note(armFacReal + ": the x402 reference facilitator (@x402/core + @x402/evm, npm, a Node process) settles each payment in its own transaction and answers only once it is mined, so farebox's confirm is mined there; its ~4 s per call is mostly viem's default receipt polling interval (4 s; the facilitator script sets none), not the 2 s block. Its CPU (Node) is not in farebox's figure.")
	}
	if mismatch {
		h.chainMismatch = true
	}
	return nil
}

// chainCPU is one arm's CPU figure and its failed calls.
type chainCPU struct {
	Rate                      float64 // calls/s offered
	PerCallUs, SchedPerCallUs Spread
	// The free route of the same process, in rounds alternating with the
	// paid ones.
	FreePerCallUs, FreeSchedPerCallUs Spread
	FreeAllocsPerCall                 float64
	AllocsPerCall                     float64
	IdleMsPerSec                      float64
	failed                            string
}

// facRealCPURate is the most the reference facilitator's arm is offered in
// the CPU phase: that facilitator (one Node process, one signer, a mined
// receipt per answer) serves a few tens of settlements a second. Offered
// 300/s it refuses nine calls in ten, and some refusals are transfers its
// send retried that mine after all: the payer then pays for a refused call
// (a hazard of an overloaded facilitator that the real-settlement table
// showed at 300/s; see README, settler: facilitator).
const facRealCPURate = 20

// measureChainCPU is measureCPU for the real-settlement arms: rounds
// rounds per arm, each the arm's free route and then its paid route at the
// same offered rate in the same farebox process (so chain minus free is
// taken minutes apart from nothing and on the same process's warm state),
// except that failed calls are recorded rather than ending the run: the
// chain judges afterwards whether any of them was charged. The first paid
// round is profiled.
func measureChainCPU(ctx context.Context, c *http.Client, arms []*arm, rate float64, dur time.Duration, rounds int) ([]chainCPU, error) {
	out := make([]chainCPU, len(arms))
	for i, a := range arms {
		rate := rate
		if a.name == armFacReal && rate > facRealCPURate {
			rate = facRealCPURate
		}
		out[i].Rate = rate
		if a.pay != nil {
			if err := a.pay.fill(rounds*int(rate*dur.Seconds()) + 1); err != nil {
				return nil, err
			}
		}
		out[i].IdleMsPerSec = idleCPU(ctx, a.proc, idleFor(dur))
		free := &arm{name: a.name + " (free route)", url: a.url, model: "bench-free", proc: a.proc}
		var cpus, scheds, freeCPUs, freeScheds, allocs, freeAllocs []float64
		var failed, sent int
		var firstErr error
		for r := range rounds {
			fr, err := cpuRound(ctx, c, free, rate, dur, false)
			if err != nil {
				return nil, err
			}
			if fr.errs == 0 && fr.ok > 0 {
				freeCPUs, freeScheds, freeAllocs = append(freeCPUs, fr.cpu), append(freeScheds, fr.sched), append(freeAllocs, fr.allocs)
			}
			pr, err := cpuRound(ctx, c, a, rate, dur, r == 0)
			if err != nil {
				return nil, err
			}
			if pr.ok > 0 {
				cpus, scheds, allocs = append(cpus, pr.cpu), append(scheds, pr.sched), append(allocs, pr.allocs)
			}
			failed, sent = failed+pr.errs, sent+pr.sent
			if firstErr == nil {
				firstErr = pr.firstErr
			}
		}
		if len(cpus) > 0 {
			out[i].PerCallUs, out[i].SchedPerCallUs = spreadOf(cpus), spreadOf(scheds)
			out[i].AllocsPerCall = spreadOf(allocs).Median
		}
		if len(freeCPUs) > 0 {
			out[i].FreePerCallUs, out[i].FreeSchedPerCallUs = spreadOf(freeCPUs), spreadOf(freeScheds)
			out[i].FreeAllocsPerCall = spreadOf(freeAllocs).Median
		}
		if failed > 0 {
			out[i].failed = fmt.Sprintf("%d of %d calls failed at %.0f/s, first: %.240v", failed, sent, rate, firstErr)
		}
	}
	return out, nil
}

// writeChainTable prints the real-settlement section of the table.
func (r *Report) writeChainTable(w io.Writer) {
	if len(r.RealSettlement) == 0 {
		return
	}
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	sp := func(s Spread) string { return fmt.Sprintf("%.0f (%.0f..%.0f)", s.Median, s.Min, s.Max) }
	p("\n### Real settlement on anvil (the chain is the judge)\n\n")
	p("Paid calls at 0.001 USDC from %d funded payers per arm, authorizations pre-signed outside the timed intervals. Latency at concurrency 1, interleaved with farebox-free; \"added\" is minus farebox-free in the same round (µs). p99 over so few calls per round is close to the maximum. CPU and allocations per call at the offered rate shown; idle CPU (no calls, ms per s) apart.\n\n", chainPayers)
	p("| arm | settler / confirm / simulate | chain | p50 | p99 | added p50 vs free | added p99 vs free | farebox CPU µs/call (utime+stime; schedstat) at calls/s | allocs/call | idle CPU ms/s | settlements/s at p99 < 20 ms | gas per settlement | settlements / txs / reverted | chain check | failed in the CPU phase |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, c := range r.RealSettlement {
		rate := "not searched"
		switch {
		case c.HeldPerSec > 0:
			rate = fmt.Sprintf("%.0f (p99 %.0f ms)", c.HeldPerSec, c.P99AtHeldUs/1000)
			if c.FailedAt != "" {
				rate += "; next: " + c.FailedAt
			}
		case c.HeldPerSec == 0:
			rate = "0; first step failed: " + c.FailedAt
		}
		p("| %s | %s / %s / %s | %s | %s | %s | %s | %s | %s at %.0f/s | %.0f | %.2f | %s | %.0f | %d / %d / %d | %s | %s |\n", c.Arm, c.Settler, c.Confirm, simulateLabel(c), c.Chain,
			sp(c.P50us), sp(c.P99us), sp(c.AddedP50us), sp(c.AddedP99us), sp(c.CPUPerCallUs)+"; "+sp(c.SchedPerCallUs)+freeRoute(c, sp), c.CPUOfferedPer, c.AllocsPerCall, c.IdleMsPerSec, rate, c.GasPerSettlement,
			c.Settlements, c.Transactions, c.Reverted, c.Verdict, strings.ReplaceAll(c.CPUFailed, "|", "/"))
	}
}

// simulateLabel is a chain arm's payments.chain.simulate as the table
// shows it: "each" for the default (every payment before the model).
func simulateLabel(c *ChainResult) string {
	if c.Simulate != "" && c.Simulate != "true" {
		return c.Simulate
	}
	return "each"
}

// freeRoute is the CPU cell's note of the same process's free route.
func freeRoute(c *ChainResult, sp func(Spread) string) string {
	if c.FreeCPUPerCallUs.Median == 0 {
		return ""
	}
	return " (its free route: " + sp(c.FreeCPUPerCallUs) + "; " + sp(c.FreeSchedPerCallUs) + ")"
}
