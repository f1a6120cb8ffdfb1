package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/farebox/farebox/internal/testkit/fakeanthropic"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
)

// settlementNote is printed with every run: how the paid arm settles.
const settlementNote = "farebox-paid is a STAND-IN arm for settlement: pre-signed EIP-3009 authorizations (unique nonces, signed outside the timed intervals) on a custom network (eip155:1337); farebox verifies each locally and records it in the settlement engine's in-memory journal (which refuses a second use of a nonce), then settles after the answer through its facilitator settler pointed at a stand-in: a loopback HTTP server in the harness that answers POST /settle with success WITHOUT verifying or settling anything (it isolates farebox's own work from a facilitator's or a chain's). The stand-in's own round trip is measured separately (settle round trip) and is inside the paid arm's latency. The farebox-paid-chain* and farebox-paid-facilitator-real arms settle for real on anvil (see Real settlement)."

// harness owns every process and server of one run.
type harness struct {
	p                      params
	smoke, portkey         bool
	chainOnly              bool   // only the 2 s chain arm's phase
	chainSimulate          string // payments.chain.simulate of the 2 s chain arm
	voucherOnly            bool   // only the voucher arm's phase
	poolOnly               bool   // only the pool arm against the single upstream
	nodeVoucher            bool   // also time the official Node client's voucher calls
	voucher                *voucherArm
	fareboxBin, kind       string
	logLevel, outDir       string
	profDir                string // CPU profiles of the farebox processes ("" = none)
	root, tmp              string
	fake                   *fakeupstream.Server
	fakeAnthropic          *fakeanthropic.Server // the anthropic upstream arm's; nil without it
	wiresOnly              bool                  // only the wire arms against farebox-free
	standIn                *settleStandIn
	procs                  []*process
	arms                   []*arm
	report                 Report
	holdModel, portkeyHold string
	chain                  *chainRig // the real-settlement arms and their chains
	chainMismatch          bool      // the chain's balances disagreed with the calls served
}

func (h *harness) close() {
	for _, p := range h.procs {
		p.stop()
	}
	if h.fake != nil {
		h.fake.Close()
	}
	if h.fakeAnthropic != nil {
		h.fakeAnthropic.Close()
	}
	if h.standIn != nil {
		h.standIn.close()
	}
	if h.chain != nil {
		h.chain.close()
	}
	// A smoke run's logs, chain data and report are a check's by-products
	// (over 100 MB): nothing of it stays behind in the temp folder.
	if h.smoke && h.tmp != "" {
		_ = os.RemoveAll(h.tmp)
	}
}

func (h *harness) run(ctx context.Context) error {
	var err error
	if h.root, err = repoRoot(); err != nil {
		return err
	}
	if h.tmp, err = os.MkdirTemp("", "farebox-bench-"); err != nil {
		return err
	}
	if h.outDir == "" {
		h.outDir = filepath.Join(h.root, "bench")
		if h.smoke || h.chainOnly || h.voucherOnly || h.poolOnly || h.wiresOnly {
			h.outDir = filepath.Join(h.tmp, "out")
		} else if h.profDir == "" {
			h.profDir = filepath.Join(h.outDir, "profiles")
		}
	}
	h.report = Report{Generated: stamp(), Smoke: h.smoke, Command: "go run ./cmd/farebox-bench " + strings.Join(os.Args[1:], " "), Machine: machine(ctx)}
	if h.poolOnly {
		if err := h.startPoolOnly(ctx); err != nil {
			return err
		}
		return h.measurePoolOnly(ctx)
	}
	if h.wiresOnly {
		if err := h.startWiresOnly(ctx); err != nil {
			return err
		}
		return h.measureWiresOnly(ctx)
	}
	h.report.Notes = append(h.report.Notes, settlementNote)
	if err := h.start(ctx); err != nil {
		return err
	}
	fmt.Printf("logs of the gateway processes: %s\n", h.tmp)
	return h.measure(ctx)
}

// start brings up the fake upstream, the stand-in, farebox, the bare proxy
// and Portkey, and builds the arms.
func (h *harness) start(ctx context.Context) error {
	var err error
	if h.fake, err = fakeupstream.Start(fakeupstream.Options{KeepRecords: 4096}); err != nil {
		return err
	}
	h.fakeAnthropic = fakeanthropic.Start(fakeanthropic.Options{})
	if h.standIn, err = startSettleStandIn(); err != nil {
		return err
	}
	paceModel := "anything+gap=" + h.p.pace.String()
	h.holdModel = "anything+gap=1500ms"
	h.portkeyHold = "anything+ttfb=20s"
	direct := &arm{name: armDirect, url: h.fake.URL() + "/responses", model: "anything", paced: paceModel}
	h.arms = append(h.arms, direct)

	// The bare proxy: this same binary in its serving mode.
	self, err := os.Executable()
	if err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	bareBase := "http://127.0.0.1:" + strconv.Itoa(port)
	bp, err := startProcess("bare-proxy", h.tmp, nil, self, "-serve-bare-proxy", "127.0.0.1:"+strconv.Itoa(port), strings.TrimSuffix(h.fake.URL(), "/v1"))
	if err != nil {
		return err
	}
	h.procs = append(h.procs, bp)
	if err := bp.waitHTTP(bareBase+"/v1/models", 20*time.Second); err != nil {
		return err
	}
	h.arms = append(h.arms, &arm{name: armBare, url: bareBase + "/v1/responses", model: "anything", paced: paceModel,
		hold: h.holdModel, proc: bp, holdNote: "streams (upstream paced at 1.5 s)"})

	// farebox, built from this repository.
	fp, base, err := h.startFarebox(ctx)
	if err != nil {
		return err
	}
	h.arms = append(h.arms,
		&arm{name: armFree, url: base + "/v1/responses", model: "bench-free", paced: "bench-free-paced", hold: "bench-free-hold", proc: fp,
			holdNote: "streams (upstream paced at 1.5 s)"})
	c := newClient()
	pool, err := newPayPool(ctx, c, base+"/v1/responses", "bench-paid", benchNetwork)
	if err != nil {
		return fmt.Errorf("paid route: %w\n%s", err, fp.tail())
	}
	h.arms = append(h.arms, &arm{name: armPaid, url: base + "/v1/responses", model: "bench-paid", paced: "bench-paid-paced", proc: fp, pay: pool},
		poolArm(base, fp))
	h.arms = append(h.arms, wireArms(base, fp)...)
	if err := h.startChain(ctx, h.fareboxBin); err != nil {
		return fmt.Errorf("real-settlement arms: %w", err)
	}

	if !h.portkey || h.chainOnly || h.voucherOnly {
		h.note("Portkey arm skipped: -portkey=false, -chain-only or -voucher-only.")
		return nil
	}
	script, err := ensurePortkey(ctx, h.root)
	if err != nil {
		h.note("Portkey arm SKIPPED: " + err.Error())
		return nil
	}
	pk, pkBase, err := startPortkey(script, h.tmp)
	if err != nil {
		h.note("Portkey arm SKIPPED: it did not start: " + err.Error())
		return nil
	}
	h.procs = append(h.procs, pk)
	h.arms = append(h.arms, &arm{name: armPortkey, url: pkBase + "/v1/responses", model: "anything", hold: h.portkeyHold, proc: pk,
		headers: http.Header{
			"X-Portkey-Provider":    {"openai"},
			"X-Portkey-Custom-Host": {h.fake.URL()},
			"Authorization":         {"Bearer sk-bench-unused"},
		},
		holdNote: "non-streaming calls held open by the upstream (streaming through Portkey fails, docs/wire.md §7)"})
	h.note("Portkey " + portkeyVersion + " (Node " + h.report.Machine.Node + ") is measured non-streaming only: streaming through a custom host fails inside Portkey (docs/wire.md §7).")
	return nil
}

// note records and prints a remark about the run.
func (h *harness) note(s string) {
	fmt.Println("NOTE:", s)
	h.report.Notes = append(h.report.Notes, s)
}

// fareboxConfig is the YAML farebox serves: free and paid routes to the
// fake upstream (zero-delay, paced and held), payments on the bench network
// settled through the stand-in.
func (h *harness) fareboxConfig(addr string) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "addr: %s\nlog_level: %s\nmetrics: {public: true}\n", addr, h.logLevel)
	fmt.Fprintf(&b, `payments:
  pay_to: "0x000000000000000000000000000000000000bEEF"
  networks: [%q]
  max_timeout_seconds: 3600
  settle: after
  settler: facilitator
  facilitator:
    url: %q
  custom_networks:
    - caip2: %q
      chain_id: %s
      asset: %q
      name: %q
      version: %q
models:
`, benchNetwork.CAIP2, h.standIn.URL(), benchNetwork.CAIP2, benchNetwork.ChainID.String(), benchNetwork.Asset.Hex(), benchNetwork.Name, benchNetwork.Version)
	model := func(name, upstream, price string) {
		fmt.Fprintf(&b, "  - name: %s\n    upstream: %s\n    upstream_model: %q\n    base_url: %q\n    api_key_env: FAREBOX_BENCH_UPSTREAM_KEY\n    price: %q\n",
			name, h.kind, upstream, h.fake.URL(), price)
	}
	model("bench-free", "anything", "0")
	model("bench-paid", "anything", "0.001")
	model("bench-free-paced", "anything+gap="+h.p.pace.String(), "0")
	model("bench-paid-paced", "anything+gap="+h.p.pace.String(), "0.001")
	model("bench-free-hold", h.holdModel, "0")
	h.poolModelConfig(&b)
	h.anthropicModelConfig(&b)
	return b.String()
}

// startFarebox builds (unless -farebox) and starts `farebox serve`.
func (h *harness) startFarebox(ctx context.Context) (*process, string, error) {
	bin := h.fareboxBin
	if bin == "" {
		bin = filepath.Join(h.tmp, "farebox")
		fmt.Println("building farebox (go build ./cmd/farebox) ...")
		if out, err := run(ctx, 10*time.Minute, h.root, "go", "build", "-o", bin, "./cmd/farebox"); err != nil {
			return nil, "", fmt.Errorf("go build ./cmd/farebox: %v\n%s", err, out)
		}
		h.fareboxBin = bin // the real-settlement arms run the same binary
	}
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	cfg := filepath.Join(h.tmp, "farebox.yaml")
	if err := os.WriteFile(cfg, []byte(h.fareboxConfig(addr)), 0o644); err != nil {
		return nil, "", err
	}
	p, err := h.serveFarebox("farebox", []string{"FAREBOX_BENCH_UPSTREAM_KEY=sk-bench-unused"}, bin, cfg, addr)
	if err != nil {
		return nil, "", err
	}
	h.procs = append(h.procs, p)
	base := "http://" + addr
	if err := p.waitHTTP(base+"/healthz", 30*time.Second); err != nil {
		return nil, "", err
	}
	return p, base, nil
}
