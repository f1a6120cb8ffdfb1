package faultproxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// node is a JSON-RPC stand-in whose head moves with every call.
func node(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var head atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := head.Add(1)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":"0x`+itoa16(n)+`"}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &head
}

func itoa16(n int64) string { return strconv.FormatInt(n, 16) }

func get(url string, timeout time.Duration) (int, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`))
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	res, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), nil
}

func TestProxyRefusesHangsAndHeals(t *testing.T) {
	srv, _ := node(t)
	p := Start(t, strings.TrimPrefix(srv.URL, "http://"))
	if s, _, err := get(p.URL(), 5*time.Second); err != nil || s != 200 {
		t.Fatalf("through the proxy: %d %v", s, err)
	}
	p.Refuse()
	if _, _, err := get(p.URL(), 5*time.Second); err == nil {
		t.Fatal("a refusing proxy answered")
	}
	p.Accept()
	if s, _, err := get(p.URL(), 5*time.Second); err != nil || s != 200 {
		t.Fatalf("after Accept, on the same address: %d %v", s, err)
	}
	p.Hang()
	if _, _, err := get(p.URL(), 300*time.Millisecond); err == nil {
		t.Fatal("a hung proxy answered")
	}
	p.Heal()
	if s, _, err := get(p.URL(), 5*time.Second); err != nil || s != 200 {
		t.Fatalf("after Heal: %d %v", s, err)
	}
}

func TestRPCFailsAndLags(t *testing.T) {
	srv, head := node(t)
	r := StartRPC(t, srv.URL)
	r.Fail(http.StatusBadGateway)
	if s, _, err := get(r.URL(), 5*time.Second); err != nil || s != http.StatusBadGateway {
		t.Fatalf("failing node: %d %v", s, err)
	}
	r.Heal()
	r.Lag()
	frozen := head.Load()
	for range 3 {
		_, body, err := get(r.URL(), 5*time.Second)
		if err != nil || !strings.Contains(body, `"0x`+itoa16(frozen)+`"`) {
			t.Fatalf("a lagging node's head: %s %v, want block %d", body, err, frozen)
		}
	}
	if head.Load() != frozen {
		t.Errorf("a lagging node asked the chain for its head %d times", head.Load()-frozen)
	}
	r.Heal()
	if _, body, _ := get(r.URL(), 5*time.Second); strings.Contains(body, `"0x`+itoa16(frozen)+`"`) {
		t.Errorf("healed node still at block %d: %s", frozen, body)
	}
}
