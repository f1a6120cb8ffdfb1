//go:build unix

package directhttp

import (
	"net"
	"syscall"
	"time"
)

// liveness probes an idle connection with one non-blocking read(2) on the
// caller's goroutine. Go's sockets are non-blocking, so the read returns
// EAGAIN while the connection is open and quiet; it returns 0 (EOF) once the
// peer closed it, or an error once it reset it, or bytes nobody asked for.
//
// A read deadline in the past would not do: net fails such a Read before
// calling read(2), so a closed peer would look alive.
type liveness struct {
	rc    syscall.RawConn // nil: not a socket, assumed usable
	probe func(fd uintptr) bool
	n     int
	err   error
	buf   [1]byte
}

func (l *liveness) init(nc net.Conn) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	l.rc = rc
	// Built once per connection, so a probe allocates nothing.
	l.probe = func(fd uintptr) bool {
		l.n, l.err = syscall.Read(int(fd), l.buf[:])
		return true // one attempt: never wait for readiness
	}
}

// usable reports whether the connection is open and has nothing to read.
func (l *liveness) usable(time.Duration) bool {
	if l.rc == nil {
		return true
	}
	if err := l.rc.Read(l.probe); err != nil {
		return false
	}
	return l.err == syscall.EAGAIN || l.err == syscall.EWOULDBLOCK
}
