//go:build !server

package main

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/farebox/farebox/x402"
	"github.com/openai/openai-go/v3/option"
)

// answerWatch tells whether the server had started answering the last
// paid request: a paid answer that started is settled (exact settles before
// its first event, the others charge what was produced), one that never
// started is released. The 402 and its payment happen inside the paying
// transport, so the status seen here is the paid request's.
type answerWatch struct{ started atomic.Bool }

// middleware records each request's answer status for the chat session.
func (w *answerWatch) middleware() option.RequestOption {
	return option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		w.started.Store(false)
		res, err := next(req)
		if err == nil && res.StatusCode/100 == 2 {
			w.started.Store(true)
		}
		return res, err
	})
}

// cancelledPayment says what became of c USDC signed for a turn cancelled
// before its receipt came.
func (s *chatSession) cancelledPayment(c *big.Int) string {
	if s.watch != nil && s.watch.started.Load() {
		return fmt.Sprintf(", plus %s USDC for the cancelled turn: settled (its answer had started; the payment stands, the cut answer was not kept)", x402.FormatUSDC(c))
	}
	return fmt.Sprintf("; the %s USDC signed for the cancelled turn was released (its answer had not started: nothing charged)", x402.FormatUSDC(c))
}

// confirmRetry states what a /retry costs and, unless --yes, asks y/N
// (default no): a retry is one more paid turn.
func (s *chatSession) confirmRetry(ctx context.Context, why string) bool {
	cost := s.turnCost(ctx)
	if s.f.yes {
		fmt.Fprintf(s.stderr, "[resuming: %s; one more paid turn, %s]\n", why, cost)
		return true
	}
	fmt.Fprintf(s.stderr, "[resume: %s; one more paid turn, %s. Pay? y/N] ", why, cost)
	line, err := s.lines.key(ctx)
	if s.lines.tty != nil || err != nil {
		fmt.Fprintln(s.stderr, strings.TrimSpace(line)) // single keys are not echoed
	}
	switch strings.TrimSpace(line) {
	case "y", "Y", "yes":
		return true
	}
	fmt.Fprintln(s.stderr, "[not resumed; nothing was paid]")
	return false
}
