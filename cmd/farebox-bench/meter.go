package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// serveFarebox starts `farebox serve --config cfg` listening on addr, with
// what the meter reads: its /metrics (allocations) and, when profiles are
// asked for, a pprof listener of its own.
func (h *harness) serveFarebox(name string, env []string, bin, cfg, addr string) (*process, error) {
	var pprofAddr string
	if h.profDir != "" {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		pprofAddr = "127.0.0.1:" + strconv.Itoa(port)
		env = append(env, "FAREBOX_PPROF_ADDR="+pprofAddr)
	}
	p, err := startProcess(name, h.tmp, env, bin, "serve", "--config", cfg)
	if err != nil {
		return nil, err
	}
	p.metrics, p.pprof, p.profDir = "http://"+addr+"/metrics", pprofAddr, h.profDir
	return p, nil
}

// usage is what a gateway process had spent at one moment: CPU time from
// /proc (utime+stime, and the threads' schedstat) and, for farebox, heap
// allocations (go_memstats_mallocs_total on its /metrics).
type usage struct {
	cpu, sched time.Duration
	mallocs    int64
}

// readUsage samples p. Reading /metrics allocates in farebox too: a
// difference of two samples holds one scrape's allocations, which
// scrapeAllocs measures so perCall can take them out.
func readUsage(ctx context.Context, c *http.Client, p *process) (usage, error) {
	var u usage
	var err error
	if u.cpu, err = cpuTime(p.pid()); err != nil {
		return u, err
	}
	u.sched = schedTime(p.pid())
	if p.metrics != "" {
		m, err := scrapeMetrics(ctx, c, p.metrics)
		if err != nil {
			return u, err
		}
		u.mallocs = m["go_memstats_mallocs_total"]
	}
	return u, nil
}

// scrapeAllocs is the allocations one /metrics scrape costs p (the least
// of three back-to-back differences), once per process.
func scrapeAllocs(ctx context.Context, c *http.Client, p *process) (int64, error) {
	if p.metrics == "" {
		return 0, nil
	}
	if p.scrapeAllocs >= 0 {
		return p.scrapeAllocs, nil
	}
	prev, err := readUsage(ctx, c, p)
	if err != nil {
		return 0, err
	}
	least := int64(-1)
	for range 3 {
		u, err := readUsage(ctx, c, p)
		if err != nil {
			return 0, err
		}
		if d := u.mallocs - prev.mallocs; least < 0 || d < least {
			least = d
		}
		prev = u
	}
	p.scrapeAllocs = least
	return least, nil
}

// spent is what p spent per call between two samples over calls calls:
// CPU µs (utime+stime, schedstat) and allocations.
func spent(u0, u1 usage, calls int, scrape int64) (cpuUs, schedUs, allocs float64) {
	if calls == 0 {
		return 0, 0, 0
	}
	n := float64(calls)
	return micros(u1.cpu-u0.cpu) / n, micros(u1.sched-u0.sched) / n, float64(max(0, u1.mallocs-u0.mallocs-scrape)) / n
}

// idleCPU is p's CPU over d with no calls offered, in ms per second
// (schedstat: the 10 ms ticks of utime+stime are too coarse for it). It is
// what the process's timers, chain heads and claim loops cost, apart from
// the per-call figures.
func idleCPU(ctx context.Context, p *process, d time.Duration) float64 {
	s0 := schedTime(p.pid())
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
	return micros(schedTime(p.pid())-s0) / 1000 / d.Seconds()
}

// profile records a CPU profile of p for d into p.profDir/<p.name>-<label>.pprof,
// when profiles are asked for; the returned wait returns once it is written.
func profile(ctx context.Context, p *process, label string, d time.Duration) (wait func() error) {
	if p.pprof == "" || p.profDir == "" {
		return func() error { return nil }
	}
	done := make(chan error, 1)
	go func() {
		secs := max(1, int(d.Round(time.Second)/time.Second))
		url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", p.pprof, secs)
		done <- download(ctx, url, filepath.Join(p.profDir, p.name+"-"+label+".pprof"))
	}()
	return func() error { return <-done }
}

func download(ctx context.Context, url, path string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: HTTP %d", url, res.StatusCode)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
