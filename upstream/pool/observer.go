package pool

import (
	"math/big"
	"time"
)

// Observer is told each attempt's outcome: the gateway's metrics.
type Observer interface {
	// Attempt reports one supplier call: its outcome, its time to first
	// output (0: none) and, when it answered, what it cost (nil: unknown).
	Attempt(model, supplier string, kind Kind, ttft time.Duration, cost *big.Int)
}

type nopObserver struct{}

func (nopObserver) Attempt(string, string, Kind, time.Duration, *big.Int) {}
