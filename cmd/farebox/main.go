// Command farebox is a paid, OpenAI-Responses-compatible gateway.
//
//	farebox dev                      everything on one machine: gateway, dev chain, scripted model
//	farebox serve --config FILE      production: real upstreams, a real chain or facilitator
//	farebox call "prompt"            a paid call from the command line
//	farebox chat                     an agent in the terminal: tools, approvals, a budget
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
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "farebox:", err)
		}
		os.Exit(1)
	}
}

const usage = `farebox: a paid, OpenAI-Responses-compatible gateway (x402, USDC over EIP-3009)

Usage:
  farebox dev   [flags]            run everything on one machine (in-memory chain, scripted model)
  farebox serve --config FILE      run the gateway from a config file (see farebox.example.yaml)
  farebox call  [flags] PROMPT     make one paid call and print the answer and the receipt
  farebox chat  [flags]            talk to a model, run its tools here (MCP too), pay each turn

Run "farebox COMMAND -h" for the flags of a command.
`

// run is main without the process: tests call it with their own
// arguments, output and environment.
func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errors.New("a command is required")
	}
	switch args[0] {
	case "serve":
		return runServe(ctx, args[1:], stdout, stderr, getenv)
	case "dev":
		return runDev(ctx, args[1:], stdout, stderr, getenv)
	case "call":
		return runCall(ctx, args[1:], stdout, stderr, getenv)
	case "chat":
		return runChat(ctx, args[1:], stdout, stderr, getenv)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
