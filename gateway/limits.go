package gateway

import (
	"errors"
	"io"
	"net"
	"net/http"
	"time"
)

// errSlowBody is a request body that fell behind the minimum rate.
var errSlowBody = errors.New("request body arrived slower than limits.body_min_rate")

// errBodiesFull is a body that would take the bytes of all bodies in
// flight past limits.max_body_bytes.
var errBodiesFull = errors.New("request bodies in flight are at limits.max_body_bytes")

// guard is the outermost handler. A request body must make steady
// progress: its first limits.body_min_rate x body_rate_window bytes within
// limits.body_timeout, then as many within each window after, so a client
// trickling its body, or sending most of it and then idling, is cut off
// instead of holding a connection, a goroutine and the bytes it sent. The
// deadline is set before the handler runs: net/http drains a body the
// handler did not read (a refusal), and that drain is bounded by it too.
// Every body's bytes count against limits.max_body_bytes until its
// request ends.
func (s *Server) guard(next http.Handler) http.Handler {
	lim := s.cfg.Limits
	window := time.Duration(lim.BodyRateWindow)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
			b := &pacedBody{ReadCloser: r.Body, w: w, rc: http.NewResponseController(w), s: s,
				window: window, quota: max(1, lim.BodyMinRate*int64(window)/int64(time.Second))}
			b.rc.SetReadDeadline(time.Now().Add(time.Duration(lim.BodyTimeout)))
			r.Body = b
			defer b.release()
		}
		next.ServeHTTP(w, r)
	})
}

// pacedBody enforces the body's progress and its share of the bytes in
// flight on each read.
type pacedBody struct {
	io.ReadCloser
	w      http.ResponseWriter
	rc     *http.ResponseController
	s      *Server
	window time.Duration
	quota  int64 // bytes each window must bring
	got    int64 // bytes in the current window
	held   int64 // bytes counted in s.bodyBytes
	done   bool
}

func (b *pacedBody) Read(p []byte) (int, error) {
	if b.done {
		return b.ReadCloser.Read(p)
	}
	room := b.s.cfg.Limits.MaxBodyBytes - b.s.bodyBytes.Load()
	if room <= 0 {
		b.done = true
		b.w.Header().Set("Connection", "close")
		b.s.metrics.shed.WithLabelValues("body_bytes").Inc()
		return 0, errBodiesFull
	}
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.ReadCloser.Read(p)
	b.held += int64(n)
	b.s.bodyBytes.Add(int64(n))
	switch {
	case err == io.EOF:
		b.done = true
		// The connection's reads after the body (net/http's watch for a
		// client that leaves) must not inherit the deadline.
		b.rc.SetReadDeadline(time.Time{})
	case err != nil:
		b.done = true
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			b.w.Header().Set("Connection", "close")
			b.s.metrics.shed.WithLabelValues("slow_body").Inc()
			return n, errSlowBody
		}
	default:
		// A window that brought its quota opens the next: the deadline
		// moves only then, never by credit saved from earlier bytes.
		if b.got += int64(n); b.got >= b.quota {
			b.got = 0
			b.rc.SetReadDeadline(time.Now().Add(b.window))
		}
	}
	return n, err
}

// release gives the body's bytes back to limits.max_body_bytes once its
// request has ended (the handler held them until then).
func (b *pacedBody) release() { b.s.bodyBytes.Add(-b.held) }

// admit takes a place among the calls in flight, or refuses with a 503
// the client may retry: limits.max_in_flight bounds the work (and upstream
// spend) one farebox takes on at once.
func (s *Server) admit() (release func(), err error) {
	if s.busy.Add(1) > int64(s.cfg.Limits.MaxInFlight) {
		s.busy.Add(-1)
		s.metrics.shed.WithLabelValues("in_flight").Inc()
		return nil, errOverloaded("calls in flight")
	}
	return func() { s.busy.Add(-1) }, nil
}

// connCap is limits.max_connections, lowered to what the file descriptor
// limit leaves room for (a process out of descriptors cannot even answer
// /healthz).
func connCap(configured int) int {
	fds := fdLimit()
	if fds <= 0 {
		return configured
	}
	const reserve = 256 // upstreams, the chain, Redis, logs, the probe server
	return min(configured, max(16, fds-reserve))
}
