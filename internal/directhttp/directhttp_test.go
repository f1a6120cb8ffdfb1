package directhttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// server is an httptest server that counts the connections it accepted.
type server struct {
	*httptest.Server
	conns  atomic.Int64
	closed chan struct{} // receives (without blocking) when the server closed a connection
}

func newServer(t testing.TB, h http.HandlerFunc, configure ...func(*http.Server)) *server {
	t.Helper()
	s := &server{closed: make(chan struct{}, 16)}
	s.Server = httptest.NewUnstartedServer(h)
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.conns.Add(1)
		case http.StateClosed:
			select {
			case s.closed <- struct{}{}:
			default:
			}
		}
	}
	for _, f := range configure {
		f(s.Config)
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func newTransport(t testing.TB, opts Options) *Transport {
	tr := New(opts)
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// idleCount is the number of pooled connections.
func (t *Transport) idleCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, l := range t.idle {
		n += len(l)
	}
	return n
}

// get performs a GET and returns the status and the body.
func get(t *testing.T, tr http.RoundTripper, url string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, string(b)
}

// waitFor fails the test if ch does not receive within a generous bound
// (a hang, not a timing assertion).
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func TestPostArrivesIntact(t *testing.T) {
	body := `{"paymentPayload":{"x402Version":2},"paymentRequirements":{"amount":"1000"}}`
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v2/settle" || r.URL.RawQuery != "a=1&b=two" {
			t.Errorf("request line: %s %s?%s", r.Method, r.URL.Path, r.URL.RawQuery)
		}
		if got := r.Header.Get("Content-Type"); got != "application/json" {
			t.Errorf("Content-Type %q", got)
		}
		if got := r.Header.Values("X-Trace"); len(got) != 2 || got[0] != "one" || got[1] != "two" {
			t.Errorf("X-Trace %q", got)
		}
		if r.Host != "facilitator.test:8402" {
			t.Errorf("Host %q", r.Host)
		}
		if r.ContentLength != int64(len(body)) || len(r.TransferEncoding) != 0 {
			t.Errorf("Content-Length %d, Transfer-Encoding %q", r.ContentLength, r.TransferEncoding)
		}
		got, err := io.ReadAll(r.Body)
		if err != nil || string(got) != body {
			t.Errorf("body %q, %v", got, err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Reply", "settled")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"success":true}`)
	})
	tr := newTransport(t, Options{})
	req, err := http.NewRequest(http.MethodPost, s.URL+"/v2/settle?a=1&b=two", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "facilitator.test:8402"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Add("X-Trace", "one")
	req.Header.Add("X-Trace", "two")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("X-Reply") != "settled" ||
		resp.Header.Get("Content-Type") != "application/json" || string(got) != `{"success":true}` {
		t.Errorf("response %d %v %q", resp.StatusCode, resp.Header, got)
	}
	if resp.Request != req {
		t.Error("resp.Request is not the request")
	}
	if tr.idleCount() != 1 {
		t.Errorf("%d idle connections, want 1", tr.idleCount())
	}
}

func TestURLUserinfoBecomesBasicAuth(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		u, p, ok := r.BasicAuth()
		fmt.Fprintf(w, "%v %s %s", ok, u, p)
	})
	tr := newTransport(t, Options{})
	req, _ := http.NewRequest(http.MethodGet, strings.Replace(s.URL, "http://", "http://rpc:s3cret@", 1), nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(resp.Body); string(got) != "true rpc s3cret" {
		t.Errorf("server saw %q", got)
	}
	if req.Header.Get("Authorization") != "" {
		t.Error("the caller's request was modified")
	}
}

func TestSequentialRequestsShareOneConnection(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) })
	tr := newTransport(t, Options{})
	for i := range 100 {
		if st, b := get(t, tr, fmt.Sprintf("%s/%d", s.URL, i)); st != 200 || b != fmt.Sprintf("/%d", i) {
			t.Fatalf("request %d: %d %q", i, st, b)
		}
	}
	if n := s.conns.Load(); n != 1 {
		t.Errorf("%d connections for 100 sequential requests, want 1", n)
	}
}

func TestConcurrentRequests(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Write(b)
	})
	tr := newTransport(t, Options{})
	const workers, each = 16, 50
	var wg sync.WaitGroup
	for g := range workers {
		wg.Go(func() {
			for i := range each {
				want := fmt.Sprintf("worker %d request %d", g, i)
				req, _ := http.NewRequest(http.MethodPost, s.URL, strings.NewReader(want))
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Error(err)
					return
				}
				if got, _ := io.ReadAll(resp.Body); string(got) != want {
					t.Errorf("got %q, want %q", got, want)
					return
				}
			}
		})
	}
	wg.Wait()
	// Each worker holds one connection at a time and none fails, so
	// connections are only ever dialed when all pooled ones are in use.
	if n := s.conns.Load(); n > workers {
		t.Errorf("%d connections for %d workers", n, workers)
	}
}

func TestMaxIdlePerHost(t *testing.T) {
	const n = 5
	arrived := make(chan struct{}, n)
	release := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-release
	})
	tr := newTransport(t, Options{MaxIdlePerHost: 2})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
			if _, err := tr.RoundTrip(req); err != nil {
				t.Error(err)
			}
		})
	}
	for range n {
		waitFor(t, arrived, "the concurrent requests")
	}
	close(release)
	wg.Wait()
	if s.conns.Load() != n || tr.idleCount() != 2 {
		t.Errorf("%d connections, %d idle: want %d and 2", s.conns.Load(), tr.idleCount(), n)
	}
}

func TestChunkedResponse(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first part, ")
		w.(http.Flusher).Flush()
		io.WriteString(w, "second part")
		w.(http.Flusher).Flush()
	})
	tr := newTransport(t, Options{})
	for range 2 {
		req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" {
			t.Errorf("Transfer-Encoding %q: the server did not chunk", resp.TransferEncoding)
		}
		if b, _ := io.ReadAll(resp.Body); string(b) != "first part, second part" {
			t.Errorf("body %q", b)
		}
	}
	if n := s.conns.Load(); n != 1 {
		t.Errorf("%d connections, want 1: a chunked body read to its end leaves the connection reusable", n)
	}
}

// hijack takes over the connection and writes resp as is.
func hijack(t *testing.T, w http.ResponseWriter, resp string) net.Conn {
	c, brw, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Error(err)
		return nil
	}
	brw.WriteString(resp)
	brw.Flush()
	return c
}

// TestStaleIdleConnection: a pooled connection the server closed meanwhile
// is detected before use, and the request goes on a new one. Without the
// probe the request would be written to the dead socket and fail.
func TestStaleIdleConnection(t *testing.T) {
	for _, reset := range []bool{false, true} {
		t.Run(map[bool]string{false: "server closed it", true: "server reset it"}[reset], func(t *testing.T) {
			gone := make(chan struct{}, 1)
			s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/then-close" {
					io.WriteString(w, "fresh")
					return
				}
				// Keep-alive as far as the client can tell, then gone.
				c := hijack(t, w, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				if reset {
					c.(*net.TCPConn).SetLinger(0)
				}
				c.Close()
				gone <- struct{}{}
			})
			tr := newTransport(t, Options{})
			if st, b := get(t, tr, s.URL+"/then-close"); st != 200 || b != "ok" {
				t.Fatalf("%d %q", st, b)
			}
			if tr.idleCount() != 1 {
				t.Fatalf("%d idle, want the connection pooled", tr.idleCount())
			}
			waitFor(t, gone, "the server to close")
			if st, b := get(t, tr, s.URL+"/next"); st != 200 || b != "fresh" {
				t.Fatalf("%d %q", st, b)
			}
			if n := s.conns.Load(); n != 2 {
				t.Errorf("%d connections, want 2", n)
			}
		})
	}
	t.Run("server idle timeout", func(t *testing.T) {
		s := newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") },
			func(hs *http.Server) { hs.IdleTimeout = 20 * time.Millisecond })
		tr := newTransport(t, Options{})
		get(t, tr, s.URL)
		waitFor(t, s.closed, "the server's idle timeout")
		if st, b := get(t, tr, s.URL); st != 200 || b != "x" {
			t.Fatalf("%d %q", st, b)
		}
		if n := s.conns.Load(); n != 2 {
			t.Errorf("%d connections, want 2", n)
		}
	})
	t.Run("transport idle timeout", func(t *testing.T) {
		s := newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") })
		tr := newTransport(t, Options{IdleTimeout: time.Millisecond})
		get(t, tr, s.URL)
		time.Sleep(20 * time.Millisecond)
		get(t, tr, s.URL)
		if n := s.conns.Load(); n != 2 {
			t.Errorf("%d connections, want 2: a connection idle past IdleTimeout is not reused", n)
		}
		waitFor(t, s.closed, "the transport to close the expired connection")
	})
}

func TestNotPooled(t *testing.T) {
	t.Run("Connection: close", func(t *testing.T) {
		s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Connection", "close")
			io.WriteString(w, "bye")
		})
		tr := newTransport(t, Options{})
		for range 2 {
			if _, b := get(t, tr, s.URL); b != "bye" {
				t.Fatalf("body %q", b)
			}
			if tr.idleCount() != 0 {
				t.Fatal("a Connection: close response left its connection pooled")
			}
		}
		if n := s.conns.Load(); n != 2 {
			t.Errorf("%d connections, want 2", n)
		}
	})
	t.Run("request Close", func(t *testing.T) {
		s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			if !r.Close {
				t.Error("the server did not see Connection: close")
			}
		})
		tr := newTransport(t, Options{})
		req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
		req.Close = true
		if _, err := tr.RoundTrip(req); err != nil {
			t.Fatal(err)
		}
		if tr.idleCount() != 0 {
			t.Error("a req.Close request left its connection pooled")
		}
	})
	t.Run("HTTP/1.0", func(t *testing.T) {
		closedByClient := make(chan struct{})
		s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
			c := hijack(t, w, "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\nold")
			io.Copy(io.Discard, c) // until the client closes
			c.Close()
			close(closedByClient)
		})
		tr := newTransport(t, Options{})
		if _, b := get(t, tr, s.URL); b != "old" {
			t.Fatalf("body %q", b)
		}
		if tr.idleCount() != 0 {
			t.Error("an HTTP/1.0 response left its connection pooled")
		}
		waitFor(t, closedByClient, "the client to close the HTTP/1.0 connection")
	})
}

func TestResponseOverCap(t *testing.T) {
	const limit = 1000
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if r.URL.Query().Get("chunked") == "" {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		for range n / 100 {
			w.Write(bytes.Repeat([]byte("b"), 100))
			w.(http.Flusher).Flush()
		}
	})
	for _, chunked := range []string{"", "1"} {
		t.Run("chunked="+chunked, func(t *testing.T) {
			tr := newTransport(t, Options{MaxResponseBytes: limit})
			if _, b := get(t, tr, fmt.Sprintf("%s/?n=%d&chunked=%s", s.URL, limit, chunked)); len(b) != limit {
				t.Fatalf("a body of exactly the cap: %d bytes", len(b))
			}
			req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/?n=%d&chunked=%s", s.URL, limit+100, chunked), nil)
			resp, err := tr.RoundTrip(req)
			if err == nil || !strings.Contains(err.Error(), "cap") {
				t.Fatalf("over the cap: %v, %v", resp, err)
			}
			if tr.idleCount() != 0 {
				t.Error("the connection of an over-cap body was pooled")
			}
		})
	}
}

// hangingServer answers nothing until the test ends, or 10 s passed (so a
// transport that ignores its context fails the test instead of hanging it);
// received gets one value per request it is holding.
func hangingServer(t *testing.T) (*server, <-chan struct{}) {
	received := make(chan struct{}, 4)
	release := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		received <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		case <-time.After(10 * time.Second):
			io.WriteString(w, "too late")
		}
	})
	t.Cleanup(func() { close(release) }) // runs before s.Close
	return s, received
}

func TestContextDeadline(t *testing.T) {
	s, _ := hangingServer(t)
	tr := newTransport(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, strings.NewReader("{}"))
	resp, err := tr.RoundTrip(req)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, %v; want context.DeadlineExceeded", resp, err)
	}
	if tr.idleCount() != 0 {
		t.Error("a timed-out connection was pooled")
	}
}

func TestContextCancel(t *testing.T) {
	s, received := hangingServer(t)
	tr := newTransport(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-received
		cancel()
	}()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, strings.NewReader("{}"))
	resp, err := tr.RoundTrip(req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, %v; want context.Canceled", resp, err)
	}
	if !strings.Contains(err.Error(), phaseRead) {
		t.Errorf("%v: want it to say the request was sent", err)
	}
	if tr.idleCount() != 0 {
		t.Error("a cancelled connection was pooled")
	}
}

// resetServer answers /ok and resets the connection of /reset after reading
// the whole request, counting those requests.
func resetServer(t *testing.T) (*server, *atomic.Int64) {
	var resets atomic.Int64
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/reset" {
			io.WriteString(w, "ok")
			return
		}
		io.ReadAll(r.Body)
		resets.Add(1)
		c, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		c.(*net.TCPConn).SetLinger(0)
		c.Close()
	})
	return s, &resets
}

// TestResetAfterFullWriteIsNotRetried: the request reached the server, so
// it may have acted; the failure is returned, not retried, even on a
// reused connection with a replayable body.
func TestResetAfterFullWriteIsNotRetried(t *testing.T) {
	s, resets := resetServer(t)
	tr := newTransport(t, Options{})
	get(t, tr, s.URL+"/ok") // the next request reuses this connection
	req, _ := http.NewRequest(http.MethodPost, s.URL+"/reset", strings.NewReader(`{"settle":1}`))
	if req.GetBody == nil {
		t.Fatal("want a replayable body, to show it is still not replayed")
	}
	resp, err := tr.RoundTrip(req)
	if err == nil {
		t.Fatalf("got %v, want an error", resp)
	}
	if !strings.Contains(err.Error(), phaseRead) {
		t.Errorf("%v: want it to say the request was sent", err)
	}
	if n := resets.Load(); n != 1 {
		t.Errorf("the server got the request %d times, want 1", n)
	}
	if n := s.conns.Load(); n != 1 {
		t.Errorf("%d connections, want 1 (no retry on a new one)", n)
	}
}

// TestWriteFailureOnReusedConnectionIsRetried: an idle connection reset
// after the liveness probe passed (forced here) refuses the first write, so
// the server saw nothing and the request goes once on a new connection;
// a body without GetBody is not replayed.
func TestWriteFailureOnReusedConnectionIsRetried(t *testing.T) {
	for _, replayable := range []bool{true, false} {
		t.Run(fmt.Sprintf("replayable=%v", replayable), func(t *testing.T) {
			var served atomic.Int64
			gone := make(chan struct{}, 1)
			s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
				served.Add(1)
				if r.URL.Path == "/then-reset" {
					c := hijack(t, w, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
					c.(*net.TCPConn).SetLinger(0)
					c.Close()
					gone <- struct{}{}
					return
				}
				b, _ := io.ReadAll(r.Body)
				w.Write(b)
			})
			tr := newTransport(t, Options{})
			probed := 0
			tr.usableHook = func(*conn) bool { probed++; return true }
			get(t, tr, s.URL+"/then-reset")
			waitFor(t, gone, "the server to reset")
			req, _ := http.NewRequest(http.MethodPost, s.URL+"/echo", strings.NewReader("payload"))
			if !replayable {
				req.GetBody = nil
			}
			resp, err := tr.RoundTrip(req)
			if probed != 1 {
				t.Fatalf("%d probes, want the reset connection reused once", probed)
			}
			if !replayable {
				if err == nil || !strings.Contains(err.Error(), phaseWrite) {
					t.Fatalf("got %v, %v; want a write error", resp, err)
				}
				if served.Load() != 1 || s.conns.Load() != 1 {
					t.Errorf("%d requests on %d connections: want no retry", served.Load(), s.conns.Load())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := io.ReadAll(resp.Body); string(b) != "payload" {
				t.Errorf("body %q", b)
			}
			if served.Load() != 2 || s.conns.Load() != 2 {
				t.Errorf("%d requests on %d connections: want 2 on 2 (the retried one once)", served.Load(), s.conns.Load())
			}
		})
	}
}

// trackedBody records whether it was closed.
type trackedBody struct {
	io.Reader
	closed bool
}

func (b *trackedBody) Close() error { b.closed = true; return nil }

func TestRefused(t *testing.T) {
	tr := newTransport(t, Options{})
	for _, tc := range []struct {
		name, url string
		header    http.Header
	}{
		{"https", "https://127.0.0.1:1/settle", nil},
		{"no host", "http:///settle", nil},
		{"header injection", "http://127.0.0.1:1/settle", http.Header{"X-A": {"1\r\nX-Injected: 1"}}},
		{"bad header name", "http://127.0.0.1:1/settle", http.Header{"X A": {"1"}}},
	} {
		body := &trackedBody{Reader: strings.NewReader("{}")}
		req, err := http.NewRequest(http.MethodPost, tc.url, body)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range tc.header {
			req.Header[k] = v
		}
		if resp, err := tr.RoundTrip(req); err == nil {
			t.Errorf("%s: got %v, want an error", tc.name, resp)
		}
		if !body.closed {
			t.Errorf("%s: the request body was not closed", tc.name)
		}
	}
}

func TestEligible(t *testing.T) {
	for _, k := range []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy", "REQUEST_METHOD"} {
		t.Setenv(k, "")
	}
	for url, want := range map[string]bool{
		"http://127.0.0.1:1/x":        true,
		"http://10.9.8.7:8545/":       true,
		"http://facilitator.lan/v2":   true,
		"https://127.0.0.1:1/x":       false,
		"https://facilitator.example": false,
		"http:///x":                   false,
		"://nope":                     false,
	} {
		if got := Eligible(url); got != want {
			t.Errorf("no proxy: Eligible(%q) = %v, want %v", url, got, want)
		}
	}
	t.Setenv("HTTP_PROXY", "http://proxy.test:3128")
	t.Setenv("NO_PROXY", "facilitator.lan")
	for url, want := range map[string]bool{
		"http://10.9.8.7:8545/":     false, // would go through the proxy
		"http://127.0.0.1:1/x":      true,  // loopback is never proxied
		"http://localhost:8402/":    true,
		"http://facilitator.lan/v2": true, // NO_PROXY
	} {
		if got := Eligible(url); got != want {
			t.Errorf("HTTP_PROXY set: Eligible(%q) = %v, want %v", url, got, want)
		}
	}
}

// BenchmarkRoundTrip compares one settle-sized exchange (1.5 KiB posted,
// ~300 bytes answered) with a loopback server, through this transport and
// through net/http's. ns/op and cpu-ns/op include the server's share, the
// same in both.
func BenchmarkRoundTrip(b *testing.B) {
	reply := append([]byte(`{"success":true,"transaction":"0x`), bytes.Repeat([]byte("a"), 260)...)
	reply = append(reply, `"}`...)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Write(reply)
	}))
	defer s.Close()
	payload := bytes.Repeat([]byte("p"), 1536)
	for _, bc := range []struct {
		name string
		rt   http.RoundTripper
	}{
		{"direct", New(Options{})},
		{"nethttp", &http.Transport{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := processCPU()
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/settle", bytes.NewReader(payload))
				req.Header.Set("Content-Type", "application/json")
				resp, err := bc.rt.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				if n, _ := io.Copy(io.Discard, resp.Body); n != int64(len(reply)) {
					b.Fatalf("%d bytes", n)
				}
				resp.Body.Close()
				cancel()
			}
			if cpu := processCPU() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			}
		})
		if c, ok := bc.rt.(interface{ CloseIdleConnections() }); ok {
			c.CloseIdleConnections()
		}
	}
}

// TestARefusedDialSaysSo: a connection refused is a *net.OpError of Op
// "dial" through RoundTrip's error, so a caller knows nothing was sent.
func TestARefusedDialSaysSo(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/settle", strings.NewReader("{}"))
	_, err = New(Options{}).RoundTrip(req)
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "dial" {
		t.Fatalf("err = %v, want a dial *net.OpError", err)
	}
}
