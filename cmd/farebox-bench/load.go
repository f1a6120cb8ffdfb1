package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// loadRun is the outcome of an open-loop run at one offered rate.
type loadRun struct {
	offered  float64
	sent, ok int
	errs     int
	firstErr error
	lat      []time.Duration // from each call's scheduled time, so queueing counts
	elapsed  time.Duration
}

// p99 of the run's latencies.
func (l *loadRun) p99() time.Duration { return quantile(sortedCopy(l.lat), .99) }

// offerLoad sends calls on a at rate per second for dur, open loop: calls
// are scheduled on a fixed timetable whether or not earlier ones finished
// (at most maxInFlight run at once; late ones queue and their wait counts).
// It returns when every call finished or timed out.
func offerLoad(ctx context.Context, c *http.Client, a *arm, rate float64, dur time.Duration, maxInFlight int) *loadRun {
	n := int(rate * dur.Seconds())
	run := &loadRun{offered: rate, sent: n}
	sched := make(chan time.Time, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var inflight atomic.Int64
	workers := min(maxInFlight, max(4, n))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for at := range sched {
				inflight.Add(1)
				_, err := callOnce(ctx, c, a)
				inflight.Add(-1)
				d := time.Since(at)
				mu.Lock()
				if err != nil {
					run.errs++
					if run.firstErr == nil {
						run.firstErr = err
					}
				} else {
					run.ok++
					run.lat = append(run.lat, d)
				}
				mu.Unlock()
			}
		}()
	}
	start := time.Now()
	interval := time.Duration(float64(time.Second) / rate)
	for i := 0; i < n; i++ {
		at := start.Add(time.Duration(i) * interval)
		if w := time.Until(at); w > 0 {
			time.Sleep(w)
		}
		if ctx.Err() != nil {
			break
		}
		sched <- at
	}
	close(sched)
	wg.Wait()
	run.elapsed = time.Since(start)
	return run
}

// CPUResult is a gateway process's CPU time per call at a fixed offered load.
type CPUResult struct {
	Arm string `json:"arm"`
	// PerCallUs is utime+stime from /proc/<pid>/stat (10 ms ticks) divided
	// by the calls served, per round; SchedPerCallUs is the same from the
	// threads' schedstat (nanosecond clock), a cross-check.
	PerCallUs      Spread  `json:"per_call_us"`
	SchedPerCallUs Spread  `json:"sched_per_call_us"`
	OfferedPerSec  float64 `json:"offered_per_s"`
	Calls          int     `json:"calls"`
	// RSSKiB after each round: flat means no growth under sustained load.
	RSSKiB []int64 `json:"rss_kib_after_each_round"`
	// AllocsPerCall is farebox's heap allocations per call
	// (go_memstats_mallocs_total); nil for the other gateways.
	AllocsPerCall *Spread `json:"allocs_per_call,omitempty"`
	// IdleMsPerSec is the process's CPU with no calls offered (ms per s,
	// schedstat), measured before the loaded rounds and not in PerCallUs's
	// denominator.
	IdleMsPerSec float64 `json:"idle_cpu_ms_per_s"`
}

// cpuRoundResult is one round of calls offered to one route.
type cpuRoundResult struct {
	cpu, sched, allocs float64
	ok, errs, sent     int
	firstErr           error
}

// cpuRound offers a rate calls/s for dur and returns the process's CPU per
// successful call; prof also writes the round's CPU profile.
func cpuRound(ctx context.Context, c *http.Client, a *arm, rate float64, dur time.Duration, prof bool) (cpuRoundResult, error) {
	var res cpuRoundResult
	scrape, err := scrapeAllocs(ctx, c, a.proc)
	if err != nil {
		return res, err
	}
	u0, err := readUsage(ctx, c, a.proc)
	if err != nil {
		return res, err
	}
	wait := func() error { return nil }
	if prof {
		wait = profile(ctx, a.proc, fmt.Sprintf("%s-%.0fps", a.model, rate), dur)
	}
	run := offerLoad(ctx, c, a, rate, dur, 256)
	u1, err := readUsage(ctx, c, a.proc)
	if err != nil {
		return res, err
	}
	if err := wait(); err != nil {
		return res, fmt.Errorf("cpu profile of %s: %w", a.name, err)
	}
	res.ok, res.errs, res.sent, res.firstErr = run.ok, run.errs, run.sent, run.firstErr
	if run.ok > 0 {
		res.cpu, res.sched, res.allocs = spent(u0, u1, run.ok, scrape)
	}
	return res, nil
}

// measureCPU offers rate calls/s for dur to each gateway arm in turn, for
// several rounds, and reads each gateway process's CPU time around it.
func measureCPU(ctx context.Context, c *http.Client, arms []*arm, rounds int, rate float64, dur time.Duration) ([]*CPUResult, error) {
	res := make([]*CPUResult, len(arms))
	per := make([][]float64, len(arms))
	sched := make([][]float64, len(arms))
	allocs := make([][]float64, len(arms))
	for i, a := range arms {
		res[i] = &CPUResult{Arm: a.name, OfferedPerSec: rate, IdleMsPerSec: idleCPU(ctx, a.proc, idleFor(dur))}
	}
	for r := 0; r < rounds; r++ {
		for k := range arms {
			i := (k + r) % len(arms)
			a := arms[i]
			if a.pay != nil {
				if err := a.pay.fill(int(rate*dur.Seconds()) + 1); err != nil {
					return nil, err
				}
			}
			run, err := cpuRound(ctx, c, a, rate, dur, r == 0)
			if err != nil {
				return nil, err
			}
			if run.errs > 0 {
				return nil, fmt.Errorf("cpu phase, %s: %d of %d calls failed, first: %v", a.name, run.errs, run.sent, run.firstErr)
			}
			res[i].Calls += run.ok
			per[i], sched[i] = append(per[i], run.cpu), append(sched[i], run.sched)
			if a.proc.metrics != "" {
				allocs[i] = append(allocs[i], run.allocs)
			}
			if rss, err := rssKiB(a.proc.pid()); err == nil {
				res[i].RSSKiB = append(res[i].RSSKiB, rss)
			}
		}
	}
	for i := range arms {
		res[i].PerCallUs, res[i].SchedPerCallUs = spreadOf(per[i]), spreadOf(sched[i])
		if len(allocs[i]) > 0 {
			s := spreadOf(allocs[i])
			res[i].AllocsPerCall = &s
		}
	}
	return res, nil
}

// idleFor is how long a process is watched with no calls for its idle CPU.
func idleFor(load time.Duration) time.Duration {
	return min(2*time.Second, max(300*time.Millisecond, load/2))
}

// RateResult is the highest offered rate an arm held.
type RateResult struct {
	Arm string `json:"arm"`
	// HeldPerSec is the highest step with p99 under the limit, no errors,
	// and every call done; 0 when even the first step failed.
	HeldPerSec float64 `json:"held_per_s"`
	// P99AtHeldUs is the p99 at that step; FailedAt says why the next one failed.
	P99AtHeldUs float64 `json:"p99_at_held_us"`
	FailedAt    string  `json:"failed_at,omitempty"`
}

// measureMaxRate steps the offered rate up for every arm (interleaved:
// each step runs every arm still passing) until each fails its limit
// twice in a row at the same step.
func measureMaxRate(ctx context.Context, c *http.Client, arms []*arm, steps []float64, dur, limit time.Duration) ([]*RateResult, error) {
	res := make([]*RateResult, len(arms))
	alive := make([]bool, len(arms))
	for i, a := range arms {
		res[i] = &RateResult{Arm: a.name}
		alive[i] = true
	}
	for _, rate := range steps {
		for i, a := range arms {
			if !alive[i] || ctx.Err() != nil {
				continue
			}
			if a.pay != nil {
				if err := a.pay.fill(int(rate*dur.Seconds()) + 1); err != nil {
					return nil, err
				}
			}
			run := offerLoad(ctx, c, a, rate, dur, 512)
			if run.errs > 0 || run.p99() >= limit {
				// One retry: on a shared machine a stall of another tenant
				// is not the arm's failure; failing twice is.
				time.Sleep(500 * time.Millisecond)
				if a.pay != nil {
					if err := a.pay.fill(int(rate*dur.Seconds()) + 1); err != nil {
						return nil, err
					}
				}
				run = offerLoad(ctx, c, a, rate, dur, 512)
			}
			p99 := run.p99()
			switch {
			case run.errs > 0:
				res[i].FailedAt = fmt.Sprintf("%.0f/s: %d errors, first: %v", rate, run.errs, run.firstErr)
			case p99 >= limit:
				res[i].FailedAt = fmt.Sprintf("%.0f/s: p99 %.1f ms", rate, micros(p99)/1000)
			default:
				res[i].HeldPerSec, res[i].P99AtHeldUs = rate, micros(p99)
				continue
			}
			alive[i] = false
			// Let the arm drain before the next one is measured.
			time.Sleep(500 * time.Millisecond)
		}
	}
	return res, nil
}
