// Package redistest starts a real, throwaway redis-server for tests: on a
// free loopback port, without persistence unless asked, stopped when the
// test ends. A Server can be stopped and started again on the same port
// (the fault tests: Redis unreachable, restarted with or without its
// data). scripts/test.sh installs redis-server; Start skips under -short.
package redistest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/testenv"
)

// Options shape a Server.
type Options struct {
	// Persist runs the server with an append-only file fsynced on every
	// write, so a Restart keeps every acknowledged write (a Redis given
	// persistence as the operator docs ask).
	Persist bool
}

// Server is one redis-server process at a fixed address, which a test may
// stop and start again.
type Server struct {
	t    testing.TB
	bin  string
	port int
	dir  string
	opts Options

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Start runs a fresh redis-server and returns its "127.0.0.1:port" address.
// It skips under -short, and otherwise fails the test (never skips it) when
// redis-server is missing or cannot start.
func Start(t testing.TB) string {
	t.Helper()
	return StartServer(t, Options{}).Addr()
}

// StartServer is Start returning the Server, to stop and restart it.
func StartServer(t testing.TB, opts Options) *Server {
	t.Helper()
	testenv.SkipShort(t, "redis-server")
	bin, err := testenv.Binary("redis-server", "redis-server")
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	var last error
	for range 5 { // a free port can be taken between probe and bind: retry
		port, err := freePort()
		if err != nil {
			last = err
			continue
		}
		s := &Server{t: t, bin: bin, port: port, dir: t.TempDir(), opts: opts}
		if err := s.launch(); err != nil {
			last = err
			continue
		}
		t.Cleanup(func() { s.Stop() })
		return s
	}
	t.Fatalf("redistest: %v", last)
	return nil
}

// Addr is "127.0.0.1:port", the same across restarts.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Stop ends the server (SIGTERM: with Persist, the append-only file is
// flushed first) and waits until it exited. Stopping a stopped server
// does nothing.
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd = nil
}

// Start runs the server again on its port: with Persist it loads the data
// it had, without it it starts empty. It fails the test when the server
// does not come back.
func (s *Server) Start() {
	s.t.Helper()
	var err error
	for range 50 { // the port may linger briefly after the stop
		if err = s.launch(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.t.Fatalf("redistest: restarting: %v", err)
}

// Restart is Stop then Start.
func (s *Server) Restart() {
	s.t.Helper()
	s.Stop()
	s.Start()
}

// launch starts one process on s.port and waits until it answers PING.
func (s *Server) launch() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return fmt.Errorf("redis-server on %s is already running", s.Addr())
	}
	args := []string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "",
		"--daemonize", "no", "--dir", s.dir, "--logfile", ""}
	if s.opts.Persist {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	out := new(bytes.Buffer)
	cmd := exec.Command(s.bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", s.bin, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	kill := func() {
		_ = cmd.Process.Kill()
		<-done
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for {
		if ping(s.Addr()) == nil {
			s.cmd, s.done = cmd, done
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("redis-server on %s exited: %s", s.Addr(), tail(out.Bytes()))
		case <-ctx.Done():
			kill()
			return fmt.Errorf("redis-server on %s did not answer PING: %s", s.Addr(), tail(out.Bytes()))
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// freePort asks the kernel for an unused loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// ping speaks just enough RESP to know the server is serving.
func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", line)
	}
	return nil
}

// tail keeps the end of a command's output for an error message.
func tail(b []byte) string {
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
