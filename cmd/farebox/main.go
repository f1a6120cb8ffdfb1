// Command farebox is a paid, OpenAI-Responses-compatible gateway.
//
//	farebox dev                      everything on one machine: gateway, dev chain, scripted model
//	farebox serve --config FILE      production: real upstreams, a real chain or facilitator
//	farebox init --upstream URL ...  write a minimal farebox.yaml
//	farebox call "prompt"            a paid call from the command line
//	farebox chat                     an agent in the terminal: tools, approvals, a budget
//	farebox proxy --upstream URL     a local OpenAI base URL that pays, for clients that cannot
//	farebox journal check --data DIR report on (or repair) the data directory's write-ahead logs
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/farebox/farebox/builtin" // the implementations farebox ships with
	"github.com/redis/go-redis/v9"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// go-redis logs each failed dial itself; farebox reports a Redis it
	// cannot reach in its own words (start-up error, /readyz, request logs).
	redis.SetLogger(quietRedis{})
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv); err != nil {
		fmt.Fprintln(os.Stderr, "farebox:", oneLine(err))
		os.Exit(1)
	}
}

// quietRedis drops go-redis's internal log lines.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

const usage = `farebox: a paid, OpenAI-Responses-compatible gateway (x402, USDC over EIP-3009)

Usage:
  farebox dev   [flags]            run everything on one machine (in-memory chain or --chain URL, scripted model)
  farebox serve --config FILE      run the gateway from a config file (--check: only validate it)
  farebox init  --upstream URL --pay-to 0xADDRESS   write a minimal farebox.yaml
  farebox call  [flags] PROMPT     make one paid call and print the answer and the receipt
  farebox chat  [flags]            talk to a model, run its tools here (MCP too), pay each turn
  farebox proxy [flags]            a local OpenAI base URL that pays a paid endpoint (for Codex, any SDK)
  farebox journal check|repair --data DIR   report on (or repair) the write-ahead logs of a data directory
  farebox sellers --facilitator URL --query MODEL   list a model's x402 sellers as suppliers to paste

Run "farebox COMMAND -h" for the flags of a command, "farebox --version" for the version.
`

// run is main without the process: tests call it with their own
// arguments, output and environment. Asking for help (-h) is not an error.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	err := corruptLogAdvice(dispatch(ctx, args, stdout, stderr, getenv))
	if errors.Is(err, flag.ErrHelp) || errors.Is(err, errChecked) {
		return nil
	}
	return err
}

// dispatch runs one subcommand: a new one is one more case.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("a command is required")
	}
	switch args[0] {
	case "serve":
		return runMain(ctx, NewServeMain(stdout, stderr, getenv), args[1:])
	case "dev":
		return runMain(ctx, NewDevMain(stdout, stderr, getenv), args[1:])
	case "call":
		return runCall(ctx, args[1:], stdout, stderr, getenv)
	case "chat":
		return runChat(ctx, args[1:], stdout, stderr, getenv)
	case "proxy":
		return runMain(ctx, NewProxyMain(stdout, stderr, getenv), args[1:])
	case "init":
		return runInit(args[1:], stdout, stderr, getenv)
	case "journal":
		return runJournal(args[1:], stdout, stderr)
	case "sellers":
		return runSellers(ctx, args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, versionLine(buildInfo()))
		return nil
	}
	return unknownCommand(args[0])
}

// mainCommand is a long-running command (serve, dev): ParseFlags reads
// flags and environment, Run opens everything and returns once it serves,
// Done reports a server that stopped by itself, Close closes it all.
type mainCommand interface {
	ParseFlags(args []string) error
	Run(ctx context.Context) error
	Done() <-chan error
	Close() error
}

// runMain runs m until ctx ends (SIGINT, SIGTERM) or it fails, and closes
// it either way; a start-up panic inside a dependency becomes an error.
func runMain(ctx context.Context, m mainCommand, args []string) (err error) {
	if err := m.ParseFlags(args); err != nil {
		return err
	}
	defer func() {
		if cerr := m.Close(); err == nil {
			err = cerr
		}
	}()
	if err := start(ctx, m); err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		return nil
	case err := <-m.Done():
		return err
	}
}

// start runs m.Run, turning a panic inside a dependency (go-ethereum's
// node panics when it cannot start) into a one-line error.
func start(ctx context.Context, m mainCommand) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("start-up failed: %v", r)
		}
	}()
	return m.Run(ctx)
}
