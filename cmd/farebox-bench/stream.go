package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/tidwall/gjson"
)

// StreamResult is one arm's streaming behaviour against a paced upstream.
type StreamResult struct {
	Arm string `json:"arm"`
	// TTFTus is the time from sending the request to the first text delta.
	TTFTp50us Spread `json:"ttft_p50_us"`
	TTFTp99us Spread `json:"ttft_p99_us"`
	// GapP50us/GapP99us are quantiles of the time between consecutive text
	// deltas of one stream; Added* subtract the direct arm's, per round.
	GapP50us      Spread `json:"gap_p50_us"`
	GapP99us      Spread `json:"gap_p99_us"`
	AddedTTFTp50  Spread `json:"added_ttft_p50_us"`
	AddedTTFTp99  Spread `json:"added_ttft_p99_us"`
	AddedGapP50us Spread `json:"added_gap_p50_us"`
	AddedGapP99us Spread `json:"added_gap_p99_us"`
	Streams       int    `json:"streams"`
	// DeltasPerStream is the upstream's delta count; Mismatched counts
	// streams whose deltas were not exactly the upstream's, one event each
	// (coalesced, split or lost).
	DeltasPerStream int `json:"deltas_per_stream"`
	Mismatched      int `json:"mismatched_streams"`
	// Held counts deltas that arrived less than half the upstream's pace
	// after the previous one: held back and released in a burst.
	Held int `json:"held_deltas"`
}

// streamRun is what the client saw of one stream.
type streamRun struct {
	ttft   time.Duration
	gaps   []time.Duration
	deltas []string
}

// readStream sends one streaming call and timestamps every text delta as
// its line is read off the socket.
func readStream(ctx context.Context, c *http.Client, a *arm, model string) (*streamRun, error) {
	req, _, err := a.request(ctx, model, true)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 1000))
		return nil, fmt.Errorf("%s: stream: HTTP %d: %s", a.name, res.StatusCode, b)
	}
	run := &streamRun{}
	br := bufio.NewReaderSize(res.Body, 64<<10)
	var last time.Time
	for {
		line, err := br.ReadSlice('\n')
		now := time.Now()
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			switch typ := gjson.GetBytes(data, "type").Str; typ {
			case "response.output_text.delta":
				if last.IsZero() {
					run.ttft = now.Sub(t0)
				} else {
					run.gaps = append(run.gaps, now.Sub(last))
				}
				last = now
				run.deltas = append(run.deltas, gjson.GetBytes(data, "delta").Str)
			case "response.completed":
				// Read to the end so the connection is reused, as SDKs do.
				_, err := io.Copy(io.Discard, br)
				return run, err
			case "response.failed", "error", "response.incomplete":
				return nil, fmt.Errorf("%s: stream ended with %s: %.300s", a.name, typ, data)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: stream ended without response.completed", a.name)
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

// measureStreams runs rounds of perRound paced streams per stream-capable
// arm, interleaved stream by stream. arms[0] must be direct: its deltas
// are the upstream's, the reference every other arm must reproduce.
func measureStreams(ctx context.Context, c *http.Client, arms []*arm, rounds, perRound int, pace time.Duration) ([]*StreamResult, error) {
	type round struct{ ttft, gaps []time.Duration }
	per := make([][]round, len(arms))
	res := make([]*StreamResult, len(arms))
	var want []string
	for i, a := range arms {
		per[i] = make([]round, rounds)
		res[i] = &StreamResult{Arm: a.name}
	}
	for r := 0; r < rounds; r++ {
		if err := fillPools(arms, perRound+1); err != nil {
			return nil, err
		}
		for n := 0; n < perRound; n++ {
			for k := range arms {
				i := (k + r) % len(arms)
				run, err := readStream(ctx, c, arms[i], arms[i].paced)
				if err != nil {
					return nil, fmt.Errorf("stream round %d: %w", r+1, err)
				}
				if i == 0 && want == nil {
					want = run.deltas
				}
				per[i][r].ttft = append(per[i][r].ttft, run.ttft)
				per[i][r].gaps = append(per[i][r].gaps, run.gaps...)
				res[i].Streams++
				if want != nil && !slices.Equal(run.deltas, want) {
					res[i].Mismatched++
				}
				for _, g := range run.gaps {
					if g < pace/2 {
						res[i].Held++
					}
				}
			}
		}
	}
	for i := range arms {
		res[i].DeltasPerStream = len(want)
		var t50, t99, g50, g99, at50, at99, ag50, ag99 []float64
		for r := 0; r < rounds; r++ {
			t, g := sortedCopy(per[i][r].ttft), sortedCopy(per[i][r].gaps)
			dt, dg := sortedCopy(per[0][r].ttft), sortedCopy(per[0][r].gaps)
			t50 = append(t50, micros(quantile(t, .5)))
			t99 = append(t99, micros(quantile(t, .99)))
			g50 = append(g50, micros(quantile(g, .5)))
			g99 = append(g99, micros(quantile(g, .99)))
			at50 = append(at50, micros(quantile(t, .5)-quantile(dt, .5)))
			at99 = append(at99, micros(quantile(t, .99)-quantile(dt, .99)))
			ag50 = append(ag50, micros(quantile(g, .5)-quantile(dg, .5)))
			ag99 = append(ag99, micros(quantile(g, .99)-quantile(dg, .99)))
		}
		res[i].TTFTp50us, res[i].TTFTp99us = spreadOf(t50), spreadOf(t99)
		res[i].GapP50us, res[i].GapP99us = spreadOf(g50), spreadOf(g99)
		res[i].AddedTTFTp50, res[i].AddedTTFTp99 = spreadOf(at50), spreadOf(at99)
		res[i].AddedGapP50us, res[i].AddedGapP99us = spreadOf(ag50), spreadOf(ag99)
	}
	return res, nil
}
