package gateway

import (
	"context"
	"fmt"
	"time"

	"github.com/farebox/farebox/store"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/settle"
)

// buildEngine opens the stores the configuration chooses (storeSetting:
// memory, a bbolt file in a data directory, or Redis shared by replicas)
// and starts the engine that owns every purchase, its journal there.
// Entries a previous run left in flight are resumed (resume) once the
// schemes are registered, before traffic comes.
func (p *payments) buildEngine(cfg Config, reg *x402.Registry) error {
	pc := cfg.Payments
	ec := settle.Config{Settler: p.settler, Networks: reg, Confirm: settle.ConfirmMode(pc.Confirm),
		Logger: p.log, OnEvent: p.onEvent, Complete: schemeChain{schemes: &p.schemes}.complete, Reader: p.reader}
	if p.chain != nil {
		ec.Settler = schemeChain{chainSettler: p.chain, schemes: &p.schemes}
	}
	set, key, err := openStores(cfg, store.Options{Log: p.log})
	if err != nil {
		return err
	}
	p.stores = set
	// The stores close after everything that writes to them (closers
	// run in order; those added later go first).
	p.closers = append(p.closers, func() { set.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := set.Ready(ctx); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	p.readiness = append(p.readiness, set.Ready)
	if ec.Journal, err = set.Journal(); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if p.chanStore, err = set.Channels(); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	bookStore, err := set.Books() // the books live where the journal does
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	sa := cfg.StoredAnswers.withDefaults()
	ec.Holds, ec.Answers, ec.Instance = set.Holds(), set.Answers(sa.MaxBytes, sa.MaxBytesPerPayer), set.Instance()
	ec.StaleAfter = pc.AdoptAfter.D(0)
	p.adoptEvery = adoptInterval
	if ec.StaleAfter > 0 && ec.StaleAfter/2 < p.adoptEvery {
		p.adoptEvery = ec.StaleAfter / 2
	}
	e, err := settle.NewEngine(ec)
	if err != nil {
		return fmt.Errorf("payments.confirm: %w", err)
	}
	p.engine = e
	p.replicas = ec.Instance != ""
	// Closed before the journal (closers run in order after this one).
	p.startBooks(bookStore, ec.Journal)
	p.closers = append([]func(){func() { e.Close() }}, p.closers...)
	return nil
}

// resume resumes the entries a previous run left in flight and, with
// replicas, starts adopting those a dead replica left.
func (p *payments) resume() error {
	e := p.engine
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := e.Resume(ctx)
	if err != nil {
		return fmt.Errorf("resuming the settlement journal: %w", err)
	}
	if n > 0 {
		p.log.Info("settlement journal resumed", "entries", n)
	}
	if p.replicas {
		p.adoptOrphans(e)
	}
	return nil
}

// adoptInterval is how often a replica looks for purchases a dead replica
// left in flight (the engine takes over those idle for its StaleAfter,
// payments.adopt_after), unless half of adopt_after is sooner.
const adoptInterval = time.Minute

// adoptOrphans runs Engine.Adopt until the payments close, so a replica
// that died mid-settlement does not leave its purchases stuck in flight.
func (p *payments) adoptOrphans(e *settle.Engine) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(p.adoptEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if n, err := e.Adopt(ctx); err != nil {
					p.log.Warn("adopting orphaned purchases", "err", err)
				} else if n > 0 {
					p.log.Info("adopted purchases of a replica that stopped", "entries", n)
				}
			}
		}
	}()
	// Before the engine closes (it is first among the closers).
	p.closers = append([]func(){func() { cancel(); <-done }}, p.closers...)
}
