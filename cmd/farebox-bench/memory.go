package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// MemoryResult is a gateway process's resident memory (VmRSS).
type MemoryResult struct {
	Arm     string `json:"arm"`
	IdleKiB int64  `json:"idle_kib"`
	// BeforeHoldKiB and HoldKiB are read just before opening Open streams
	// and while all of them are open; PerStreamKiB is the difference per stream.
	BeforeHoldKiB int64   `json:"before_hold_kib"`
	HoldKiB       int64   `json:"hold_kib"`
	Open          int     `json:"open"`
	PerStreamKiB  float64 `json:"per_stream_kib"`
	HoldNote      string  `json:"hold_note"`
	AfterLoadKiB  int64   `json:"after_load_kib"`
}

// holdOpen opens n calls on a that stay open (a's hold model), waits until
// all are under way, reads the gateway's RSS, then ends them. Streaming
// arms count a call as open once its first event arrived; others once
// arrived says the upstream has seen them all.
func holdOpen(ctx context.Context, a *arm, n int, within time.Duration, arrived func(context.Context, int) error) (before, during int64, err error) {
	pid := a.proc.pid()
	if before, err = rssKiB(pid); err != nil {
		return 0, 0, err
	}
	tr := &http.Transport{MaxIdleConnsPerHost: n, DisableCompression: true}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr}
	hctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	started := make(chan error, n)
	stream := a.paced != ""
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _, err := a.request(hctx, a.hold, stream)
			if err != nil {
				started <- err
				return
			}
			res, err := c.Do(req)
			if err != nil {
				if hctx.Err() == nil {
					started <- err
				}
				return
			}
			defer res.Body.Close()
			if res.StatusCode != http.StatusOK {
				started <- fmt.Errorf("%s: hold: HTTP %d", a.name, res.StatusCode)
				return
			}
			br := bufio.NewReader(res.Body)
			for {
				line, err := br.ReadSlice('\n')
				if bytes.HasPrefix(line, []byte("data: ")) {
					started <- nil
					io.Copy(io.Discard, br) // until cancelled
					return
				}
				if err != nil && err != bufio.ErrBufferFull {
					return
				}
			}
		}()
	}
	defer func() {
		cancel()
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
	}()
	deadline := time.After(within)
	if stream {
		for got := 0; got < n; got++ {
			select {
			case err := <-started:
				if err != nil {
					return before, 0, err
				}
			case <-deadline:
				return before, 0, fmt.Errorf("%s: only %d of %d streams open after %v", a.name, got, n, within)
			}
		}
	} else {
		actx, acancel := context.WithTimeout(ctx, within)
		defer acancel()
		if err := arrived(actx, n); err != nil {
			return before, 0, fmt.Errorf("%s: held calls did not all reach the upstream: %w", a.name, err)
		}
		// The gateway has each call's upstream request out: give it a moment
		// to settle its buffers, and surface any early failure.
		select {
		case err := <-started:
			if err != nil {
				return before, 0, err
			}
		case <-time.After(200 * time.Millisecond):
		}
	}
	during, err = rssKiB(pid)
	return before, during, err
}
