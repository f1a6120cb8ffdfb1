package facilitator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/farebox/farebox/x402"
)

// A facilitator answering 503 (its proxy with no backend) is seen down:
// Available refuses with unexpected_verify_error, which the server answers
// 503 with Retry-After, while /supported keeps failing, and is nil again
// once the facilitator answers anything of its own. A client that gave up
// on its call tells nothing.
func TestAvailableFollowsTheFacilitatorsReachability(t *testing.T) {
	var down atomic.Bool
	var supported atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/supported" {
			supported.Add(1)
		}
		if down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"kinds":[]}`))
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.Available(ctx); err != nil {
		t.Fatalf("before any exchange: %v", err)
	}
	gone, cancel := context.WithCancel(ctx)
	cancel()
	c.Supported(gone)
	if err := c.Available(ctx); err != nil {
		t.Fatalf("after a cancelled exchange: %v", err)
	}

	down.Store(true)
	c.Supported(ctx)
	before := supported.Load()
	for range 3 {
		if err := c.Available(ctx); reason(err) != x402.ReasonUnexpectedVerifyError {
			t.Fatalf("while it answers 503: %v, want %s", err, x402.ReasonUnexpectedVerifyError)
		}
	}
	if n := supported.Load() - before; n > 1 {
		t.Errorf("%d probes in a row within a second, want one at most", n)
	}

	down.Store(false)
	deadline := time.Now().Add(10 * time.Second)
	for c.Available(ctx) != nil {
		if time.Now().After(deadline) {
			t.Fatal("still unavailable 10 s after the facilitator answers again")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
