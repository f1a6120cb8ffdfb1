// Package haproxytest runs a real HAProxy (the Debian package, which
// scripts/test.sh installs) in front of HTTP backends for tests: round
// robin, a health check on /readyz, connection failures retried on
// another server, and the serving backend's name in a response header.
package haproxytest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/farebox/farebox/internal/testkit/testenv"
)

// ServerHeader is the response header naming the backend that answered
// (its index in Start's list, as "r0", "r1", ...).
const ServerHeader = "X-Test-Backend"

// LB is a running HAProxy.
type LB struct {
	URL  string // http://127.0.0.1:port of the frontend
	mu   sync.Mutex
	logs bytes.Buffer
}

// Logs is what HAProxy printed (its warnings, servers going down).
func (lb *LB) Logs() string {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.logs.String()
}

func (lb *LB) Write(p []byte) (int, error) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.logs.Write(p)
}

// config is HAProxy's configuration: a backend that is down stops getting
// requests after one failed check (every 200 ms); a request whose
// connection fails is sent again, to another server (redispatch), so a
// killed backend costs only the requests it was answering.
const config = `global
  maxconn 512
defaults
  mode http
  timeout connect 500ms
  timeout client 120s
  timeout server 120s
  timeout http-request 30s
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response
  option http-buffer-request
frontend fe
  bind 127.0.0.1:%d
  default_backend farebox
backend farebox
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  default-server check inter 200ms fall 1 rise 2
  http-response set-header ` + ServerHeader + ` %%[srv_name]
%s`

// Start runs haproxy in front of backends ("127.0.0.1:port" each) and
// waits until the frontend answers /readyz through a backend. It skips
// under -short; it fails the test when haproxy is missing.
func Start(t testing.TB, backends []string) *LB {
	t.Helper()
	testenv.SkipShort(t, "haproxy")
	bin, err := testenv.Binary("haproxy", "haproxy")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/haproxy"); serr != nil {
			t.Fatalf("haproxytest: %v", err)
		}
		bin = "/usr/sbin/haproxy" // Debian installs it outside a user's PATH
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	var servers strings.Builder
	for i, b := range backends {
		fmt.Fprintf(&servers, "  server r%d %s\n", i, b)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(config, port, servers.String())), 0o600); err != nil {
		t.Fatal(err)
	}
	lb := &LB{URL: fmt.Sprintf("http://127.0.0.1:%d", port)}
	cmd := exec.Command(bin, "-db", "-f", cfg)
	cmd.Stdout, cmd.Stderr = lb, lb
	if err := cmd.Start(); err != nil {
		t.Fatalf("haproxytest: starting %s: %v", bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(lb.URL + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return lb
			}
		}
		select {
		case <-exited:
			t.Fatalf("haproxytest: haproxy exited: %s", lb.Logs())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("haproxytest: no backend became ready behind haproxy: %s", lb.Logs())
		}
	}
}

// WaitUp waits until every one of n backends answered a request through
// the frontend (roundrobin spreads them once all are up).
func (lb *LB) WaitUp(t testing.TB, n int) {
	t.Helper()
	seen := map[string]bool{}
	for deadline := time.Now().Add(30 * time.Second); len(seen) < n; time.Sleep(20 * time.Millisecond) {
		if res, err := http.Get(lb.URL + "/readyz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				seen[res.Header.Get(ServerHeader)] = true
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("haproxytest: only %v of %d backends answered: %s", seen, n, lb.Logs())
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
