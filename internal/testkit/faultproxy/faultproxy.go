// Package faultproxy puts a fault between farebox and one of its
// dependencies in a test: a Toxiproxy proxy (used as a Go library, no
// daemon) in front of a TCP address, which the test makes refuse
// connections, hang, or slow down, and heal again; and RPC, an HTTP proxy
// in front of a JSON-RPC node that answers 5xx or lags blocks behind, the
// faults that live above TCP.
package faultproxy

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// Proxy is a Toxiproxy proxy on a loopback port of its own, forwarding to
// one upstream address. Its address stays the same across Refuse and
// Accept, as a dependency's address does across its restarts.
type Proxy struct {
	t     testing.TB
	mu    sync.Mutex
	p     *toxiproxy.Proxy
	addr  string
	toxic []string
}

// Start runs a proxy in front of upstream ("host:port"), stopped when the
// test ends.
func Start(t testing.TB, upstream string) *Proxy {
	t.Helper()
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.New(io.Discard))
	p := toxiproxy.NewProxy(srv, "fault-"+strings.ReplaceAll(upstream, ":", "-"), "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		t.Fatalf("faultproxy: %v", err)
	}
	fp := &Proxy{t: t, p: p, addr: p.Listen}
	t.Cleanup(p.Stop)
	return fp
}

// Addr is the proxy's "127.0.0.1:port", the address to give farebox.
func (p *Proxy) Addr() string { return p.addr }

// URL is "http://" + Addr.
func (p *Proxy) URL() string { return "http://" + p.addr }

// Refuse stops the proxy: its open connections are closed and new ones are
// refused, as by a node that went down.
func (p *Proxy) Refuse() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.p.Stop()
}

// Accept starts the stopped proxy again on the same address.
func (p *Proxy) Accept() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.p.Listen = p.addr
	// The port was just freed; another process may hold it for a moment.
	var err error
	for range 50 {
		if err = p.p.Start(); err == nil || err == toxiproxy.ErrProxyAlreadyStarted {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.t.Fatalf("faultproxy: listening on %s again: %v", p.addr, err)
}

// Hang lets connections open but carries no byte either way, on the open
// connections and on new ones, until Heal: a node that accepts and never
// answers.
func (p *Proxy) Hang() {
	p.add("hang_up", "timeout", "upstream", `{"timeout":0}`)
	p.add("hang_down", "timeout", "downstream", `{"timeout":0}`)
}

// Slow delays every answer by d (each direction by half).
func (p *Proxy) Slow(d time.Duration) {
	half := d.Milliseconds() / 2
	p.add("slow_up", "latency", "upstream", fmt.Sprintf(`{"latency":%d}`, half))
	p.add("slow_down", "latency", "downstream", fmt.Sprintf(`{"latency":%d}`, half))
}

// Heal removes every toxic: bytes flow again (a hung connection is closed,
// so its caller dials again).
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, name := range p.toxic {
		if err := p.p.Toxics.RemoveToxic(context.Background(), name); err != nil {
			p.t.Errorf("faultproxy: removing %s: %v", name, err)
		}
	}
	p.toxic = nil
}

func (p *Proxy) add(name, typ, stream, attrs string) {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	js := fmt.Sprintf(`{"name":%q,"type":%q,"stream":%q,"attributes":%s}`, name, typ, stream, attrs)
	if _, err := p.p.Toxics.AddToxicJson(strings.NewReader(js)); err != nil {
		p.t.Fatalf("faultproxy: adding %s: %v", name, err)
	}
	p.toxic = append(p.toxic, name)
}
