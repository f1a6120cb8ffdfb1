package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/farebox/farebox/internal/testkit/chaintest"
	"github.com/farebox/farebox/internal/testkit/fakeupstream"
	"github.com/tidwall/gjson"
)

// Soak sizes: how often farebox is sampled, how long it warms up before
// the samples that judge flatness, and one streaming call in streamEvery.
const (
	soakEvery   = 15 * time.Second
	soakWarm    = time.Minute
	streamEvery = 4
)

// soakSample is farebox's state at one instant of the soak.
type soakSample struct {
	At                 time.Duration
	RSSKiB             int64
	AnonKiB, FileKiB   int64 // RssAnon and RssFile: the Go heap and others vs mapped files (bbolt's journal)
	JournalBytes       int64 // size of farebox's data_dir
	HeapInuse          int64 // bytes, go_memstats_heap_inuse_bytes
	Goroutines, FDs    int64
	Served, Failed     int64 // calls so far
	InFlight, Streamed int64
}

// soakLimit is when a series counts as growing: its last-third average
// exceeds its first-third average by more than Rel and by more than Abs.
type soakLimit struct {
	Name string
	Rel  float64
	Abs  float64
	Unit string
	get  func(soakSample) float64
}

// soakLimits are the thresholds of the flatness verdict; the absolute
// slack keeps small series (a few fds, a few MiB) from tripping on noise.
var soakLimits = []soakLimit{
	{"RSS anon", .20, 8 << 10, "KiB", func(s soakSample) float64 { return float64(s.AnonKiB) }},
	// bbolt maps the journal, which keeps every settled purchase and so
	// grows with the calls served: file-backed pages beyond data_dir's
	// size are what must stay flat.
	{"RSS file beyond data_dir", .20, 8 << 10, "KiB", func(s soakSample) float64 { return float64(s.FileKiB - s.JournalBytes>>10) }},
	{"heap in use", .20, 4 << 20, "bytes", func(s soakSample) float64 { return float64(s.HeapInuse) }},
}

// Goroutines and fds under open-loop load follow the calls in flight (a
// stalled second on a shared machine doubles them), so they are judged
// once the load drained: back to the idle figures within this slack.
const (
	soakSlackGoroutines = 25
	soakSlackFDs        = 10
	soakDrain           = 30 * time.Second // how long the drained figures may take to settle
)

// drainVerdict compares the drained sample with the idle one.
func drainVerdict(idle, drained soakSample) (flat bool, lines []string) {
	flat = true
	for _, c := range []struct {
		name          string
		idle, drained int64
		slack         int64
	}{{"goroutines", idle.Goroutines, drained.Goroutines, soakSlackGoroutines}, {"open fds", idle.FDs, drained.FDs, soakSlackFDs}} {
		word := "back to idle"
		if c.drained > c.idle+c.slack {
			word, flat = "NOT BACK TO IDLE", false
		}
		lines = append(lines, fmt.Sprintf("%s: %s (idle %d, drained %d; allowed idle + %d)", c.name, word, c.idle, c.drained, c.slack))
	}
	return flat, lines
}

// soakVerdict compares the last third of the samples taken after warm
// with the first third, per series, and says flat or growing.
func soakVerdict(samples []soakSample, warm time.Duration) (flat bool, lines []string) {
	var s []soakSample
	for _, x := range samples {
		if x.At >= warm {
			s = append(s, x)
		}
	}
	if len(s) < 3 {
		return false, []string{fmt.Sprintf("too few samples after the %v warm-up (%d) to judge", warm, len(s))}
	}
	third := len(s) / 3
	avg := func(xs []soakSample, get func(soakSample) float64) float64 {
		var sum float64
		for _, x := range xs {
			sum += get(x)
		}
		return sum / float64(len(xs))
	}
	flat = true
	for _, l := range soakLimits {
		first, last := avg(s[:third], l.get), avg(s[len(s)-third:], l.get)
		grew := last > first*(1+l.Rel) && last-first > l.Abs
		word := "flat"
		if grew {
			word, flat = "GROWING", false
		}
		lines = append(lines, fmt.Sprintf("%s: %s (first-third avg %.0f, last-third avg %.0f, %+.1f%%; growing means > +%.0f%% and > +%.0f %s)",
			l.Name, word, first, last, 100*(last-first)/max(first, 1), 100*l.Rel, l.Abs, l.Unit))
	}
	return flat, lines
}

// soak runs one paid farebox settling on anvil (2 s blocks) at rate paid
// calls/s, open loop, for dur, samples it every soakEvery and writes soak.md.
func (h *harness) soak(ctx context.Context, dur time.Duration, rate float64) error {
	var err error
	if h.root, err = repoRoot(); err != nil {
		return err
	}
	if h.tmp, err = os.MkdirTemp("", "farebox-bench-soak-"); err != nil {
		return err
	}
	if h.outDir == "" {
		h.outDir = filepath.Join(h.root, "bench")
	}
	if h.fake, err = fakeupstream.Start(fakeupstream.Options{}); err != nil {
		return err
	}
	bin := h.fareboxBin
	if bin == "" {
		bin = filepath.Join(h.tmp, "farebox")
		fmt.Println("building farebox (go build ./cmd/farebox) ...")
		if out, err := run(ctx, 10*time.Minute, h.root, "go", "build", "-o", bin, "./cmd/farebox"); err != nil {
			return fmt.Errorf("go build ./cmd/farebox: %v\n%s", err, out)
		}
	}
	fmt.Println("starting anvil (Circle's USDC, Multicall3) ...")
	h.chain = &chainRig{}
	a, err := chaintest.Start(ctx, chaintest.GasLimit(150_000_000))
	if err != nil {
		return fmt.Errorf("anvil: %w", err)
	}
	h.chain.anvils = append(h.chain.anvils, a)
	key, err := a.NewRelayer(ctx)
	if err != nil {
		return err
	}
	if err := h.addChainArm(ctx, bin, armChain, a, key, "chain", "broadcast", "anvil, 2 s blocks, 150M gas", ""); err != nil {
		return err
	}
	if err := a.Client.Client().CallContext(ctx, nil, "evm_setIntervalMining", 2); err != nil {
		return fmt.Errorf("anvil: evm_setIntervalMining: %w", err)
	}
	ca := h.chain.arms[0]
	ca.judgeWithin = 2 * time.Minute
	n := int(rate*dur.Seconds()) + 1
	fmt.Printf("pre-signing %d authorizations ...\n", n)
	if err := ca.pay.fill(n); err != nil {
		return err
	}
	fmt.Printf("logs: %s\nsoak: %s at %.0f paid calls/s (1 in %d streaming), sampled every %v\n", h.tmp, dur, rate, streamEvery, soakEvery)
	samples, firstErr := soakLoad(ctx, newClient(), ca.arm, filepath.Join(h.tmp, armChain+"-data"), rate, dur)
	settled, verdict, err := ca.judge(ctx)
	if err != nil {
		return fmt.Errorf("reading the chain: %w", err)
	}
	var md strings.Builder
	writeSoak(&md, samples, dur, rate, firstErr, settled, verdict)
	fmt.Print("\n", md.String())
	if err := os.WriteFile(filepath.Join(h.outDir, "soak.md"), []byte(md.String()), 0o644); err != nil {
		return err
	}
	if !strings.HasPrefix(verdict, "ok") {
		return errChainMismatch
	}
	return nil
}

// soakLoad offers rate calls/s on a for dur (open loop, every
// streamEvery-th streaming) and samples the farebox process meanwhile.
func soakLoad(ctx context.Context, c *http.Client, a *arm, dataDir string, rate float64, dur time.Duration) ([]soakSample, string) {
	var served, failed, inflight, streamed atomic.Int64
	var errOnce sync.Once
	var firstErr string
	base := strings.TrimSuffix(a.url, "/v1/responses")
	start := time.Now()
	var samples []soakSample
	sample := func() {
		s := soakSample{At: time.Since(start).Round(time.Second), Served: served.Load(), Failed: failed.Load(), InFlight: inflight.Load(), Streamed: streamed.Load()}
		s.RSSKiB, _ = rssKiB(a.proc.pid())
		s.AnonKiB, s.FileKiB = rssSplit(a.proc.pid())
		s.JournalBytes = dirBytes(dataDir)
		if m, err := scrapeMetrics(ctx, c, base+"/metrics"); err == nil {
			s.HeapInuse, s.Goroutines, s.FDs = m["go_memstats_heap_inuse_bytes"], m["go_goroutines"], m["process_open_fds"]
		}
		samples = append(samples, s)
		fmt.Printf("%7v  rss %6d KiB (anon %6d, file %6d)  data_dir %5.1f MiB  heap %6.1f MiB  goroutines %4d  fds %4d  served %7d  failed %d  in flight %d\n",
			s.At, s.RSSKiB, s.AnonKiB, s.FileKiB, float64(s.JournalBytes)/(1<<20), float64(s.HeapInuse)/(1<<20), s.Goroutines, s.FDs, s.Served, s.Failed, s.InFlight)
	}
	sample()
	var wg sync.WaitGroup
	interval := time.Duration(float64(time.Second) / rate)
	nextSample := start.Add(soakEvery)
	for i := 0; ; i++ {
		at := start.Add(time.Duration(i) * interval)
		if at.Sub(start) >= dur || ctx.Err() != nil {
			break
		}
		if w := time.Until(at); w > 0 {
			time.Sleep(w)
		}
		if !time.Now().Before(nextSample) {
			sample()
			nextSample = nextSample.Add(soakEvery)
		}
		wg.Add(1)
		inflight.Add(1)
		go func(stream bool) {
			defer wg.Done()
			defer inflight.Add(-1)
			var err error
			if stream {
				err = streamPaid(ctx, c, a)
			} else {
				_, err = callOnce(ctx, c, a)
			}
			if err != nil {
				failed.Add(1)
				errOnce.Do(func() { firstErr = err.Error() })
				return
			}
			served.Add(1)
			if stream {
				streamed.Add(1)
			}
		}(i%streamEvery == streamEvery-1)
	}
	wg.Wait()
	// Drained: the client's kept-alive connections are closed, so what
	// farebox still holds after the load is its own (a leak, or background
	// work that should end soon).
	for deadline := time.Now().Add(soakDrain); ; {
		c.CloseIdleConnections()
		m, err := scrapeMetrics(ctx, c, base+"/metrics")
		c.CloseIdleConnections()
		if err == nil && m["go_goroutines"] <= samples[0].Goroutines+soakSlackGoroutines && m["process_open_fds"] <= samples[0].FDs+soakSlackFDs || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	sample()
	return samples, firstErr
}

// streamPaid sends one paid streaming call, reads it to the end and checks
// the in-band receipt on response.completed before counting it served.
func streamPaid(ctx context.Context, c *http.Client, a *arm) error {
	req, from, err := a.request(ctx, a.model, true)
	if err != nil {
		return err
	}
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 500))
		return fmt.Errorf("stream: HTTP %d: %s", res.StatusCode, b)
	}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok {
			continue
		}
		switch typ := gjson.GetBytes(data, "type").Str; typ {
		case "response.completed":
			if !gjson.GetBytes(data, "response.x402.success").Bool() {
				return fmt.Errorf("stream: no successful in-band receipt: %.300s", data)
			}
			_, err := io.Copy(io.Discard, res.Body)
			a.pay.served(from)
			return err
		case "response.failed", "error", "response.incomplete":
			return fmt.Errorf("stream ended with %s: %.300s", typ, data)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return errors.New("stream ended without response.completed")
}

// scrapeMetrics reads the unlabelled gauges of a Prometheus text page.
func scrapeMetrics(ctx context.Context, c *http.Client, url string) (map[string]int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d", url, res.StatusCode)
	}
	out := map[string]int64{}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 || strings.HasPrefix(f[0], "#") || strings.Contains(f[0], "{") {
			continue
		}
		if v, err := strconv.ParseFloat(f[1], 64); err == nil {
			out[f[0]] = int64(v)
		}
	}
	return out, sc.Err()
}

// writeSoak is bench/soak.md: the samples, first/last/max and the verdict.
func writeSoak(w io.Writer, samples []soakSample, dur time.Duration, rate float64, firstErr string, settled int, chainVerdict string) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	loaded := samples
	if len(loaded) > 1 {
		loaded = loaded[:len(loaded)-1] // the last sample is after the load drained
	}
	flat, lines := soakVerdict(loaded, soakWarm)
	var drainLines []string
	if len(samples) > 1 {
		var drainFlat bool
		drainFlat, drainLines = drainVerdict(samples[0], samples[len(samples)-1])
		flat = flat && drainFlat
	}
	p("# Soak: one paid farebox, real settlement on anvil\n\n")
	p("`go run ./cmd/farebox-bench -soak %v -soak-rate %.0f` (%s, %s, load avg at the end %s)\n\n", dur, rate, stamp(), machine(context.Background()).CPU, loadavg())
	p("`farebox serve` with `settler: chain` (confirm `broadcast`) on anvil with 2 s blocks, Circle's FiatToken USDC, %d funded payers, authorizations pre-signed before the run; "+
		"%.0f paid calls/s offered open loop for %v, one in %d streaming (zero-delay fake upstream). "+
		"Sampled every %v: VmRSS (and its RssAnon / RssFile split) from /proc, the size of farebox's data_dir (bbolt journal), heap in use, goroutines and open fds from farebox's /metrics.\n\n", chainPayers, rate, dur, streamEvery, soakEvery)
	p("| t | RSS MiB | RSS anon MiB | RSS file MiB | data_dir MiB | heap in use MiB | goroutines | open fds | served | failed | in flight |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, s := range samples {
		p("| %v | %.1f | %.1f | %.1f | %.1f | %.1f | %d | %d | %d | %d | %d |\n", s.At, float64(s.RSSKiB)/1024, float64(s.AnonKiB)/1024, float64(s.FileKiB)/1024,
			float64(s.JournalBytes)/(1<<20), float64(s.HeapInuse)/(1<<20), s.Goroutines, s.FDs, s.Served, s.Failed, s.InFlight)
	}
	if len(samples) > 0 {
		first, last := samples[0], samples[len(samples)-1]
		mx := first
		for _, s := range samples {
			mx.RSSKiB, mx.HeapInuse = max(mx.RSSKiB, s.RSSKiB), max(mx.HeapInuse, s.HeapInuse)
			mx.AnonKiB, mx.FileKiB, mx.JournalBytes = max(mx.AnonKiB, s.AnonKiB), max(mx.FileKiB, s.FileKiB), max(mx.JournalBytes, s.JournalBytes)
			mx.Goroutines, mx.FDs = max(mx.Goroutines, s.Goroutines), max(mx.FDs, s.FDs)
		}
		p("\n| | RSS MiB | RSS anon MiB | RSS file MiB | data_dir MiB | heap in use MiB | goroutines | open fds |\n|---|---|---|---|---|---|---|---|\n")
		for _, r := range []struct {
			n string
			s soakSample
		}{{"first (idle, before load)", first}, {"last (load drained)", last}, {"max", mx}} {
			p("| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %d | %d |\n", r.n, float64(r.s.RSSKiB)/1024, float64(r.s.AnonKiB)/1024, float64(r.s.FileKiB)/1024,
				float64(r.s.JournalBytes)/(1<<20), float64(r.s.HeapInuse)/(1<<20), r.s.Goroutines, r.s.FDs)
		}
		p("\nCalls served: %d (%d streaming), failed: %d.", last.Served, last.Streamed, last.Failed)
		if firstErr != "" {
			p(" First failure: %.300s", strings.ReplaceAll(firstErr, "\n", " "))
		}
		p("\n")
	}
	p("\nChain check (%d settlements): %s\n", settled, chainVerdict)
	word := "FLAT"
	if !flat {
		word = "NOT FLAT"
		if len(lines) == 1 && strings.HasPrefix(lines[0], "too few") {
			word = "UNDECIDED"
		}
	}
	p("\n**Verdict: %s.** Samples under load from t >= %v (warm-up and the drained last sample excluded), last third against first third:\n\n", word, soakWarm)
	for _, l := range lines {
		p("- %s\n", l)
	}
	if len(drainLines) > 0 {
		p("\nOnce the load drained (the client's connections closed), against the idle sample before the load:\n\n")
		for _, l := range drainLines {
			p("- %s\n", l)
		}
	}
}

// rssSplit is RssAnon and RssFile of the process in KiB: file-backed pages
// are mapped files (bbolt maps its journal), reclaimable, unlike anonymous ones.
func rssSplit(pid int) (anon, file int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "RssAnon":
			anon = n
		case "RssFile":
			file = n
		}
	}
	return anon, file
}

// dirBytes is the total size of the files in dir (farebox's data_dir).
func dirBytes(dir string) int64 {
	es, _ := os.ReadDir(dir)
	var n int64
	for _, e := range es {
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n
}
