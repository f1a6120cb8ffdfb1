package pool

import (
	"context"
	"time"
)

// Health is one supplier's state as an operator reads it: whether its
// circuit is open now (read from the circuits, so shared by replicas
// through Redis), and what this process saw of it since it started.
type Health struct {
	Supplier string
	Weight   float64
	// Open: the circuit is open, the supplier is skipped until its cooldown ends.
	Open bool
	// Attempts counts this process's calls to the supplier by outcome.
	Attempts map[Kind]int64
	// LastOK and LastFailure are when an attempt last answered and last
	// failed by the supplier's doing (zero: never); LastFailureKind says how,
	// and LastError the failure's words (whole: a reader shortens them).
	LastOK, LastFailure time.Time
	LastFailureKind     Kind
	LastError           string
	// TTFT is the moving average of its time to first token (the fastest
	// strategy ranks by it); 0 until measured.
	TTFT time.Duration
}

// seen is what the pool saw of one supplier (under Pool.mu).
type seen struct {
	attempts    map[Kind]int64
	lastOK      time.Time
	lastFailure time.Time
	lastKind    Kind
	lastError   string
}

// saw records one attempt of supplier i.
func (p *Pool) saw(i int, kind Kind, err error) {
	now := p.cfg.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	s := &p.seen[i]
	if s.attempts == nil {
		s.attempts = map[Kind]int64{}
	}
	s.attempts[kind]++
	switch {
	case kind == KindOK:
		s.lastOK = now
	case kind.SuppliersFault():
		s.lastFailure, s.lastKind = now, kind
		if err != nil {
			s.lastError = err.Error()
		}
	}
}

// Health reports each supplier's health, in the configured order.
func (p *Pool) Health(ctx context.Context) []Health {
	open := p.Open(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]Health, len(p.cfg.Suppliers))
	for i, s := range p.cfg.Suppliers {
		h := Health{Supplier: s.Name, Weight: s.Weight, Open: open[s.Name], Attempts: map[Kind]int64{}, TTFT: p.ttft[i]}
		for k, v := range p.seen[i].attempts {
			h.Attempts[k] = v
		}
		h.LastOK, h.LastFailure, h.LastFailureKind, h.LastError = p.seen[i].lastOK, p.seen[i].lastFailure, p.seen[i].lastKind, p.seen[i].lastError
		out[i] = h
	}
	return out
}

// Circuit is the pool's circuit settings (defaults applied): Failures in
// a row open a supplier's circuit for Cooldown.
func (p *Pool) Circuit() (failures int, cooldown time.Duration) {
	return p.cfg.Failures, p.cfg.Cooldown
}
