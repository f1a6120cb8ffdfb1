//go:build !server

package main

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"strings"
	"syscall"

	"github.com/farebox/farebox/agent"
	"github.com/farebox/farebox/x402"
	"github.com/tidwall/gjson"
)

// chatHelp lists the slash commands: they run here and never cost anything.
const chatHelp = `commands (local, never paid):
  /help    this list
  /tools   the tools offered to the model, and where they come from
  /retry   resume a turn that did not finish (cancelled, failed): says what it costs and asks y/N (--yes: no question)
  /exit    quit (also /quit, Ctrl-D)
A line starting with // is sent as a prompt starting with /.`

// interactive is the prompt loop. Ctrl-C cancels the turn in flight (its
// calls stay pending: /retry resumes them) and the session goes on; Ctrl-D
// or /exit ends it. The caller's context is detached: its first Ctrl-C
// belongs to the turn, not to the session. Every line starting with / is a
// local command: only a prompt, or a /retry of an unfinished turn, pays.
func (s *chatSession) interactive(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	signals, stop := chatInterrupts()
	defer stop()
	s.lines = newLineReader(chatStdin)
	fmt.Fprintf(s.stderr, "farebox chat: %s at %s. Every turn is paid; tools run here.\n%s\nCtrl-C cancels a turn, /retry resumes it, /help lists the commands, Ctrl-D or /exit quits.\n",
		s.f.model, s.f.base, s.toolsLine())
	for {
		fmt.Fprint(s.stdout, "> ")
		line, quit := s.readPrompt(ctx, signals)
		if quit {
			fmt.Fprintln(s.stdout)
			return nil
		}
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "/") && !strings.HasPrefix(line, "//"):
			switch s.command(ctx, line) {
			case cmdQuit:
				return nil
			case cmdLocal:
				continue
			}
		default:
			s.closePending()
			s.history = append(s.history, agent.UserMessage(strings.TrimPrefix(line, "/")))
		}
		if s.turn(ctx, signals) {
			return nil
		}
	}
}

type cmdOutcome int

const (
	cmdLocal cmdOutcome = iota // done here, nothing sent
	cmdQuit
	cmdResume // run the unfinished turn
)

// command runs a slash command.
func (s *chatSession) command(ctx context.Context, line string) cmdOutcome {
	name, _, _ := strings.Cut(line, " ")
	switch name {
	case "/exit", "/quit":
		return cmdQuit
	case "/help":
		fmt.Fprintln(s.stderr, chatHelp)
	case "/tools":
		fmt.Fprintln(s.stderr, s.toolsLine())
	case "/retry":
		if why := s.unfinished(); why != "" {
			if !s.confirmRetry(ctx, why) {
				return cmdLocal
			}
			return cmdResume
		}
		if len(s.history) == 0 {
			fmt.Fprintln(s.stderr, "[nothing to resume: no turn yet; nothing was paid]")
		} else {
			fmt.Fprintln(s.stderr, "[nothing to resume: the last turn finished; nothing was paid (type a prompt to go on)]")
		}
	default:
		fmt.Fprintf(s.stderr, "[unknown command %s: /help lists the commands; nothing was sent or paid (start a prompt with // to send a /)]\n", name)
	}
	return cmdLocal
}

// unfinished says why the conversation needs another turn ("" when its
// last turn finished with an answer): calls left pending, or a prompt or
// tool outputs the model has not answered.
func (s *chatSession) unfinished() string {
	if n := len(agent.PendingCalls(s.history)); n > 0 {
		return fmt.Sprintf("%d pending call(s) run here first", n)
	}
	if len(s.history) == 0 {
		return ""
	}
	last := gjson.Parse(string(s.history[len(s.history)-1]))
	switch {
	case last.Get("type").String() == "function_call_output":
		return "the model has not answered the tool outputs"
	case last.Get("role").String() == "user":
		return "the last prompt got no answer"
	}
	return ""
}

// turnCost is what one more turn may cost, from the server's model list.
func (s *chatSession) turnCost(ctx context.Context) string {
	p := priceOf(ctx, s.f.base, s.f.model)
	if p.Sign() == 0 {
		return "price unknown, at most --max-price " + s.f.pay.maxPrice + " USDC"
	}
	return "up to " + x402.FormatUSDC(p) + " USDC"
}

// toolsLine names the tools offered to the model and where each comes from.
func (s *chatSession) toolsLine() string {
	if len(s.toolSources) == 0 {
		return "tools: none (add MCP servers with --mcp \"COMMAND ARGS\")"
	}
	return "tools: " + strings.Join(s.toolSources, "; ")
}

// readPrompt waits for a line; quit reports Ctrl-D, SIGTERM or a read error.
func (s *chatSession) readPrompt(ctx context.Context, signals <-chan os.Signal) (line string, quit bool) {
	for {
		if l, ok := s.lines.line(); ok {
			return l, false
		}
		if s.lines.eof {
			return "", true
		}
		select {
		case c, ok := <-s.lines.chunks:
			s.lines.feed(c, ok)
		case sig := <-signals:
			if sig == syscall.SIGTERM {
				return "", true
			}
			fmt.Fprint(s.stdout, "\n(Ctrl-D or /exit quits)\n> ")
		}
	}
}

// turn runs the conversation to its next answer; Ctrl-C cancels it. It
// reports whether the session must end.
func (s *chatSession) turn(ctx context.Context, signals <-chan os.Signal) (quit bool) {
	tctx, cancel := context.WithCancel(ctx)
	done, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		select {
		case sig := <-signals:
			quit = sig == syscall.SIGTERM
			cancel()
		case <-done:
		}
	}()
	res, err := s.agent.Run(tctx, s.history)
	close(done)
	<-watched
	cancel()
	fmt.Fprintln(s.stdout)
	if res != nil {
		s.history = res.History
		s.spentLine(res)
	}
	switch {
	case errors.Is(err, context.Canceled):
		n := len(agent.PendingCalls(s.history))
		fmt.Fprintf(s.stderr, "[turn cancelled; %d call(s) pending: /retry resumes (a paid turn), a new prompt moves on]\n", n)
	case errors.Is(err, agent.ErrBudget):
		fmt.Fprintf(s.stderr, "[stopped: %v]\n", err)
	case err != nil:
		fmt.Fprintf(s.stderr, "[error: %v]\n", callError(err))
	}
	return quit
}

// cutOff is what was signed in res beyond its receipts: a turn cancelled
// after its payment was sent, whose receipt never came.
func cutOff(res *agent.Result) *big.Int {
	rest := new(big.Int).Set(res.Spent)
	for _, r := range res.Receipts {
		if r.Amount != nil {
			rest.Sub(rest, r.Amount)
		}
	}
	return rest
}

// closePending answers calls left pending by a cancelled turn before the
// conversation moves on, so every call keeps its output.
func (s *chatSession) closePending() {
	for _, c := range agent.PendingCalls(s.history) {
		s.history = append(s.history, agent.FunctionCallOutput(c.ID, agent.Text("Tool error: cancelled by the user")))
	}
}
