package settle

import (
	"context"
	"time"
)

// Liveness is a journal shared by replicas on which each running engine
// keeps a beat under its instance name (store/redis). Adopt takes only the
// entries of instances whose beat lapsed: an entry's age alone cannot tell
// a dead replica's purchase from a live one's still queued for its relayer
// under load, which nothing refreshes until it is sent.
type Liveness interface {
	// Beat marks instance alive for ttl.
	Beat(ctx context.Context, instance string, ttl time.Duration) error
	// Alive reports whether instance's last beat has not lapsed.
	Alive(ctx context.Context, instance string) (bool, error)
	// Gone ends instance's beat at once: it stopped cleanly, and what it
	// left in flight may be adopted without waiting for the beat to lapse.
	Gone(ctx context.Context, instance string) error
}

// liveness is the journal's Liveness when this engine is one of several
// replicas sharing it, else nil.
func (e *Engine) liveness() Liveness {
	if e.cfg.Instance == "" {
		return nil
	}
	l, _ := e.cfg.Journal.(Liveness)
	return l
}

// startBeat beats once before the engine serves, then every StaleAfter/4
// for StaleAfter, until Close: a replica is taken for dead only after a
// whole adopt_after without a beat.
func (e *Engine) startBeat() {
	l := e.liveness()
	if l == nil {
		return
	}
	beat := func() {
		ctx, cancel := context.WithTimeout(e.life, min(max(e.cfg.StaleAfter/4, time.Second), 5*time.Second))
		defer cancel()
		if err := l.Beat(ctx, e.cfg.Instance, e.cfg.StaleAfter); err != nil && e.life.Err() == nil {
			e.cfg.Logger.Warn("settle: marking this replica alive", "instance", e.cfg.Instance, "err", err)
		}
	}
	beat()
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		tick := time.NewTicker(max(e.cfg.StaleAfter/4, time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case <-e.life.Done():
				return
			case <-tick.C:
				beat()
			}
		}
	}()
}

// endBeat tells the other replicas this one stopped (Close).
func (e *Engine) endBeat() {
	l := e.liveness()
	if l == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := l.Gone(ctx, e.cfg.Instance); err != nil {
		e.cfg.Logger.Warn("settle: marking this replica stopped", "instance", e.cfg.Instance, "err", err)
	}
}

// aliveOwners answers, for one adoption round, whether an entry's owner
// still beats; an owner whose beat cannot be read counts as alive (its
// entries wait for the next round rather than risk two followers).
type aliveOwners struct {
	e     *Engine
	l     Liveness
	known map[string]bool
}

func (a *aliveOwners) alive(ctx context.Context, owner string) bool {
	if a.l == nil {
		return false
	}
	if v, ok := a.known[owner]; ok {
		return v
	}
	v, err := a.l.Alive(ctx, owner)
	if err != nil {
		a.e.cfg.Logger.Warn("settle: reading whether a replica is alive", "instance", owner, "err", err)
		v = true
	}
	a.known[owner] = v
	return v
}
