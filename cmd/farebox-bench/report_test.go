package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestPaidPathBudgets checks the paid-path lines are computed from the
// run's own figures and judged in the right direction.
func TestPaidPathBudgets(t *testing.T) {
	r := &Report{
		CPU: []*CPUResult{
			{Arm: armFree, PerCallUs: Spread{Median: 900}, SchedPerCallUs: Spread{Median: 600}},
			{Arm: armPaid, PerCallUs: Spread{Median: 700}, SchedPerCallUs: Spread{Median: 760}},
		},
		MaxRate:        []*RateResult{{Arm: armFree, HeldPerSec: 1000}, {Arm: armPaid, HeldPerSec: 750}},
		RealSettlement: []*ChainResult{{Arm: armChain, CPUPerCallUs: Spread{Median: 1200}, HeldPerSec: 800}},
		Voucher:        &VoucherResult{CPUPerCallUs: Spread{Median: 1000}, FreeCPUPerCallUs: Spread{Median: 700}},
	}
	r.derive()
	got := map[string]Budget{}
	for _, b := range r.Budgets {
		got[b.Name] = b
	}
	want := []struct {
		prefix   string
		measured float64
		met      bool
	}{
		{"CPU per call, paid (stand-in", 160, false},    // schedstat: 760 - 600
		{"CPU per call, paid on the chain", 600, false}, // no schedstat for the chain arm: 1200 - 600
		{"CPU per call, voucher", 300, false},
		{"highest rate with p99 < 20 ms, paid (stand-in)", 0.75, false},
		{"highest rate with p99 < 20 ms, paid on the chain", 0.8, true},
	}
	for _, w := range want {
		var b *Budget
		for name, x := range got {
			if strings.HasPrefix(name, w.prefix) {
				b = &x
			}
		}
		if b == nil || b.Measured != w.measured || b.Met != w.met {
			t.Errorf("%s: got %+v, want measured %v met %v", w.prefix, b, w.measured, w.met)
		}
	}
	var table bytes.Buffer
	r.writeTable(&table)
	for _, line := range []string{
		"| settler throughput on anvil, 2 s blocks | >= 2000 settlements/s | not measured | - |",
		"| settler throughput / the chain's ceiling at the measured gas per settlement | >= 0.90x | not measured | - |",
		"| highest rate with p99 < 20 ms, paid on the chain settler / free | >= 0.80x | 0.80x | yes |",
	} {
		if !strings.Contains(table.String(), line) {
			t.Errorf("table lacks %q:\n%s", line, table.String())
		}
	}

	// A -chain-only run searches no stand-in rates: those lines say so.
	r.Budgets, r.Ratios, r.SettlerThroughput, r.MaxRate = nil, nil, 2100, nil
	r.Settler = &SettlerResult{MaxPerSecAtThisGas: 2500}
	r.derive()
	var table2 bytes.Buffer
	r.writeTable(&table2)
	for _, line := range []string{
		"| settler throughput on anvil, 2 s blocks | >= 2000 settlements/s | 2100.0 settlements/s | yes |",
		"| highest rate with p99 < 20 ms, paid (stand-in) / free | >= 0.80x | not measured | - |",
		"| CPU per call, paid (stand-in settler) minus free, same offered rate | <= 150 us | 160.0 us | no |",
		"| settler throughput / the chain's ceiling at the measured gas per settlement | >= 0.90x | 0.84x | no |",
	} {
		if !strings.Contains(table2.String(), line) {
			t.Errorf("table lacks %q:\n%s", line, table2.String())
		}
	}
}

// The chain arm's CPU line takes its own process's free route when the
// run measured it (rounds alternating with the paid ones), not the main
// free arm measured minutes earlier.
func TestChainCPUBudgetUsesItsOwnFreeRoute(t *testing.T) {
	r := &Report{
		CPU: []*CPUResult{{Arm: armFree, PerCallUs: Spread{Median: 500}, SchedPerCallUs: Spread{Median: 500}}},
		RealSettlement: []*ChainResult{{Arm: armChain, CPUPerCallUs: Spread{Median: 1900}, SchedPerCallUs: Spread{Median: 1880},
			FreeCPUPerCallUs: Spread{Median: 900}, FreeSchedPerCallUs: Spread{Median: 880}}},
	}
	r.derive()
	for _, b := range r.Budgets {
		if strings.HasPrefix(b.Name, "CPU per call, paid on the chain") {
			if b.Measured != 1000 || b.Met {
				t.Fatalf("%+v: want 1880 - 880 = 1000, not met", b)
			}
			return
		}
	}
	t.Fatal("no chain CPU line")
}

// TestPoolRatios checks the pool arm is judged against farebox-free from
// the same run, and that a run without the pool arm has no pool lines.
func TestPoolRatios(t *testing.T) {
	r := &Report{
		Latency: []*LatencyResult{
			{Arm: armFree, P50us: Spread{Median: 400}, P99us: Spread{Median: 1000}},
			{Arm: armPool, P50us: Spread{Median: 460}, P99us: Spread{Median: 900}},
		},
		CPU: []*CPUResult{
			{Arm: armFree, SchedPerCallUs: Spread{Median: 500}},
			{Arm: armPool, SchedPerCallUs: Spread{Median: 550}},
		},
	}
	r.derive()
	ratios := map[string]float64{}
	for _, x := range r.Ratios {
		ratios[x.Name] = x.Value
	}
	for name, want := range map[string]float64{
		"latency p50 farebox-pool / farebox-free (two suppliers, first answers, vs one upstream)": 1.15,
		"latency p99 farebox-pool / farebox-free":                                                 0.9,
		"added latency p50 farebox-pool minus farebox-free":                                       60,
		"cpu per call farebox-pool / farebox-free":                                                1.1,
	} {
		if got, ok := ratios[name]; !ok || got < want-1e-9 || got > want+1e-9 {
			t.Errorf("%s = %v (present %v), want %v", name, got, ok, want)
		}
	}
	var b *Budget
	for i := range r.Budgets {
		if strings.HasPrefix(r.Budgets[i].Name, "latency p50, pool of two") {
			b = &r.Budgets[i]
		}
	}
	if b == nil || b.Measured != 1.15 || b.Met {
		t.Errorf("pool budget: got %+v, want measured 1.15 and not met (limit 1.10x)", b)
	}

	r = &Report{Latency: []*LatencyResult{{Arm: armFree, P50us: Spread{Median: 400}}}}
	r.derive()
	for _, x := range r.Ratios {
		if strings.Contains(x.Name, armPool) {
			t.Errorf("a run without the pool arm reports %q", x.Name)
		}
	}
}
