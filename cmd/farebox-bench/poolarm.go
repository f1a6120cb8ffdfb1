package main

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/farebox/farebox/internal/testkit/fakeupstream"
)

// armPool is farebox-free's model served by a pool of two suppliers
// (ordered, the first answers), in the same farebox process: what a pool
// adds over a single upstream on the happy path.
const armPool = "farebox-pool"

// poolSecondModel is the upstream model of the pool's second supplier; the
// fake upstream must never see it, or the first supplier did not answer.
const poolSecondModel = "anything+pool-second"

// poolModelConfig is the YAML of the pool model: two suppliers in front of
// the same fake upstream as bench-free, routing ordered.
func (h *harness) poolModelConfig(b *bytes.Buffer) {
	supplier := func(name, upstream string) {
		fmt.Fprintf(b, "      - {name: %s, upstream: %s, upstream_model: %q, base_url: %q, api_key_env: FAREBOX_BENCH_UPSTREAM_KEY}\n",
			name, h.kind, upstream, h.fake.URL())
	}
	fmt.Fprintf(b, "  - name: bench-pool\n    price: \"0\"\n    routing: {strategy: ordered}\n    suppliers:\n")
	supplier("first", "anything")
	supplier("second", poolSecondModel)
}

// poolArm is the pool model's arm on the farebox at base.
func poolArm(base string, fp *process) *arm {
	return &arm{name: armPool, url: base + "/v1/responses", model: "bench-pool", proc: fp}
}

// checkPoolFirst fails when the pool's second supplier was ever called:
// the arm measures the happy path, where the first supplier answers.
func (h *harness) checkPoolFirst() error {
	for _, rec := range h.fake.Records() {
		if rec.Model == poolSecondModel {
			return fmt.Errorf("%s: the second supplier was called: the first one failed", armPool)
		}
	}
	return nil
}

// startPoolOnly brings up only the fake upstream, the stand-in (the config
// names it) and farebox: the arms direct, farebox-free and farebox-pool.
func (h *harness) startPoolOnly(ctx context.Context) error {
	var err error
	if h.fake, err = fakeupstream.Start(fakeupstream.Options{KeepRecords: 4096}); err != nil {
		return err
	}
	if h.standIn, err = startSettleStandIn(); err != nil {
		return err
	}
	fp, base, err := h.startFarebox(ctx)
	if err != nil {
		return err
	}
	h.arms = append(h.arms,
		&arm{name: armDirect, url: h.fake.URL() + "/responses", model: "anything"},
		&arm{name: armFree, url: base + "/v1/responses", model: "bench-free", proc: fp},
		poolArm(base, fp))
	h.note("Pool-only run (-pool-only): " + armPool + " (two suppliers, routing ordered, the first answers) against " + armFree + " (the same upstream alone), same farebox process, calls interleaved.")
	return nil
}

// measurePoolOnly times the pool arm against the single upstream:
// latency at concurrency 1 interleaved call by call, then CPU per call at
// the same offered rate.
func (h *harness) measurePoolOnly(ctx context.Context) error {
	p, r := h.p, &h.report
	c := newClient()
	r.Setup = Setup{Rounds: p.rounds, CallsPerRound: p.calls, CPURatePerSec: p.cpuRate, CPUSeconds: p.cpuDur.Seconds(),
		UpstreamKind: h.kind, FareboxLogLevel: h.logLevel}
	for _, a := range h.arms {
		for i := 0; i < p.warm; i++ {
			if _, err := callOnce(ctx, c, a); err != nil {
				return fmt.Errorf("warm-up: %w%s", err, procTail(a))
			}
		}
	}
	phase(fmt.Sprintf("latency: %d rounds x %d calls per arm, concurrency 1", p.rounds, p.calls))
	var err error
	if r.Latency, err = measureLatency(ctx, c, h.arms, p.rounds, p.calls); err != nil {
		return err
	}
	cpuRounds := max(1, min(3, p.rounds))
	phase(fmt.Sprintf("cpu: %d rounds x %.0f calls/s for %v per arm", cpuRounds, p.cpuRate, p.cpuDur))
	if r.CPU, err = measureCPU(ctx, c, h.arms[1:], cpuRounds, p.cpuRate, p.cpuDur); err != nil {
		return err
	}
	if err := h.checkPoolFirst(); err != nil {
		return err
	}
	r.Machine.LoadAfter = loadavg()
	r.derive()
	if err := writeOutputs(h.outDir, r); err != nil {
		return err
	}
	r.writeTable(os.Stdout)
	fmt.Printf("\nwrote %s/{latest.json,results.md,latency.svg}\n", h.outDir)
	return nil
}

// derivePool adds the pool's ratios and budget against the single upstream.
func (r *Report) derivePool() {
	pl, free := r.lat(armPool), r.lat(armFree)
	if pl == nil || free == nil {
		return
	}
	r.Ratios = append(r.Ratios,
		Ratio{Name: "latency p50 farebox-pool / farebox-free (two suppliers, first answers, vs one upstream)", Value: ratio(pl.P50us.Median, free.P50us.Median), Unit: "x"},
		Ratio{Name: "latency p99 farebox-pool / farebox-free", Value: ratio(pl.P99us.Median, free.P99us.Median), Unit: "x"},
		Ratio{Name: "added latency p50 farebox-pool minus farebox-free", Value: pl.P50us.Median - free.P50us.Median, Unit: "us"})
	cpl, cf := r.cpu(armPool), r.cpu(armFree)
	if cpl != nil && cf != nil {
		r.Ratios = append(r.Ratios, Ratio{Name: "cpu per call farebox-pool / farebox-free", Value: ratio(schedOr(cpl.SchedPerCallUs, cpl.PerCallUs), schedOr(cf.SchedPerCallUs, cf.PerCallUs)), Unit: "x"})
	}
	// Within noise of a single upstream: the pool's pick and bookkeeping
	// are a few microseconds against a call of several hundred.
	v := ratio(pl.P50us.Median, free.P50us.Median)
	r.Budgets = append(r.Budgets, Budget{Name: "latency p50, pool of two (first answers) / the same upstream alone", Limit: 1.10, Measured: v, Unit: "x", Met: v <= 1.10})
}
