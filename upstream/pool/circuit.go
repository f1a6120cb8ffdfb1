package pool

import (
	"context"
	"sync"
	"time"
)

// Circuits keeps each supplier's circuit: closed while it answers;
// failures calls failed in a row open it for cooldown; then one call is
// let through as a probe (the others still skip it), whose success closes
// the circuit and whose failure opens it again. Implementations are safe
// for concurrent use; one shared by replicas (Redis) makes them agree.
type Circuits interface {
	// Allow reports whether a call may go to the supplier of key now,
	// claiming the probe when the cooldown is over.
	Allow(ctx context.Context, key string, now time.Time, failures int, cooldown time.Duration) bool
	// Success closes the circuit.
	Success(ctx context.Context, key string)
	// Failure counts a failed call, opening the circuit at failures.
	Failure(ctx context.Context, key string, now time.Time, failures int, cooldown time.Duration)
	// Open reports whether the circuit is open now (a probe in flight
	// counts as open).
	Open(ctx context.Context, key string, now time.Time, failures int) bool
}

func circuitKey(model, supplier string) string { return model + "\x00" + supplier }

// circuit is one supplier's state: failures in a row, and until when it
// is skipped once they reached the threshold.
type circuit struct {
	fails int
	until time.Time
}

// MemoryCircuits keeps circuits in this process.
type MemoryCircuits struct {
	mu sync.Mutex
	c  map[string]*circuit
}

// NewMemoryCircuits is an empty set of circuits, all closed.
func NewMemoryCircuits() *MemoryCircuits { return &MemoryCircuits{c: map[string]*circuit{}} }

func (m *MemoryCircuits) get(key string) *circuit {
	c := m.c[key]
	if c == nil {
		c = &circuit{}
		m.c[key] = c
	}
	return c
}

// Allow implements Circuits.
func (m *MemoryCircuits) Allow(_ context.Context, key string, now time.Time, failures int, cooldown time.Duration) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.get(key)
	if c.fails < failures {
		return true
	}
	if now.Before(c.until) {
		return false
	}
	c.until = now.Add(cooldown) // the probe's lease: nobody else meanwhile
	return true
}

// Success implements Circuits.
func (m *MemoryCircuits) Success(_ context.Context, key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.c, key)
}

// Failure implements Circuits.
func (m *MemoryCircuits) Failure(_ context.Context, key string, now time.Time, failures int, cooldown time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.get(key)
	c.fails++
	if c.fails >= failures {
		c.until = now.Add(cooldown)
	}
}

// Open implements Circuits.
func (m *MemoryCircuits) Open(_ context.Context, key string, now time.Time, failures int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.c[key]
	return c != nil && c.fails >= failures && now.Before(c.until)
}
