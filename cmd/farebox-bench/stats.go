package main

import (
	"math"
	"slices"
	"time"
)

// quantile returns the q-quantile (0..1) of sorted samples by the
// nearest-rank method; 0 for no samples.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	i = max(0, min(i, len(sorted)-1))
	return sorted[i]
}

// sortedCopy returns the samples in ascending order without touching s.
func sortedCopy(s []time.Duration) []time.Duration {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// Spread is a figure taken as the median over rounds, with the lowest and
// highest round values so a reader sees how stable it was.
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	Rounds int     `json:"rounds"`
}

// spreadOf summarises per-round values (any unit).
func spreadOf(v []float64) Spread {
	if len(v) == 0 {
		return Spread{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Spread{Median: m, Min: s[0], Max: s[len(s)-1], Rounds: len(s)}
}

// micros converts a duration to microseconds as a float.
func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// ratio is a/b, or 0 when b is 0 (an arm that did not run).
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
