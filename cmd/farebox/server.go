//go:build server

package main

import (
	"context"
	"fmt"
	"io"
)

// The server build (-tags server: the container image, scripts/build-static.sh)
// is the gateway and the proxy only. It leaves out `farebox dev`, whose
// in-process Ethereum node is most of go-ethereum, and the client commands
// `farebox call` and `farebox chat`, which are built on openai-go and the MCP
// SDK; each of them answers with one line saying where to find it.

// notInServerBuild is what command says in the server build.
func notInServerBuild(command string) error {
	return fmt.Errorf("%s is not in this build (the server build, -tags server, as the container image is): run `go run ./cmd/farebox %s` from a checkout, or build without -tags server", command, command)
}

var errNoDev = notInServerBuild("dev")

// DevMain stands in for `farebox dev` in the server build.
type DevMain struct{ Main }

// NewDevMain returns the stand-in, whose ParseFlags refuses.
func NewDevMain(stdout, stderr io.Writer, getenv func(string) string) *DevMain {
	return &DevMain{Main: Main{Stdout: stdout, Stderr: stderr}}
}

// ParseFlags refuses: there is no dev chain to run.
func (m *DevMain) ParseFlags([]string) error { return errNoDev }

// Run is never reached: ParseFlags refused.
func (m *DevMain) Run(context.Context) error { return errNoDev }

// runCall stands in for `farebox call` in the server build.
func runCall(context.Context, []string, io.Writer, io.Writer, func(string) string) error {
	return notInServerBuild("call")
}

// runChat stands in for `farebox chat` in the server build.
func runChat(context.Context, []string, io.Writer, io.Writer, func(string) string) error {
	return notInServerBuild("chat")
}
