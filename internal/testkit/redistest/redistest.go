// Package redistest starts a real, throwaway redis-server for tests: on a
// free loopback port, without persistence, stopped when the test ends.
// scripts/test.sh installs redis-server; Start skips under -short.
package redistest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/testenv"
)

// Start runs a fresh redis-server and returns its "127.0.0.1:port" address.
// It skips under -short, and otherwise fails the test (never skips it) when
// redis-server is missing or cannot start.
func Start(t testing.TB) string {
	t.Helper()
	testenv.SkipShort(t, "redis-server")
	bin, err := testenv.Binary("redis-server", "redis-server")
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	var last error
	for range 5 { // a free port can be taken between probe and bind: retry
		addr, err := start(t, bin)
		if err == nil {
			return addr
		}
		last = err
	}
	t.Fatalf("redistest: %v", last)
	return ""
}

// start launches one server on a free port and waits until it answers PING.
func start(t testing.TB, bin string) (string, error) {
	port, err := freePort()
	if err != nil {
		return "", err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	var out bytes.Buffer
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--daemonize", "no",
		"--dir", t.TempDir(), "--logfile", "")
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("starting %s: %w", bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for {
		if ping(addr) == nil {
			t.Cleanup(stop)
			return addr, nil
		}
		select {
		case <-exited:
			return "", fmt.Errorf("redis-server on %s exited: %s", addr, tail(out.Bytes()))
		case <-ctx.Done():
			stop()
			return "", fmt.Errorf("redis-server on %s did not answer PING: %s", addr, tail(out.Bytes()))
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
