// Package redistest starts a real, throwaway redis-server for tests: on a
// free loopback port, without persistence, stopped when the test ends. When
// redis-server is not on PATH it installs Debian's package (the machines run
// as root), once, under a lock shared by parallel test binaries.
package redistest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// lockPath serialises installs across test binaries running in parallel.
var lockPath = filepath.Join(os.TempDir(), "farebox-redistest-install.lock")

// Start runs a fresh redis-server and returns its "127.0.0.1:port" address.
// It fails the test (never skips it) when redis cannot be installed or
// started.
func Start(t testing.TB) string {
	t.Helper()
	bin, err := binary()
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

// binary finds redis-server, installing it first when it is missing.
func binary() (string, error) {
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, nil
	}
	f, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", fmt.Errorf("install lock: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("install lock: %w", err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, nil // another test binary installed it while we waited
	}
	for _, args := range [][]string{{"update"}, {"install", "-y", "--no-install-recommends", "redis-server"}} {
		cmd := exec.Command("apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("apt-get %v: %v\n%s", args, err, tail(out))
		}
	}
	for _, p := range []string{"redis-server", "/usr/bin/redis-server"} {
		if p, err := exec.LookPath(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("redis-server not found after installing it")
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
