package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/farebox/farebox/agent"
)

// lineReader reads stdin on its own goroutine, so a prompt or an approval
// question can also wait for Ctrl-C.
type lineReader struct {
	lines chan string
	err   error // set before lines is closed
}

func newLineReader(r io.Reader) *lineReader {
	l := &lineReader{lines: make(chan string)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l.lines <- sc.Text()
		}
		l.err = sc.Err()
		if l.err == nil {
			l.err = io.EOF
		}
		close(l.lines)
	}()
	return l
}

// next returns the next line, or ctx's error, or io.EOF at the end.
func (l *lineReader) next(ctx context.Context) (string, error) {
	select {
	case line, ok := <-l.lines:
		if !ok {
			return "", l.err
		}
		return line, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// interactive is the prompt loop. Ctrl-C cancels the turn in flight (its
// calls stay pending: /retry resumes them) and the session goes on; Ctrl-D
// or /exit ends it. The caller's context is detached: its first Ctrl-C
// belongs to the turn, not to the session.
func (s *chatSession) interactive(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	signals, stop := chatInterrupts()
	defer stop()
	s.lines = newLineReader(chatStdin)
	fmt.Fprintf(s.stderr, "farebox chat: %s at %s. Every turn is paid; tools run here.\nCtrl-C cancels a turn, /retry resumes it, Ctrl-D or /exit quits.\n", s.f.model, s.f.base)
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
		case line == "/exit" || line == "/quit":
			return nil
		case line == "/retry":
			if len(s.history) == 0 {
				fmt.Fprintln(s.stderr, "nothing to resume")
				continue
			}
		default:
			s.closePending()
			s.history = append(s.history, agent.UserMessage(line))
		}
		if s.turn(ctx, signals) {
			return nil
		}
	}
}

// readPrompt waits for a line; quit reports Ctrl-D, SIGTERM or a read error.
func (s *chatSession) readPrompt(ctx context.Context, signals <-chan os.Signal) (line string, quit bool) {
	for {
		select {
		case l, ok := <-s.lines.lines:
			if !ok {
				return "", true
			}
			return l, false
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
		fmt.Fprintf(s.stderr, "[turn cancelled; %d call(s) pending: /retry resumes, a new prompt moves on]\n", n)
	case errors.Is(err, agent.ErrBudget):
		fmt.Fprintf(s.stderr, "[stopped: %v]\n", err)
	case err != nil:
		fmt.Fprintf(s.stderr, "[error: %v]\n", err)
	}
	return quit
}

// closePending answers calls left pending by a cancelled turn before the
// conversation moves on, so every call keeps its output.
func (s *chatSession) closePending() {
	for _, c := range agent.PendingCalls(s.history) {
		s.history = append(s.history, agent.FunctionCallOutput(c.ID, agent.Text("Tool error: cancelled by the user")))
	}
}
