// Command farebox-bench measures farebox against the direct path, a bare
// reverse proxy and a peer gateway (Portkey), all in front of the same fake
// upstream on loopback, plus paid fareboxes that settle real USDC on anvil
// (the chain judges every balance), and writes a table (bench/results.md), the same
// figures as JSON (bench/latest.json) and a latency chart
// (bench/latency.svg). Run it from the repository root:
//
//	go run ./cmd/farebox-bench          # the full run (a few minutes)
//	go run ./cmd/farebox-bench -smoke   # under a minute (starts anvil); CI's check that it still works
//	go run ./cmd/farebox-bench -soak 10m  # one paid farebox on anvil for 10 minutes: is it flat? (bench/soak.md)
//	go run ./cmd/farebox-bench -pool-only -rounds 3  # a two-supplier pool against the same upstream alone (ratios)
//	go run ./cmd/farebox-bench -settler-only  # the chain settler alone: settlements/s on anvil, 2 s blocks, 150M gas
//
// farebox runs as its own process (built with go build ./cmd/farebox) so
// its CPU time and memory are read from /proc apart from the harness's.
// Smoke mode never fails on a timing, only when an arm does not work.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// params are the sizes of one run.
type params struct {
	rounds, calls, warm, streams int
	pace                         time.Duration
	cpuRate                      float64
	cpuDur                       time.Duration
	steps                        []float64
	stepDur                      time.Duration
	open                         int
}

var (
	fullParams = params{rounds: 5, calls: 400, warm: 100, streams: 20, pace: 5 * time.Millisecond,
		cpuRate: 300, cpuDur: 4 * time.Second, steps: []float64{100, 250, 500, 1000, 1500, 2000, 3000, 4000},
		stepDur: 2 * time.Second, open: 1000}
	smokeParams = params{rounds: 2, calls: 10, warm: 3, streams: 2, pace: 2 * time.Millisecond,
		cpuRate: 50, cpuDur: 400 * time.Millisecond, steps: []float64{50, 100}, stepDur: 300 * time.Millisecond, open: 20}
)

func main() {
	if len(os.Args) == 4 && os.Args[1] == "-serve-bare-proxy" {
		if err := serveBareProxy(os.Args[2], os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, "bare proxy:", err)
			os.Exit(1)
		}
		return
	}
	smoke := flag.Bool("smoke", false, "run every phase with a few calls (under a minute); never fails on timing")
	out := flag.String("out", "", "directory for latest.json, results.md, latency.svg (default bench/, or a temp dir with -smoke)")
	fareboxBin := flag.String("farebox", "", "use this farebox binary instead of building ./cmd/farebox")
	withPortkey := flag.Bool("portkey", true, "measure Portkey too (installed with npm ci into bench/portkey when missing)")
	upstreamKind := flag.String("upstream-kind", "openai", "farebox upstream kind in front of the fake upstream: openai or chat")
	logLevel := flag.String("farebox-log-level", "info", "farebox's log level (info logs one access line per call, as in production)")
	rounds := flag.Int("rounds", 0, "rounds (default 5, smoke 2)")
	soakFor := flag.Duration("soak", 0, "instead of the benchmark, soak one paid farebox settling on anvil for this long and write bench/soak.md (not run by CI)")
	soakRate := flag.Float64("soak-rate", 50, "paid calls/s offered during -soak")
	chainSimulate := flag.String("chain-simulate", "payer", "payments.chain.simulate of the farebox-paid-chain arm: payer (a payer's first payment and again after one fails), true (every payment) or false; the instant-mining arm keeps the default (every payment)")
	chainOnly := flag.Bool("chain-only", false, "measure only farebox-paid-chain (2 s blocks) against farebox-free, with more latency calls (5 rounds x 40); output to a temp dir unless -out")
	voucherOnly := flag.Bool("voucher-only", false, "measure only the batch-settlement voucher arm (2 s blocks) against farebox-free; output to a temp dir unless -out")
	poolOnly := flag.Bool("pool-only", false, "measure only farebox-pool (two suppliers, ordered, the first answers) against farebox-free (the same upstream alone) in one farebox; output to a temp dir unless -out")
	wiresOnly := flag.Bool("wires-only", false, "measure only farebox-chat, farebox-messages (the client wires) and farebox-anthropic (an anthropic upstream, fake at zero delay) against farebox-free in one farebox; output to a temp dir unless -out")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of every farebox process during each CPU phase into this directory (a full run writes them to <out>/profiles unless set; -smoke, -chain-only and -voucher-only only when set)")
	nodeVoucher := flag.Bool("node-voucher", true, "also time the official @x402/evm batch-settlement client (Node; bench/voucher-node is a workspace of the root package.json, installed by npm ci at the root)")
	flag.Parse()

	if *soakFor > 0 {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		h := &harness{fareboxBin: *fareboxBin, kind: *upstreamKind, logLevel: *logLevel, outDir: *out}
		err := h.soak(ctx, *soakFor, *soakRate)
		h.close()
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "farebox-bench -soak:", err)
			os.Exit(1)
		}
		return
	}

	if *settlerOnly {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := runSettlerOnly(ctx, *smoke, *out)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "farebox-bench -settler-only:", err)
			os.Exit(1)
		}
		return
	}

	p := fullParams
	if *smoke {
		p = smokeParams
	}
	if *rounds > 0 {
		p.rounds = *rounds
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	h := &harness{p: p, smoke: *smoke, chainOnly: *chainOnly, chainSimulate: *chainSimulate, voucherOnly: *voucherOnly, poolOnly: *poolOnly, wiresOnly: *wiresOnly, nodeVoucher: *nodeVoucher, profDir: *cpuProfile, fareboxBin: *fareboxBin, portkey: *withPortkey, kind: *upstreamKind, logLevel: *logLevel, outDir: *out}
	err := h.run(ctx)
	h.close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "farebox-bench:", err)
		os.Exit(1)
	}
}

// repoRoot finds the farebox module root from the working directory up.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && strings.Contains(string(b), "module github.com/farebox/farebox\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run farebox-bench inside the farebox repository")
		}
		dir = parent
	}
}

// writeOutputs writes latest.json, results.md and latency.svg into dir.
func writeOutputs(dir string, r *Report) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "latest.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	var md strings.Builder
	r.writeTable(&md)
	if err := os.WriteFile(filepath.Join(dir, "results.md"), []byte(md.String()), 0o644); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "latency.svg"))
	if err != nil {
		return err
	}
	note := fmt.Sprintf("%s, %d cores, load avg %s; %d rounds x %d calls per arm; %s", r.Machine.CPU, r.Machine.Cores, r.Machine.LoadBefore, r.Setup.Rounds, r.Setup.CallsPerRound, r.Generated)
	if err := writeLatencySVG(f, r.Latency, "Non-streaming latency, concurrency 1, zero-delay upstream", note); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// machine describes the box the run happened on.
func machine(ctx context.Context) Machine {
	m := Machine{Cores: runtime.NumCPU(), Go: runtime.Version(), LoadBefore: loadavg()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "model name"); ok {
				m.CPU = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(b))
	}
	if b, err := run(ctx, 5*time.Second, "", "node", "--version"); err == nil {
		m.Node = oneLine(b)
	}
	return m
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
