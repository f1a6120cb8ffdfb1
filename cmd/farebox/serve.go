package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	fs2 "io/fs"
	"strings"

	"github.com/farebox/farebox/gateway"
	"gopkg.in/yaml.v3"
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
	fs := newFlagSet("serve", "[flags]", "Run the gateway from a config file, the FAREBOX_* environment and flags (in\nincreasing precedence); --check only validates them.", m.Stderr)
	path := fs.String("config", getenvOr(m.getenv, "FAREBOX_CONFIG", "farebox.yaml"), "config file (env FAREBOX_CONFIG)")
	addr := fs.String("addr", "", "listen address, overrides the config (env FAREBOX_ADDR)")
	logLevel := fs.String("log-level", "", "debug, info, warn or error (env FAREBOX_LOG_LEVEL)")
	check := fs.Bool("check", false, "validate the config (file, environment, flags) and exit: 0 when it is sound, else every problem listed; it also asks the facilitator's /supported (or the relayer's chain) whether the payments can settle, unless --offline")
	offline := fs.Bool("offline", false, "with --check: validate without asking anyone (no facilitator, no RPC node)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve takes no arguments, got %q (flags go before them)", strings.Join(fs.Args(), " "))
	}
	m.ConfigPath = *path
	cfg, err := gateway.LoadConfig(*path)
	if errors.Is(err, fs2.ErrNotExist) {
		return noConfigError(*path)
	}
	// Unknown keys and mistyped values leave the rest of the file decoded:
	// they are reported together with what Validate finds in the rest.
	var problems []error
	var te *yaml.TypeError
	if errors.As(err, &te) {
		for _, p := range keyProblems(te) {
			problems = append(problems, errors.New(p))
		}
	} else if err != nil {
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
	if err := cfg.Validate(m.getenv); err != nil || len(problems) > 0 {
		return invalidConfig(*path, errors.Join(append(problems, err)...), *check, m.Stderr)
	}
	if *offline && !*check {
		return errors.New("--offline goes with --check: serve itself always proves its facilitator or chain before it takes payments")
	}
	if *check {
		for _, w := range cfg.Warnings() {
			fmt.Fprintf(m.Stderr, "warning: config %s: %s\n", *path, w)
		}
		if !*offline {
			if err := cfg.Prove(context.Background(), m.getenv); err != nil {
				return fmt.Errorf("config %s: %s (serve --check --offline validates without asking)", *path, oneLine(err))
			}
		}
		fmt.Fprintf(m.Stdout, "config %s: ok\n", *path)
		return errChecked
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
	if err := m.server.Prove(ctx); err != nil {
		return fmt.Errorf("config %s: %s", m.ConfigPath, oneLine(err))
	}
	if err := m.serve(); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "farebox listening: base URL %s\n", m.BaseURL)
	if url := m.adminURL(); url != "" {
		fmt.Fprintf(m.Stdout, "farebox admin: %s (the token is in $%s)\n", url, m.Config.Admin.TokenEnv)
	}
	return nil
}

func getenvOr(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}

// flatten lists the problems of an error joined from several (at any
// depth), one per leaf.
func flatten(err error) []string {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []string{err.Error()}
	}
	var out []string
	for _, e := range j.Unwrap() {
		out = append(out, flatten(e)...)
	}
	return out
}

// errChecked ends `serve --check` after a config that passed: no error.
var errChecked = errors.New("config checked")

// noConfigError says what to do when there is no config file at all.
func noConfigError(path string) error {
	return fmt.Errorf("no config file at %s: copy the example (cp farebox.example.yaml farebox.yaml), "+
		"write a minimal one (farebox init --upstream URL --pay-to 0xADDRESS), or run everything locally with farebox dev", path)
}

// invalidConfig reports every problem Validate found: one line for a
// start-up (the terminal's one-line error), one per problem for --check.
func invalidConfig(path string, err error, check bool, stderr io.Writer) error {
	problems := flatten(err)
	if check {
		fmt.Fprintf(stderr, "config %s has %d problem(s):\n", path, len(problems))
		for _, p := range problems {
			fmt.Fprintln(stderr, "  "+p)
		}
		return fmt.Errorf("config %s: %d problem(s) (farebox.example.yaml documents every key)", path, len(problems))
	}
	return fmt.Errorf("config %s: %s (farebox.example.yaml documents every key)", path, strings.Join(problems, "; "))
}
