package gateway_test

import (
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/farebox/farebox/gateway"
)

// Thousands of clients that send headers and then trickle their body are
// cut off by the body deadline; meanwhile /healthz and a call answer, and
// afterwards the heap is back near where it was. FAREBOX_SLOW_CONNS sets
// how many (default 2,000; each costs two descriptors in this process).
func TestSlowBodiesAreCutOff(t *testing.T) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("FAREBOX_SLOW_CONNS")); err == nil && v > 0 {
		n = v
	}
	cfg := freeConfig()
	// Long enough for all of them to be open at once before the first is cut.
	cfg.Limits.BodyTimeout = gateway.Duration(time.Second + time.Duration(n)*time.Millisecond/2)
	cfg.Limits.BodyMinRate = 1000 // each byte buys a millisecond
	cfg.Limits.MaxConnections = n + 64
	cfg.LogLevel = "error"
	ts := startServer(t, cfg, gateway.Options{})
	root := strings.TrimSuffix(ts.URL, "/v1")
	addr := strings.TrimPrefix(root, "http://")

	heapBefore := settledHeap(t, root)
	var opened, cut atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var stopOnce sync.Once
	end := func() { stopOnce.Do(func() { close(stop) }) }
	t.Cleanup(end)                  // a failed test must not leave the trickles running
	dial := make(chan struct{}, 64) // dial 64 at a time
	var dialErr atomic.Value
	for range n {
		dial <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", addr)
			<-dial
			if err != nil {
				dialErr.Store(err)
				return
			}
			opened.Add(1)
			wg.Add(1)
			go func() { // the server ends the connection: read until it does
				defer wg.Done()
				defer c.Close()
				io.Copy(io.Discard, c)
				cut.Add(1)
			}()
			// The trickle: one byte every 250 ms, far below the minimum rate.
			io.WriteString(c, "POST /v1/responses HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
			tick := time.NewTicker(250 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					if _, err := c.Write([]byte(" ")); err != nil {
						return
					}
				}
			}
		}()
	}
	for range cap(dial) {
		dial <- struct{}{} // every dial is done
	}
	if err := dialErr.Load(); err != nil {
		t.Fatalf("dialled %d of %d: %v", opened.Load(), n, err)
	}
	// While they trickle, probes and calls are answered.
	res, err := http.Get(root + "/healthz")
	if err != nil || res.StatusCode != 200 {
		t.Errorf("healthz during the flood: %v %v", err, res)
	} else {
		res.Body.Close()
	}
	fams := scrape(t, root+"/metrics")
	peakConns, heapPeak := value(fams, "farebox_open_connections"), value(fams, "go_memstats_heap_alloc_bytes")
	if res, body := post(t, ts.URL+"/responses", `{"model":"`+free+`","input":"still here"}`); res.StatusCode != 200 {
		t.Errorf("a call during the flood: %d %s", res.StatusCode, body)
	}

	waitMetric(t, root, "farebox_limit_refusals_total", float64(n), "limit", "slow_body")
	end()
	wg.Wait()
	if cut.Load() != int64(n) {
		t.Errorf("%d of %d slow connections were closed", cut.Load(), n)
	}
	http.DefaultClient.CloseIdleConnections()
	waitMetric(t, root, "farebox_open_connections", 1) // the scrape's own
	heapAfter := settledHeap(t, root)
	t.Logf("%d slow-body connections: %v open at the first scrape, heap %.1f MiB before, %.1f MiB with them open, %.1f MiB after",
		n, peakConns, heapBefore/(1<<20), heapPeak/(1<<20), heapAfter/(1<<20))
	// Go keeps every goroutine's descriptor for reuse (about 400 bytes; five
	// goroutines per connection here, client side included): that much
	// stays, the rest (buffers, stacks, requests) must be gone.
	if heapAfter > heapBefore*1.5+float64(8<<20+n*2<<10) {
		t.Errorf("heap did not come back: %.1f MiB before, %.1f MiB after", heapBefore/(1<<20), heapAfter/(1<<20))
	}
}

// settledHeap is the heap in use (go_memstats_heap_alloc_bytes on
// /metrics) after a collection: server and test share this process.
func settledHeap(t *testing.T, root string) float64 {
	t.Helper()
	for range 3 { // finalizers (sockets) and sync.Pool's victim cache need more than one
		runtime.GC()
	}
	return value(scrape(t, root+"/metrics"), "go_memstats_heap_alloc_bytes")
}
