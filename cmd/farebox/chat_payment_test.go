package main

import (
	"math/big"
	"strings"
	"testing"
)

// TestCancelledPaymentSaysWhatHappened: a turn cancelled after its answer
// started says its payment was settled, with the amount; one cancelled
// before says the amount signed was released.
func TestCancelledPaymentSaysWhatHappened(t *testing.T) {
	t.Parallel()
	s := &chatSession{watch: &answerWatch{}}
	if got := s.cancelledPayment(big.NewInt(1000)); !strings.Contains(got, "the 0.001 USDC signed for the cancelled turn was released") {
		t.Errorf("not started: %q", got)
	}
	s.watch.started.Store(true)
	if got := s.cancelledPayment(big.NewInt(1000)); !strings.Contains(got, "plus 0.001 USDC for the cancelled turn: settled") {
		t.Errorf("started: %q", got)
	}
}
