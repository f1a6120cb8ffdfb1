package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Report is everything one harness run measured: bench/latest.json.
type Report struct {
	Generated string   `json:"generated"`
	Smoke     bool     `json:"smoke"`
	Command   string   `json:"command"`
	Machine   Machine  `json:"machine"`
	Setup     Setup    `json:"setup"`
	Notes     []string `json:"notes"`

	Latency []*LatencyResult `json:"latency"`
	// SettleRoundTripUs is one client round trip to the settlement
	// stand-in at concurrency 1: the part of the paid arm's latency that is
	// the stand-in's loopback call rather than farebox's own work.
	SettleRoundTripUs Spread          `json:"settle_round_trip_us"`
	Streams           []*StreamResult `json:"streams"`
	CPU               []*CPUResult    `json:"cpu"`
	MaxRate           []*RateResult   `json:"max_rate"`
	Memory            []*MemoryResult `json:"memory"`
	// RealSettlement is the paid arms that settle on anvil.
	RealSettlement []*ChainResult `json:"real_settlement"`
	// Voucher is the batch-settlement arm (vouchers on a per-token model).
	Voucher *VoucherResult `json:"voucher,omitempty"`
	Ratios  []Ratio        `json:"ratios"`
	Budgets []Budget       `json:"budgets"`

	// Settler is the chain settler alone on anvil (settlerarm.go), and
	// SettlerThroughput its settlements per second, judged by the chain.
	Settler           *SettlerResult `json:"settler,omitempty"`
	SettlerThroughput float64        `json:"settler_throughput_per_s"`
}

// Machine says where the figures came from.
type Machine struct {
	CPU        string `json:"cpu"`
	Cores      int    `json:"cores"`
	Kernel     string `json:"kernel"`
	Go         string `json:"go"`
	Node       string `json:"node,omitempty"`
	LoadBefore string `json:"loadavg_before"`
	LoadAfter  string `json:"loadavg_after"`
}

// Setup records the run's parameters.
type Setup struct {
	Rounds          int     `json:"rounds"`
	CallsPerRound   int     `json:"calls_per_round"`
	StreamsPerRound int     `json:"streams_per_round"`
	PaceMs          float64 `json:"stream_pace_ms"`
	CPURatePerSec   float64 `json:"cpu_offered_per_s"`
	CPUSeconds      float64 `json:"cpu_seconds_per_round"`
	RateStepSeconds float64 `json:"rate_step_seconds"`
	P99LimitMs      float64 `json:"rate_p99_limit_ms"`
	OpenStreams     int     `json:"open_streams"`
	UpstreamKind    string  `json:"farebox_upstream_kind"`
	Settlement      string  `json:"settlement"`
	FareboxLogLevel string  `json:"farebox_log_level"`
}

// Ratio is one comparison of two arms: a ratio or a difference.
type Ratio struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"` // "x" for a ratio, "us" for a difference
}

// Budget is one of farebox's performance budgets, checked: Measured <=
// Limit, or Measured >= Limit when AtLeast. A line whose figure this run
// did not measure is NotMeasured (and not Met).
type Budget struct {
	Name        string  `json:"name"`
	Limit       float64 `json:"limit"`
	Measured    float64 `json:"measured"`
	Unit        string  `json:"unit"`
	AtLeast     bool    `json:"at_least,omitempty"`
	NotMeasured bool    `json:"not_measured,omitempty"`
	Met         bool    `json:"met"`
}

// schedOr is a CPU figure's schedstat median (nanosecond clock), or its
// utime+stime median when schedstat was not read.
func schedOr(sched, ticks Spread) float64 {
	if sched.Median > 0 {
		return sched.Median
	}
	return ticks.Median
}

func (r *Report) chainArm(arm string) *ChainResult {
	return find(r.RealSettlement, arm, func(c *ChainResult) string { return c.Arm })
}

func find[T any](xs []*T, arm string, name func(*T) string) *T {
	for _, x := range xs {
		if name(x) == arm {
			return x
		}
	}
	return nil
}

func (r *Report) lat(arm string) *LatencyResult {
	return find(r.Latency, arm, func(l *LatencyResult) string { return l.Arm })
}
func (r *Report) cpu(arm string) *CPUResult {
	return find(r.CPU, arm, func(l *CPUResult) string { return l.Arm })
}
func (r *Report) rate(arm string) *RateResult {
	return find(r.MaxRate, arm, func(l *RateResult) string { return l.Arm })
}
func (r *Report) stream(arm string) *StreamResult {
	return find(r.Streams, arm, func(l *StreamResult) string { return l.Arm })
}
func (r *Report) mem(arm string) *MemoryResult {
	return find(r.Memory, arm, func(l *MemoryResult) string { return l.Arm })
}

// derive fills Ratios and Budgets from the measured figures.
func (r *Report) derive() {
	add := func(name string, v float64, unit string) {
		r.Ratios = append(r.Ratios, Ratio{Name: name, Value: v, Unit: unit})
	}
	d, bare, free, paid, pk := r.lat(armDirect), r.lat(armBare), r.lat(armFree), r.lat(armPaid), r.lat(armPortkey)
	if d != nil && paid != nil {
		add("latency p50 farebox-paid / direct", ratio(paid.P50us.Median, d.P50us.Median), "x")
		add("latency p99 farebox-paid / direct", ratio(paid.P99us.Median, d.P99us.Median), "x")
		add("latency p50 farebox-free / direct", ratio(free.P50us.Median, d.P50us.Median), "x")
	}
	if pk != nil && free != nil {
		add("added latency p50 farebox-free / portkey", ratio(free.AddedP50us.Median, pk.AddedP50us.Median), "x")
		add("added latency p50 farebox-paid / portkey", ratio(paid.AddedP50us.Median, pk.AddedP50us.Median), "x")
		add("added latency p99 farebox-paid / portkey", ratio(paid.AddedP99us.Median, pk.AddedP99us.Median), "x")
	}
	if bare != nil && paid != nil {
		add("latency p50 farebox-free minus bare proxy", free.P50us.Median-bare.P50us.Median, "us")
		add("latency p50 farebox-paid minus bare proxy", paid.P50us.Median-bare.P50us.Median, "us")
		add("latency p99 farebox-paid minus bare proxy", paid.P99us.Median-bare.P99us.Median, "us")
		add("latency p50 farebox-paid minus bare proxy minus settle round trip", paid.P50us.Median-bare.P50us.Median-r.SettleRoundTripUs.Median, "us")
	}
	cb, cf, cp, ck := r.cpu(armBare), r.cpu(armFree), r.cpu(armPaid), r.cpu(armPortkey)
	if cb != nil && cp != nil {
		add("cpu per call farebox-paid / bare proxy", ratio(cp.PerCallUs.Median, cb.PerCallUs.Median), "x")
		add("cpu per call farebox-free / bare proxy", ratio(cf.PerCallUs.Median, cb.PerCallUs.Median), "x")
	}
	if ck != nil && cp != nil {
		add("cpu per call farebox-paid / portkey", ratio(cp.PerCallUs.Median, ck.PerCallUs.Median), "x")
		add("cpu per call farebox-free / portkey", ratio(cf.PerCallUs.Median, ck.PerCallUs.Median), "x")
	}
	rd, rf, rp, rk := r.rate(armDirect), r.rate(armFree), r.rate(armPaid), r.rate(armPortkey)
	if rd != nil && rp != nil {
		add("max rate farebox-free / direct", ratio(rf.HeldPerSec, rd.HeldPerSec), "x")
		add("max rate farebox-paid / direct", ratio(rp.HeldPerSec, rd.HeldPerSec), "x")
	}
	if rk != nil && rp != nil {
		add("max rate farebox-free / portkey", ratio(rf.HeldPerSec, rk.HeldPerSec), "x")
		add("max rate farebox-paid / portkey", ratio(rp.HeldPerSec, rk.HeldPerSec), "x")
	}
	if v := r.Voucher; v != nil {
		add("added latency p50 voucher call (paid request) minus free, same process", v.AddedP50us.Median, "us")
		add("added latency p99 voucher call (paid request) minus free, same process", v.AddedP99us.Median, "us")
		add("cpu per call voucher / free, same process", ratio(v.CPUPerCallUs.Median, v.FreeCPUPerCallUs.Median), "x")
	}
	budget := func(name string, limit, measured float64, unit string) {
		r.Budgets = append(r.Budgets, Budget{Name: name, Limit: limit, Measured: measured, Unit: unit, Met: measured <= limit})
	}
	if cp != nil {
		budget("gateway CPU per paid non-streaming call (upstream excluded)", 120, cp.PerCallUs.Median, "us")
	}
	if bare != nil && paid != nil {
		budget("added latency p50, paid route, above the bare proxy", 60, paid.P50us.Median-bare.P50us.Median, "us")
		budget("added latency p99, paid route, above the bare proxy", 150, paid.P99us.Median-bare.P99us.Median, "us")
	}
	if s := r.stream(armFree); s != nil {
		budget("streaming: added time to first delta (p50)", 300, s.AddedTTFTp50.Median, "us")
		budget("streaming: added gap per event (p99)", 50, s.AddedGapP99us.Median, "us")
		budget("streaming: streams whose deltas were coalesced, split or lost", 0, float64(s.Mismatched), "count")
	}
	if v := r.Voucher; v != nil {
		budget("voucher call: added latency p50 over a free call, server side", 5000, v.AddedP50us.Median, "us")
		if v.Node != nil {
			budget("voucher call end to end from Node, official client, p50", 20000, v.Node.P50us, "us")
		}
	}
	if m := r.mem(armFree); m != nil && m.Open > 0 {
		budget("memory per open stream", 64, m.PerStreamKiB, "KiB")
	}
	r.derivePool()
	r.deriveWires()
	r.paidPathBudgets()
}

// paidPathBudgets checks the paid path against the free one, every figure
// from this run: CPU per call at the same offered rate (schedstat), and the
// highest rate held with p99 under the same limit.
func (r *Report) paidPathBudgets() {
	budget := func(name string, limit, measured float64, unit string, atLeast bool) {
		met := measured <= limit
		if atLeast {
			met = measured >= limit
		}
		r.Budgets = append(r.Budgets, Budget{Name: name, Limit: limit, Measured: measured, Unit: unit, AtLeast: atLeast, Met: met})
	}
	notMeasured := func(name string, limit float64, unit string, atLeast bool) {
		r.Budgets = append(r.Budgets, Budget{Name: name, Limit: limit, Unit: unit, AtLeast: atLeast, NotMeasured: true})
	}
	// A line whose figures this run did not take (-chain-only searches no
	// stand-in rates, -voucher-only has no chain arm) says so.
	cf, cp, ch := r.cpu(armFree), r.cpu(armPaid), r.chainArm(armChain)
	const cpuPaid, cpuChain, cpuVoucher = "CPU per call, paid (stand-in settler) minus free, same offered rate",
		"CPU per call, paid on the chain settler (2 s blocks) minus free (same process, alternating rounds), same offered rate",
		"CPU per call, voucher minus free in the same process"
	if cf != nil && cp != nil {
		budget(cpuPaid, 150, schedOr(cp.SchedPerCallUs, cp.PerCallUs)-schedOr(cf.SchedPerCallUs, cf.PerCallUs), "us", false)
	} else {
		notMeasured(cpuPaid, 150, "us", false)
	}
	switch {
	case ch != nil && ch.CPUPerCallUs.Median > 0 && ch.FreeCPUPerCallUs.Median > 0:
		// The chain arm's own free route, in rounds alternating with its paid ones.
		budget(cpuChain, 400, schedOr(ch.SchedPerCallUs, ch.CPUPerCallUs)-schedOr(ch.FreeSchedPerCallUs, ch.FreeCPUPerCallUs), "us", false)
	case cf != nil && ch != nil && ch.CPUPerCallUs.Median > 0:
		budget(cpuChain, 400, schedOr(ch.SchedPerCallUs, ch.CPUPerCallUs)-schedOr(cf.SchedPerCallUs, cf.PerCallUs), "us", false)
	default:
		notMeasured(cpuChain, 400, "us", false)
	}
	if v := r.Voucher; v != nil && v.CPUPerCallUs.Median > 0 {
		budget(cpuVoucher, 200, schedOr(v.SchedPerCallUs, v.CPUPerCallUs)-schedOr(v.FreeSchedPerCallUs, v.FreeCPUPerCallUs), "us", false)
	} else {
		notMeasured(cpuVoucher, 200, "us", false)
	}
	const ratePaid, rateChain = "highest rate with p99 < 20 ms, paid (stand-in) / free",
		"highest rate with p99 < 20 ms, paid on the chain settler / free"
	rf, rp := r.rate(armFree), r.rate(armPaid)
	if rf != nil && rp != nil && rf.HeldPerSec > 0 {
		budget(ratePaid, 0.8, rp.HeldPerSec/rf.HeldPerSec, "x", true)
	} else {
		notMeasured(ratePaid, 0.8, "x", true)
	}
	if rf != nil && ch != nil && ch.HeldPerSec >= 0 && rf.HeldPerSec > 0 {
		budget(rateChain, 0.8, ch.HeldPerSec/rf.HeldPerSec, "x", true)
	} else {
		notMeasured(rateChain, 0.8, "x", true)
	}
	const settlements = "settler throughput on anvil, 2 s blocks"
	if r.SettlerThroughput > 0 {
		budget(settlements, 2000, r.SettlerThroughput, "settlements/s", true)
	} else {
		notMeasured(settlements, 2000, "settlements/s", true)
	}
	// What the settler can reach is the block gas limit over the token's
	// gas per transfer (FiatToken v2.2: ~43k, so ~1,720/s at 150M gas per
	// 2 s block): the settler's own share is how close it comes to that.
	const ceiling = "settler throughput / the chain's ceiling at the measured gas per settlement"
	if s := r.Settler; s != nil && r.SettlerThroughput > 0 && s.MaxPerSecAtThisGas > 0 {
		budget(ceiling, 0.9, r.SettlerThroughput/s.MaxPerSecAtThisGas, "x", true)
	} else {
		notMeasured(ceiling, 0.9, "x", true)
	}
}

// writeTable prints the human table (also bench/results.md).
func (r *Report) writeTable(w io.Writer) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	sp := func(s Spread) string { return fmt.Sprintf("%.0f (%.0f..%.0f)", s.Median, s.Min, s.Max) }
	p("## farebox benchmark (%s)\n\n", r.Generated)
	p("Machine: %s, %d cores, %s, %s; load average before %s, after %s.\n\n", r.Machine.CPU, r.Machine.Cores, r.Machine.Kernel, r.Machine.Go, r.Machine.LoadBefore, r.Machine.LoadAfter)
	for _, n := range r.Notes {
		p("- %s\n", n)
	}
	p("\nMedian of %d round medians, (lowest..highest round). Times in microseconds.\n\n", r.Setup.Rounds)
	p("### Non-streaming, concurrency 1, zero-delay upstream\n\n")
	p("| arm | p50 | p99 | added p50 vs direct | added p99 vs direct | calls |\n|---|---|---|---|---|---|\n")
	for _, l := range r.Latency {
		p("| %s | %s | %s | %s | %s | %d |\n", l.Arm, sp(l.P50us), sp(l.P99us), sp(l.AddedP50us), sp(l.AddedP99us), l.Samples)
	}
	if r.SettleRoundTripUs.Rounds > 0 {
		p("\nSettlement stand-in round trip (inside the paid arm's figures): p50 %s µs.\n", sp(r.SettleRoundTripUs))
	}
	if len(r.Streams) > 0 {
		p("\n### Streaming, upstream paced at %.1f ms per event\n\n", r.Setup.PaceMs)
		p("| arm | first delta p50 | added p50 | added p99 | gap p50 | gap p99 | added gap p50 | added gap p99 | deltas/stream | mismatched streams | held deltas |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, s := range r.Streams {
			p("| %s | %s | %s | %s | %s | %s | %s | %s | %d | %d/%d | %d |\n", s.Arm, sp(s.TTFTp50us), sp(s.AddedTTFTp50), sp(s.AddedTTFTp99),
				sp(s.GapP50us), sp(s.GapP99us), sp(s.AddedGapP50us), sp(s.AddedGapP99us), s.DeltasPerStream, s.Mismatched, s.Streams, s.Held)
		}
	}
	if len(r.Streams) > 0 {
		p("\nHeld deltas arrived less than half a pace after the previous one; the direct arm's count is this machine's timer jitter, the floor to compare with.\n")
	}
	if len(r.CPU) > 0 {
		p("\n### Gateway CPU per call at %.0f calls/s offered\n\n", r.Setup.CPURatePerSec)
		p("| arm | µs per call (utime+stime) | µs per call (schedstat) | allocations per call | idle CPU ms/s | calls | RSS KiB after each round |\n|---|---|---|---|---|---|---|\n")
		for _, c := range r.CPU {
			allocs := "-"
			if c.AllocsPerCall != nil {
				allocs = sp(*c.AllocsPerCall)
			}
			p("| %s | %s | %s | %s | %.2f | %d | %v |\n", c.Arm, sp(c.PerCallUs), sp(c.SchedPerCallUs), allocs, c.IdleMsPerSec, c.Calls, c.RSSKiB)
		}
		p("\nAllocations are farebox's heap allocations (go_memstats_mallocs_total on its /metrics, one scrape's own taken out). Idle CPU is each process with no calls offered, before its loaded rounds, and is not in the per-call figures.\n")
	}
	if len(r.MaxRate) > 0 {
		p("\n### Highest rate held with p99 < %.0f ms and no errors\n\n| arm | calls/s | p99 there (µs) | next step |\n|---|---|---|---|\n", r.Setup.P99LimitMs)
		for _, m := range r.MaxRate {
			p("| %s | %.0f | %.0f | %s |\n", m.Arm, m.HeldPerSec, m.P99AtHeldUs, m.FailedAt)
		}
	}
	if len(r.Memory) > 0 {
		p("\n### Resident memory (VmRSS, KiB)\n\n| arm | idle | before hold | %d open | per open call | after load | what was held |\n|---|---|---|---|---|---|---|\n", r.Setup.OpenStreams)
		for _, m := range r.Memory {
			p("| %s | %d | %d | %d | %.1f | %d | %s |\n", m.Arm, m.IdleKiB, m.BeforeHoldKiB, m.HoldKiB, m.PerStreamKiB, m.AfterLoadKiB, m.HoldNote)
		}
	}
	r.writeChainTable(w)
	r.writeVoucherTable(w)
	r.writeSettlerTable(w)
	p("\n### Ratios\n\n| comparison | value |\n|---|---|\n")
	for _, x := range r.Ratios {
		if x.Unit == "x" {
			p("| %s | %.2fx |\n", x.Name, x.Value)
		} else {
			p("| %s | %.0f µs |\n", x.Name, x.Value)
		}
	}
	p("\n### Budgets\n\n| budget | limit | measured | met |\n|---|---|---|---|\n")
	for _, b := range r.Budgets {
		p("| %s | %s | %s | %s |\n", b.Name, b.limitText(), b.measuredText(), b.metText())
	}
	if r.Smoke {
		p("\nSMOKE RUN: a few calls per arm to prove the harness works; the figures mean nothing.\n")
	}
}

func (b Budget) limitText() string {
	op := "<="
	if b.AtLeast {
		op = ">="
	}
	if b.Unit == "x" {
		return fmt.Sprintf("%s %.2fx", op, b.Limit)
	}
	return fmt.Sprintf("%s %.0f %s", op, b.Limit, b.Unit)
}

func (b Budget) measuredText() string {
	switch {
	case b.NotMeasured:
		return "not measured"
	case b.Unit == "x":
		return fmt.Sprintf("%.2fx", b.Measured)
	}
	return fmt.Sprintf("%.1f %s", b.Measured, b.Unit)
}

func (b Budget) metText() string {
	switch {
	case b.NotMeasured:
		return "-"
	case b.Met:
		return "yes"
	}
	return "no"
}

func stamp() string { return time.Now().UTC().Format("2006-01-02 15:04 UTC") }

func oneLine(b []byte) string { return strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]) }
