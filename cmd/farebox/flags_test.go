package main

import (
	"testing"

	"github.com/farebox/farebox/x402/evm/devchain"
)

// The client commands' default key is the one `farebox dev` funds.
func TestDevPayerKeyIsTheDevChains(t *testing.T) {
	t.Parallel()
	if got, want := publicDevPayerKey, devchain.DevPayerKey; got != want {
		t.Fatalf("publicDevPayerKey = %s, want devchain.DevPayerKey %s", got, want)
	}
}
