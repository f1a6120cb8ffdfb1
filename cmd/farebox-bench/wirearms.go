package main

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/farebox/farebox/internal/testkit/fakeanthropic"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
)

// The client-wire arms and the Anthropic-upstream arm: the same farebox
// process as farebox-free, so each is a ratio against it in one sitting.
const (
	// armChat is farebox-free's model asked on POST /v1/chat/completions.
	armChat = "farebox-chat"
	// armMessages is farebox-free's model asked on POST /v1/messages.
	armMessages = "farebox-messages"
	// armAnthropic is a Responses call to an `upstream: anthropic` model
	// in front of the fake Anthropic server at zero delay, beside
	// farebox-free's Responses upstream.
	armAnthropic = "farebox-anthropic"
)

// wireLimit is the most a wire or upstream kind may cost over the
// Responses path, in CPU per call and latency p50.
const wireLimit = 1.15

// chatBody and messagesBody are the wires' forms of the Responses arm's
// request ("Say hello.").
func chatBody(model string, stream bool) string {
	s := ""
	if stream {
		s = `,"stream":true`
	}
	return `{"model":"` + model + `","messages":[{"role":"user","content":"Say hello."}]` + s + `}`
}

func messagesBody(model string, stream bool) string {
	s := ""
	if stream {
		s = `,"stream":true`
	}
	return `{"model":"` + model + `","max_tokens":1024,"messages":[{"role":"user","content":"Say hello."}]` + s + `}`
}

// wireArms are the three arms on the farebox at base.
func wireArms(base string, fp *process) []*arm {
	return []*arm{
		{name: armChat, url: base + "/v1/chat/completions", model: "bench-free", proc: fp, body: chatBody},
		{name: armMessages, url: base + "/v1/messages", model: "bench-free", proc: fp, body: messagesBody},
		{name: armAnthropic, url: base + "/v1/responses", model: "bench-anthropic", proc: fp, expect: fakeanthropic.DefaultText},
	}
}

// sharesFarebox reports an arm served by farebox-free's process.
func sharesFarebox(a *arm) bool {
	switch a.name {
	case armPool, armChat, armMessages, armAnthropic:
		return true
	}
	return false
}

// anthropicModelConfig is the YAML of the Anthropic-upstream model.
func (h *harness) anthropicModelConfig(b *bytes.Buffer) {
	if h.fakeAnthropic == nil {
		return
	}
	fmt.Fprintf(b, "  - name: bench-anthropic\n    upstream: anthropic\n    upstream_model: anything\n    base_url: %q\n    api_key_env: FAREBOX_BENCH_UPSTREAM_KEY\n    price: \"0\"\n",
		h.fakeAnthropic.URL())
}

// startWiresOnly brings up the fake upstreams, the stand-in (the config
// names it) and farebox: direct, farebox-free and the wire arms.
func (h *harness) startWiresOnly(ctx context.Context) error {
	var err error
	if h.fake, err = fakeupstream.Start(fakeupstream.Options{KeepRecords: 4096}); err != nil {
		return err
	}
	h.fakeAnthropic = fakeanthropic.Start(fakeanthropic.Options{})
	if h.standIn, err = startSettleStandIn(); err != nil {
		return err
	}
	fp, base, err := h.startFarebox(ctx)
	if err != nil {
		return err
	}
	h.arms = append(h.arms,
		&arm{name: armDirect, url: h.fake.URL() + "/responses", model: "anything"},
		&arm{name: armFree, url: base + "/v1/responses", model: "bench-free", proc: fp})
	h.arms = append(h.arms, wireArms(base, fp)...)
	h.note("Wires-only run (-wires-only): " + armChat + " and " + armMessages + " (farebox-free's model on Chat Completions and Anthropic Messages) and " +
		armAnthropic + " (Responses to an anthropic upstream: the fake Anthropic server, zero delay) against " + armFree +
		" (Responses to the Responses fake), same farebox process, calls interleaved; non-streaming.")
	return nil
}

// measureWiresOnly times the wire arms against farebox-free: latency at
// concurrency 1 interleaved call by call, then CPU per call at the same
// offered rate.
func (h *harness) measureWiresOnly(ctx context.Context) error {
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
	r.Machine.LoadAfter = loadavg()
	r.derive()
	if err := writeOutputs(h.outDir, r); err != nil {
		return err
	}
	r.writeTable(os.Stdout)
	fmt.Printf("\nwrote %s/{latest.json,results.md,latency.svg}\n", h.outDir)
	return nil
}

// deriveWires adds each wire arm's ratios and budgets against
// farebox-free, when the run has them.
func (r *Report) deriveWires() {
	free, cf := r.lat(armFree), r.cpu(armFree)
	if free == nil {
		return
	}
	for _, w := range []struct{ arm, what string }{
		{armChat, "Chat Completions wire / Responses wire"},
		{armMessages, "Anthropic Messages wire / Responses wire"},
		{armAnthropic, "anthropic upstream / Responses upstream"},
	} {
		l := r.lat(w.arm)
		if l == nil {
			continue
		}
		v := ratio(l.P50us.Median, free.P50us.Median)
		r.Ratios = append(r.Ratios, Ratio{Name: "latency p50 " + w.arm + " / farebox-free (" + w.what + ")", Value: v, Unit: "x"})
		r.Budgets = append(r.Budgets, Budget{Name: "latency p50, " + w.what, Limit: wireLimit, Measured: v, Unit: "x", Met: v <= wireLimit})
		if cw := r.cpu(w.arm); cw != nil && cf != nil {
			v := ratio(schedOr(cw.SchedPerCallUs, cw.PerCallUs), schedOr(cf.SchedPerCallUs, cf.PerCallUs))
			r.Ratios = append(r.Ratios, Ratio{Name: "cpu per call " + w.arm + " / farebox-free", Value: v, Unit: "x"})
			r.Budgets = append(r.Budgets, Budget{Name: "cpu per call, " + w.what, Limit: wireLimit, Measured: v, Unit: "x", Met: v <= wireLimit})
		}
	}
}
