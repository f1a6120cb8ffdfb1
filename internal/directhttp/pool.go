package directhttp

// This file is the connection pool: keep-alive connections per address,
// checked for life before reuse.

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"time"
)

// conn is one keep-alive connection, used by one exchange at a time.
type conn struct {
	nc        net.Conn
	addr      string // the pool's key: host:port
	cw        countingWriter
	bw        *bufio.Writer // over cw, writeBufferBytes
	br        *bufio.Reader // over nc
	idleSince time.Time
	live      liveness // the platform's probe of an idle connection
}

// countingWriter counts the bytes the connection accepted and keeps the
// first write error, so a failed write is known to have sent nothing.
type countingWriter struct {
	nc  net.Conn
	n   int64
	err error
}

func (w *countingWriter) Write(p []byte) (int, error) {
	n, err := w.nc.Write(p)
	w.n += int64(n)
	if err != nil && w.err == nil {
		w.err = err
	}
	return n, err
}

func newConn(nc net.Conn, addr string) *conn {
	c := &conn{nc: nc, addr: addr, cw: countingWriter{nc: nc}}
	c.bw = bufio.NewWriterSize(&c.cw, writeBufferBytes)
	c.br = bufio.NewReaderSize(nc, readBufferBytes)
	c.live.init(nc)
	return c
}

// usable reports whether an idle connection can carry a request: no
// unsolicited bytes are buffered and the peer has not closed it.
func (t *Transport) usable(c *conn) bool {
	if t.usableHook != nil {
		return t.usableHook(c)
	}
	return c.br.Buffered() == 0 && c.live.usable(time.Since(c.idleSince))
}

// getConn returns a usable idle connection to addr (reused true) or dials
// one; fresh skips the pool.
func (t *Transport) getConn(ctx context.Context, addr string, fresh bool) (c *conn, reused bool, err error) {
	for !fresh {
		c, stale := t.popIdle(addr)
		for _, s := range stale {
			s.nc.Close()
		}
		if c == nil {
			break
		}
		if t.usable(c) {
			return c, true, nil
		}
		c.nc.Close()
	}
	nc, err := t.dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			// Both: the context's end for errors.Is, the dial's *net.OpError
			// for a caller telling "nothing was sent" from "no answer".
			return nil, false, fmt.Errorf("directhttp: dialing %s: %w: %w", addr, cerr, err)
		}
		return nil, false, fmt.Errorf("directhttp: %w", err)
	}
	return newConn(nc, addr), false, nil
}

// popIdle takes the newest idle connection to addr. If it idled too long,
// it and all the older ones come back as stale, to close, instead.
func (t *Transport) popIdle(addr string) (c *conn, stale []*conn) {
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	list := t.idle[addr]
	n := len(list)
	if n == 0 {
		return nil, nil
	}
	c = list[n-1]
	list[n-1] = nil
	list = list[:n-1]
	if now.Sub(c.idleSince) > t.idleTimeout {
		stale = append(append(make([]*conn, 0, n), list...), c)
		clear(list)
		list, c = list[:0], nil
	}
	t.idle[addr] = list
	return c, stale
}

// putConn pools c as the newest idle connection to its host, making room by
// dropping the oldest ones: past IdleTimeout, or beyond MaxIdlePerHost.
func (t *Transport) putConn(c *conn) {
	now := time.Now()
	c.idleSince = now
	var drop []*conn
	t.mu.Lock()
	list := t.idle[c.addr]
	k := 0
	for k < len(list) && (len(list)-k >= t.maxIdlePerHost || now.Sub(list[k].idleSince) > t.idleTimeout) {
		k++
	}
	if k > 0 {
		drop = append(drop, list[:k]...)
		n := copy(list, list[k:])
		clear(list[n:])
		list = list[:n]
	}
	t.idle[c.addr] = append(list, c)
	t.mu.Unlock()
	for _, d := range drop {
		d.nc.Close()
	}
}

// CloseIdleConnections closes every pooled connection, so a caller shutting
// down (or a test) leaves no sockets open; connections in use are unaffected.
func (t *Transport) CloseIdleConnections() {
	t.mu.Lock()
	idle := t.idle
	t.idle = make(map[string][]*conn)
	t.mu.Unlock()
	for _, list := range idle {
		for _, c := range list {
			c.nc.Close()
		}
	}
}
