package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// measure runs every phase in order and writes the outputs.
func (h *harness) measure(ctx context.Context) error {
	p, r := h.p, &h.report
	c := newClient()
	r.Setup = Setup{Rounds: p.rounds, CallsPerRound: p.calls, StreamsPerRound: p.streams, PaceMs: micros(p.pace) / 1000,
		CPURatePerSec: p.cpuRate, CPUSeconds: p.cpuDur.Seconds(), RateStepSeconds: p.stepDur.Seconds(), P99LimitMs: 20,
		OpenStreams: p.open, UpstreamKind: h.kind, Settlement: "facilitator settler -> loopback stand-in (no chain; see notes)",
		FareboxLogLevel: h.logLevel}
	gateways := h.arms[1:] // every arm with a process
	streaming := []*arm{}
	for _, a := range h.arms {
		if a.paced != "" {
			streaming = append(streaming, a)
		}
	}
	if err := h.warmUp(ctx, c, streaming); err != nil {
		return err
	}
	mem, err := h.idleMemory(gateways)
	if err != nil {
		return err
	}
	if h.chainOnly || h.voucherOnly {
		// One CPU round of the stand-in arms too, so every arm's CPU per
		// call is at the same offered rate in the same sitting.
		phase(fmt.Sprintf("cpu: 1 round x %.0f calls/s for %v per gateway", p.cpuRate, p.cpuDur))
		if r.CPU, err = measureCPU(ctx, c, withoutPool(gateways), 1, p.cpuRate, p.cpuDur); err != nil {
			return err
		}
		return h.finish(ctx, c)
	}
	if err := h.measureLoad(ctx, c, gateways, streaming); err != nil {
		return err
	}
	c.CloseIdleConnections()
	time.Sleep(time.Second)
	for _, a := range gateways {
		if m := mem[a.name]; m != nil {
			m.AfterLoadKiB, _ = rssKiB(a.proc.pid())
		}
	}
	if err := h.measureHeld(ctx, gateways, mem); err != nil {
		return err
	}
	return h.finish(ctx, c)
}

// phase prints the start of a phase with the machine's load, so a noisy
// sitting shows in the log.
func phase(name string) {
	fmt.Printf("%s  %s (load avg %s)\n", time.Now().Format("15:04:05"), name, loadavg())
}

// warmUp checks that every arm answers correctly, plain and streaming,
// before anything is timed.
func (h *harness) warmUp(ctx context.Context, c *http.Client, streaming []*arm) error {
	p := h.p
	if err := fillPools(h.arms, p.warm+2); err != nil {
		return err
	}
	for _, a := range h.arms {
		for i := 0; i < p.warm; i++ {
			if _, err := callOnce(ctx, c, a); err != nil {
				return fmt.Errorf("warm-up: %w%s", err, procTail(a))
			}
		}
	}
	for _, a := range streaming {
		if _, err := readStream(ctx, c, a, a.paced); err != nil {
			return fmt.Errorf("warm-up: %w%s", err, procTail(a))
		}
	}
	return nil
}

// idleMemory reads each gateway process's resident memory once warm, and
// adds its row to the report; the paid and pool arms share farebox-free's
// process and have none of their own.
func (h *harness) idleMemory(gateways []*arm) (map[string]*MemoryResult, error) {
	mem := map[string]*MemoryResult{}
	for _, a := range gateways {
		if a.pay != nil || sharesFarebox(a) {
			continue // same process as farebox-free
		}
		idle, err := rssKiB(a.proc.pid())
		if err != nil {
			return nil, err
		}
		m := &MemoryResult{Arm: a.name, IdleKiB: idle, HoldNote: a.holdNote}
		if a.name == armFree {
			m.Arm = "farebox"
		}
		mem[a.name] = m
		h.report.Memory = append(h.report.Memory, m)
	}
	return mem, nil
}

// measureLoad runs the timed phases: latency (and the settle round trip),
// streaming, CPU per call and the highest rate held.
func (h *harness) measureLoad(ctx context.Context, c *http.Client, gateways, streaming []*arm) error {
	p, r := h.p, &h.report
	cpuRounds := max(1, min(3, p.rounds))
	phase(fmt.Sprintf("latency: %d rounds x %d calls per arm, concurrency 1", p.rounds, p.calls))
	lat, err := measureLatency(ctx, c, h.arms, p.rounds, p.calls)
	if err != nil {
		return err
	}
	r.Latency = lat
	if r.SettleRoundTripUs, err = h.settleRoundTrip(ctx, c); err != nil {
		return err
	}

	phase(fmt.Sprintf("streaming: %d rounds x %d streams per arm, upstream paced at %v", p.rounds, p.streams, p.pace))
	if r.Streams, err = measureStreams(ctx, c, streaming, p.rounds, p.streams, p.pace); err != nil {
		return err
	}

	phase(fmt.Sprintf("cpu: %d rounds x %.0f calls/s for %v per gateway", cpuRounds, p.cpuRate, p.cpuDur))
	if r.CPU, err = measureCPU(ctx, c, gateways, cpuRounds, p.cpuRate, p.cpuDur); err != nil {
		return err
	}

	phase(fmt.Sprintf("max rate: steps %v calls/s, %v each, p99 < 20 ms", p.steps, p.stepDur))
	r.MaxRate, err = measureMaxRate(ctx, c, withoutPool(h.arms), p.steps, p.stepDur, 20*time.Millisecond)
	return err
}

// measureHeld reads each gateway's memory while p.open calls are held
// open on it, per open call above its memory just before.
func (h *harness) measureHeld(ctx context.Context, gateways []*arm, mem map[string]*MemoryResult) error {
	p := h.p
	phase(fmt.Sprintf("memory: %d open calls per gateway", p.open))
	for _, a := range gateways {
		m := mem[a.name]
		if m == nil || a.hold == "" {
			continue
		}
		before, during, err := holdOpen(ctx, a, p.open, 60*time.Second, h.arrivedFn(a.hold))
		if err != nil {
			return fmt.Errorf("memory phase: %w%s", err, procTail(a))
		}
		m.BeforeHoldKiB, m.HoldKiB, m.Open = before, during, p.open
		m.PerStreamKiB = float64(during-before) / float64(p.open)
		time.Sleep(500 * time.Millisecond)
	}
	return nil
}

// finish runs the real-settlement phase and writes the report.
func (h *harness) finish(ctx context.Context, c *http.Client) error {
	r := &h.report
	if err := h.measureChain(ctx, c); err != nil {
		return err
	}
	if err := h.measureVoucher(ctx, c); err != nil {
		return err
	}
	if err := h.measureSettler(ctx); err != nil {
		return err
	}
	if err := h.checkPoolFirst(); err != nil {
		return err
	}
	if late := h.arms[3].pay.lateCount(); late > 0 {
		h.note(fmt.Sprintf("%d payments had to be signed inside timed intervals (the pre-signed pool ran dry).", late))
	}
	r.Machine.LoadAfter = loadavg()
	if r.Machine.Cores <= 2 {
		h.note(fmt.Sprintf("This machine has %d cores shared with other work (load average %s before, %s after): the client, the fake upstream and the gateway under test share them, so absolute figures are pessimistic and ratios within one run are what to compare.", r.Machine.Cores, r.Machine.LoadBefore, r.Machine.LoadAfter))
	}
	r.derive()
	if err := writeOutputs(h.outDir, r); err != nil {
		return err
	}
	r.writeTable(os.Stdout)
	fmt.Printf("\nwrote %s/{latest.json,results.md,latency.svg}\n", h.outDir)
	if h.chainMismatch {
		return errChainMismatch
	}
	return nil
}

// arrivedFn waits until the fake upstream holds n open calls of model.
func (h *harness) arrivedFn(model string) func(context.Context, int) error {
	return func(ctx context.Context, n int) error {
		for {
			open := 0
			for _, rec := range h.fake.Records() {
				if rec.Model != model {
					continue
				}
				select {
				case <-rec.Done():
				default:
					open++
				}
			}
			if open >= n {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%d of %d open at the upstream: %w", open, n, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
}

// settleRoundTrip times a client's POST /settle to the stand-in with a
// body shaped like farebox's, to show what of the paid arm is the stand-in.
func (h *harness) settleRoundTrip(ctx context.Context, c *http.Client) (Spread, error) {
	body := []byte(`{"x402Version":2,"paymentPayload":{"x402Version":2,"accepted":{"scheme":"exact","network":"eip155:1337"},"payload":{"signature":"0x` +
		strings.Repeat("ab", 65) + `","authorization":{"from":"0x000000000000000000000000000000000000dEaD","to":"0x000000000000000000000000000000000000bEEF","value":"1000","validAfter":"0","validBefore":"9999999999","nonce":"0x` +
		strings.Repeat("11", 32) + `"}}},"paymentRequirements":{"scheme":"exact","network":"eip155:1337","amount":"1000"}}`)
	var p50 []float64
	for r := 0; r < h.p.rounds; r++ {
		var s []time.Duration
		for i := 0; i < h.p.calls; i++ {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.standIn.URL()+"/settle", bytes.NewReader(body))
			if err != nil {
				return Spread{}, err
			}
			req.Header.Set("Content-Type", "application/json")
			t0 := time.Now()
			res, err := c.Do(req)
			if err != nil {
				return Spread{}, err
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			s = append(s, time.Since(t0))
			if res.StatusCode != http.StatusOK {
				return Spread{}, fmt.Errorf("settle stand-in: HTTP %d", res.StatusCode)
			}
		}
		p50 = append(p50, micros(quantile(sortedCopy(s), .5)))
	}
	return spreadOf(p50), nil
}

func procTail(a *arm) string {
	if a.proc == nil {
		return ""
	}
	return "\n--- " + a.proc.name + " log (end) ---\n" + a.proc.tail()
}

// withoutPool leaves the pool and wire arms out of a phase that measures
// processes rather than routes (they share farebox-free's process).
func withoutPool(arms []*arm) []*arm {
	var out []*arm
	for _, a := range arms {
		if !sharesFarebox(a) {
			out = append(out, a)
		}
	}
	return out
}
