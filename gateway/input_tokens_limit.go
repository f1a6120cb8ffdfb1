package gateway

import (
	"sync"
	"time"
)

// The token count is free and answered with the operator's provider key:
// each client may have the provider count for it at most countRate times
// per countWindow; past that it gets the local estimate (a token per 4
// bytes), which a free courtesy can live with. Within the model's limits
// (applied first) a count never carries more than /v1/responses would.
const (
	countRate   = 5
	countWindow = time.Second
	// countClients bounds the clients remembered: past it the windows
	// start over (every client may count again at once).
	countClients = 4096
)

// countLimiter is a fixed window per client of upstream token counts.
type countLimiter struct {
	mu  sync.Mutex
	now func() time.Time
	at  map[string]*countSlot
}

type countSlot struct {
	start time.Time
	n     int
}

// allow reports whether client may have the upstream count once more now.
func (l *countLimiter) allow(client string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if l.now != nil {
		now = l.now()
	}
	if l.at == nil || len(l.at) >= countClients {
		l.at = map[string]*countSlot{}
	}
	s := l.at[client]
	if s == nil || now.Sub(s.start) >= countWindow {
		s = &countSlot{start: now}
		l.at[client] = s
	}
	if s.n >= countRate {
		return false
	}
	s.n++
	return true
}
