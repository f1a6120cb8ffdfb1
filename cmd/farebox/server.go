//go:build nodev

package main

import (
	"context"
	"errors"
	"io"
)

// errNoDev is what `farebox dev` says in a build without it: the
// production binary (Dockerfile, scripts/build-static.sh) is built with
// -tags nodev so it does not carry go-ethereum's in-process node.
var errNoDev = errors.New("dev is not in this build (built with -tags nodev, as the container image is): run `go run ./cmd/farebox dev` from a checkout, or build without -tags nodev")

// DevMain stands in for `farebox dev` in a build without it.
type DevMain struct{ Main }

// NewDevMain returns the stand-in, whose ParseFlags refuses.
func NewDevMain(stdout, stderr io.Writer, getenv func(string) string) *DevMain {
	return &DevMain{Main: Main{Stdout: stdout, Stderr: stderr}}
}

// ParseFlags refuses: there is no dev chain to run.
func (m *DevMain) ParseFlags([]string) error { return errNoDev }

// Run is never reached: ParseFlags refused.
func (m *DevMain) Run(context.Context) error { return errNoDev }
