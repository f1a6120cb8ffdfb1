//go:build !server

package main

import (
	"bytes"
	"context"
	"io"
	"os"
)

// lineReader reads stdin on its own goroutine, so a prompt or an approval
// question can also wait for Ctrl-C. It hands out whole lines, or single
// keys when the terminal allows them (approvals).
type lineReader struct {
	chunks chan []byte
	err    error // set before chunks is closed
	buf    []byte
	eof    bool
	// dropNewline drops the newline right after a single key, so "y"
	// followed by Enter is one answer, not an answer and an empty prompt.
	dropNewline bool
	tty         *os.File // non-nil: single keys are possible
}

func newLineReader(r io.Reader) *lineReader {
	l := &lineReader{chunks: make(chan []byte)}
	if f, ok := r.(*os.File); ok && isTerminal(f) {
		l.tty = f
	}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			if n > 0 {
				l.chunks <- append([]byte(nil), b[:n]...)
			}
			if err != nil {
				l.err = err
				close(l.chunks)
				return
			}
		}
	}()
	return l
}

// feed takes a chunk from the reader (nil, false: the input ended).
func (l *lineReader) feed(c []byte, ok bool) {
	if !ok {
		l.eof = true
		return
	}
	l.buf = append(l.buf, c...)
	if l.dropNewline && len(l.buf) > 0 {
		if l.buf[0] == '\n' || l.buf[0] == '\r' {
			l.buf = l.buf[1:]
		}
		l.dropNewline = false
	}
}

// line returns a complete line when one is buffered (or the rest of the
// input at its end).
func (l *lineReader) line() (string, bool) {
	if i := bytes.IndexByte(l.buf, '\n'); i >= 0 {
		s := string(bytes.TrimSuffix(l.buf[:i], []byte("\r")))
		l.buf = l.buf[i+1:]
		return s, true
	}
	if l.eof && len(l.buf) > 0 {
		s := string(l.buf)
		l.buf = nil
		return s, true
	}
	return "", false
}

// next returns the next line, or ctx's error, or the input's end.
func (l *lineReader) next(ctx context.Context) (string, error) {
	for {
		if s, ok := l.line(); ok {
			return s, nil
		}
		if l.eof {
			return "", l.endErr()
		}
		select {
		case c, ok := <-l.chunks:
			l.feed(c, ok)
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

func (l *lineReader) endErr() error {
	if l.err == nil || l.err == io.EOF {
		return io.EOF
	}
	return l.err
}

// key returns one key pressed on a terminal (Enter alone is no answer),
// or, when stdin is not a terminal, the next line.
func (l *lineReader) key(ctx context.Context) (string, error) {
	if l.tty == nil {
		return l.next(ctx)
	}
	if restore, ok := singleKeys(l.tty); ok {
		defer restore()
	}
	for {
		for len(l.buf) > 0 && (l.buf[0] == '\n' || l.buf[0] == '\r') {
			l.buf = l.buf[1:]
		}
		if len(l.buf) > 0 {
			k := string(l.buf[:1])
			l.buf = l.buf[1:]
			l.dropNewline = len(l.buf) == 0
			if len(l.buf) > 0 && (l.buf[0] == '\n' || l.buf[0] == '\r') {
				l.buf = l.buf[1:]
			}
			return k, nil
		}
		if l.eof {
			return "", l.endErr()
		}
		select {
		case c, ok := <-l.chunks:
			l.feed(c, ok)
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}
