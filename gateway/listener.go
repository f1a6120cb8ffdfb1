package gateway

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/farebox/farebox/responses"
)

// connLimiter is the listener farebox serves on: it holds at most max
// connections open. A connection over the cap is never queued: a probe
// (GET /healthz, /readyz, /metrics) is still answered, by a server of its own, so an
// orchestrator sees a busy farebox as alive; anything else gets a 503 at
// once and is closed.
type connLimiter struct {
	net.Listener
	s      *Server
	max    int64
	open   *atomic.Int64
	probes *probeListener
	triage chan struct{} // bounds the goroutines answering over-cap connections
}

// triageBudget is how many over-cap connections are looked at at once;
// beyond it they are closed unanswered.
const triageBudget = 256

func (s *Server) limitListener(ln net.Listener) *connLimiter {
	return &connLimiter{Listener: ln, s: s, max: int64(s.maxConns), open: &s.conns,
		probes: newProbeListener(ln.Addr()), triage: make(chan struct{}, triageBudget)}
}

// Accept returns the next connection within the cap.
func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max {
			return &conn{Conn: c, open: l.open, s: l.s}, nil
		}
		l.open.Add(-1)
		l.s.metrics.shed.WithLabelValues("connections").Inc()
		select {
		case l.triage <- struct{}{}:
			go l.answerOverCap(c)
		default:
			c.Close()
		}
	}
}

// answerOverCap reads the request line of a connection over the cap: a
// probe goes to the probe server, anything else gets the 503.
func (l *connLimiter) answerOverCap(c net.Conn) {
	defer func() { <-l.triage }()
	c.SetReadDeadline(time.Now().Add(time.Second))
	br := bufio.NewReaderSize(c, 512)
	line, err := br.ReadSlice('\n')
	if err == nil && isProbe(line) {
		c.SetReadDeadline(time.Time{})
		r := io.MultiReader(bytes.NewReader(bytes.Clone(line)), br)
		if l.probes.push(&peekedConn{Conn: c, r: r}) {
			return
		}
	}
	c.SetWriteDeadline(time.Now().Add(time.Second))
	c.Write(l.s.overCapAnswer)
	if tc, ok := c.(*net.TCPConn); ok {
		// Half-close and drain briefly, so the client reads the 503
		// instead of a reset caused by its unread request bytes.
		tc.CloseWrite()
		c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		var buf [4096]byte
		for n := 0; n < 64<<10; {
			k, err := c.Read(buf[:])
			if err != nil {
				break
			}
			n += k
		}
	}
	c.Close()
}

// isProbe says whether a request line is a probe or a metrics scrape:
// both must answer while the cap is reached.
func isProbe(line []byte) bool {
	for _, p := range [...]string{"GET /healthz ", "GET /readyz ", "GET /metrics "} {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return false
}

// rawAnswer renders a whole HTTP/1.1 answer carrying an OpenAI error, for
// the places below HTTP where echo cannot answer: the connection cap, and
// the refusals Go's server writes itself.
func rawAnswer(e *responses.Error) []byte {
	body := errorBody(e)
	b := []byte("HTTP/1.1 " + strconv.Itoa(e.Status) + " " + http.StatusText(e.Status) + "\r\n")
	b = append(b, "Content-Type: application/json\r\nConnection: close\r\n"...)
	if e.RetryAfter > 0 {
		b = append(b, "Retry-After: "+strconv.Itoa(max(1, int(e.RetryAfter.Seconds())))+"\r\n"...)
		b = append(b, "Retry-After-Ms: "+strconv.FormatInt(e.RetryAfter.Milliseconds(), 10)+"\r\n"...)
	}
	if e.Status == http.StatusBadRequest {
		b = append(b, "X-Should-Retry: false\r\n"...)
	}
	b = append(b, "Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"...)
	return append(b, body...)
}

// conn is one accepted connection: it gives its place under the cap back
// when closed, and turns the plain-text refusals Go's server writes by
// itself (431 for headers over MaxHeaderBytes, 400 for a malformed request)
// into OpenAI error objects.
type conn struct {
	net.Conn
	open   *atomic.Int64
	s      *Server
	closed atomic.Bool
}

// goRefusal is how net/http writes its own refusals: a status line, then
// exactly these headers (a handler's answer never has Content-Type before
// Connection: net/http sorts headers), then the status text as the body.
var goRefusal = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")

func (c *conn) Write(p []byte) (int, error) {
	if len(p) > 13 && p[9] == '4' && bytes.HasPrefix(p, []byte("HTTP/1.1 4")) {
		if i := bytes.Index(p, goRefusal); i > 0 && bytes.IndexByte(p[:i], '\n') < 0 {
			if code, err := strconv.Atoi(string(p[9:12])); err == nil {
				if _, err := c.Conn.Write(rawAnswer(errFromNetHTTP(code, string(p[i+len(goRefusal):])))); err != nil {
					return 0, err
				}
				return len(p), nil
			}
		}
	}
	return c.Conn.Write(p)
}

func (c *conn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.open.Add(-1)
	}
	return c.Conn.Close()
}

// peekedConn is a connection whose first bytes were already read.
type peekedConn struct {
	net.Conn
	r io.Reader
}

func (c *peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// probeListener hands over-cap probe connections to the probe server.
type probeListener struct {
	addr net.Addr
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newProbeListener(addr net.Addr) *probeListener {
	return &probeListener{addr: addr, ch: make(chan net.Conn, 16), done: make(chan struct{})}
}

func (p *probeListener) push(c net.Conn) bool {
	select {
	case p.ch <- c:
		return true
	case <-p.done:
		return false
	default:
		return false
	}
}

func (p *probeListener) Accept() (net.Conn, error) {
	select {
	case c := <-p.ch:
		return c, nil
	case <-p.done:
		return nil, net.ErrClosed
	}
}

func (p *probeListener) Close() error {
	p.once.Do(func() { close(p.done) })
	return nil
}

func (p *probeListener) Addr() net.Addr { return p.addr }
