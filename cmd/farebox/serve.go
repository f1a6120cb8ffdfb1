package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/farebox/farebox/gateway"
)

// ServeMain is `farebox serve`: the gateway from a config file, the
// environment and flags.
type ServeMain struct {
	Main
	// ConfigPath is the YAML file read by ParseFlags.
	ConfigPath string
	getenv     func(string) string
}

// NewServeMain returns a serve command writing to stdout and stderr and
// reading the environment through getenv.
func NewServeMain(stdout, stderr io.Writer, getenv func(string) string) *ServeMain {
	return &ServeMain{Main: Main{Stdout: stdout, Stderr: stderr, AddrFlag: "--addr (or addr in the config, FAREBOX_ADDR)"}, getenv: getenv}
}

// ParseFlags reads the flags, the config file and the FAREBOX_* variables,
// in that order of increasing precedence: file < environment < flags.
func (m *ServeMain) ParseFlags(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	path := fs.String("config", getenvOr(m.getenv, "FAREBOX_CONFIG", "farebox.yaml"), "config file (env FAREBOX_CONFIG)")
	addr := fs.String("addr", "", "listen address, overrides the config (env FAREBOX_ADDR)")
	logLevel := fs.String("log-level", "", "debug, info, warn or error (env FAREBOX_LOG_LEVEL)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve takes no arguments, got %q (flags go before them)", strings.Join(fs.Args(), " "))
	}
	m.ConfigPath = *path
	cfg, err := gateway.LoadConfig(*path)
	if err != nil {
		return configError(*path, err)
	}
	if err := cfg.ApplyEnv(m.getenv); err != nil {
		return err
	}
	if *addr != "" {
		cfg.Addr = *addr
	}
	if *logLevel != "" {
		cfg.LogLevel = *logLevel
	}
	m.Config = cfg
	m.Options.Getenv = m.getenv
	m.PprofAddr = m.getenv("FAREBOX_PPROF_ADDR")
	return nil
}

// Run listens, checks the facilitator answers, builds the gateway and
// serves; it returns once farebox takes requests.
func (m *ServeMain) Run(ctx context.Context) error {
	if err := m.listen(); err != nil {
		return err
	}
	if err := m.build(); err != nil {
		return gatewayError(m.ConfigPath, m.Config, err)
	}
	if err := probeFacilitator(ctx, m.Config); err != nil {
		return err
	}
	if err := m.serve(); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "farebox listening: base URL %s\n", m.BaseURL)
	return nil
}

func getenvOr(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}
