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

// guard is the outermost handler: a request body gets a read deadline,
// limits.body_timeout from the start, pushed back by 1/body_min_rate for
// every byte that arrives, so a client trickling its body is cut off
// instead of holding a connection and a goroutine forever. The deadline is
// set before the handler runs: net/http drains a body the handler did not
// read (a refusal), and that drain is bounded by it too.
func (s *Server) guard(next http.Handler) http.Handler {
	lim := s.cfg.Limits
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody && r.ContentLength != 0 {
			b := &pacedBody{ReadCloser: r.Body, w: w, rc: http.NewResponseController(w), start: time.Now(),
				grace: time.Duration(lim.BodyTimeout), rate: lim.BodyMinRate, s: s}
			b.rc.SetReadDeadline(b.start.Add(b.grace))
			r.Body = b
		}
		next.ServeHTTP(w, r)
	})
}

// pacedBody enforces the body deadline on each read.
type pacedBody struct {
	io.ReadCloser
	w     http.ResponseWriter
	rc    *http.ResponseController
	start time.Time
	grace time.Duration
	rate  int64
	n     int64
	done  bool
	s     *Server
}

func (b *pacedBody) Read(p []byte) (int, error) {
	if b.done {
		return b.ReadCloser.Read(p)
	}
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
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
	case n > 0:
		b.rc.SetReadDeadline(b.start.Add(b.grace + time.Duration(b.n)*time.Second/time.Duration(b.rate)))
	}
	return n, err
}

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
