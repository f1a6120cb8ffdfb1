package main

import (
	"strings"
	"testing"
)

// TestProxyCommandSaysTheUpstreamIsMissing: `farebox proxy` pointed at
// an upstream that is not there says so, naming --upstream, before it
// listens (the proxy's own refusals are tested in x402/payer/proxy).
func TestProxyCommandSaysTheUpstreamIsMissing(t *testing.T) {
	m := NewProxyMain(&syncBuffer{}, &syncBuffer{}, func(string) string { return "" })
	if err := m.ParseFlags([]string{"--upstream", "http://" + closedAddr(t) + "/v1", "--addr", "127.0.0.1:0"}); err != nil {
		t.Fatal(err)
	}
	if err := m.Run(t.Context()); err == nil || !strings.Contains(err.Error(), "--upstream") || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("no upstream: %v", err)
	}
	_ = m.Close()
}
