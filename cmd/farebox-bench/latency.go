package main

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// LatencyResult is one arm's non-streaming latency at concurrency 1.
type LatencyResult struct {
	Arm string `json:"arm"`
	// P50us and P99us are the median over rounds of each round's quantile.
	P50us Spread `json:"p50_us"`
	P99us Spread `json:"p99_us"`
	// AddedP50us and AddedP99us are the same per round minus the direct
	// arm's quantile in that round (0 for direct itself).
	AddedP50us Spread `json:"added_p50_us"`
	AddedP99us Spread `json:"added_p99_us"`
	Samples    int    `json:"samples"`

	all []time.Duration // every sample, for the chart
}

// fillPools signs n payments ahead for every paid arm.
func fillPools(arms []*arm, n int) error {
	for _, a := range arms {
		if a.pay != nil {
			if err := a.pay.fill(n); err != nil {
				return err
			}
		}
	}
	return nil
}

// measureLatency runs rounds of perRound calls per arm at concurrency 1,
// interleaved call by call (the arm order rotates each round) so drift in
// the machine's load hits every arm alike. arms[0] must be direct.
func measureLatency(ctx context.Context, c *http.Client, arms []*arm, rounds, perRound int) ([]*LatencyResult, error) {
	res := make([]*LatencyResult, len(arms))
	per := make([][][]time.Duration, len(arms)) // arm -> round -> samples
	for i, a := range arms {
		res[i] = &LatencyResult{Arm: a.name}
		per[i] = make([][]time.Duration, rounds)
	}
	for r := 0; r < rounds; r++ {
		if err := fillPools(arms, perRound+1); err != nil {
			return nil, err
		}
		for n := 0; n < perRound; n++ {
			for k := range arms {
				i := (k + r) % len(arms)
				d, err := callOnce(ctx, c, arms[i])
				if err != nil {
					return nil, fmt.Errorf("latency round %d: %w", r+1, err)
				}
				per[i][r] = append(per[i][r], d)
			}
		}
	}
	for i := range arms {
		var p50, p99, a50, a99 []float64
		for r := 0; r < rounds; r++ {
			s, d := sortedCopy(per[i][r]), sortedCopy(per[0][r])
			res[i].all = append(res[i].all, s...)
			res[i].Samples += len(s)
			p50 = append(p50, micros(quantile(s, .50)))
			p99 = append(p99, micros(quantile(s, .99)))
			a50 = append(a50, micros(quantile(s, .50)-quantile(d, .50)))
			a99 = append(a99, micros(quantile(s, .99)-quantile(d, .99)))
		}
		res[i].P50us, res[i].P99us = spreadOf(p50), spreadOf(p99)
		res[i].AddedP50us, res[i].AddedP99us = spreadOf(a50), spreadOf(a99)
	}
	return res, nil
}
