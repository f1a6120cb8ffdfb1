package gateway

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/x402"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/settle"
	"github.com/farebox/farebox/x402/settle/boltjournal"
	"github.com/farebox/farebox/x402/settle/redisjournal"
	"github.com/redis/go-redis/v9"
)

// redisPrefix namespaces the journal's and the holds' keys in Redis,
// channelsPrefix the payment channels'.
const (
	redisPrefix    = "farebox:settle:"
	channelsPrefix = "farebox:channels:"
	// ChannelLogName names the channel store's write-ahead log segments in
	// the data directory.
	ChannelLogName = "channels.wal"
)

// buildEngine opens the settlement journal and starts the engine that
// owns every purchase: a bbolt file under data_dir (durable, one process),
// else Redis (shared by replicas), else memory (bounded, lost on exit).
// Entries a previous run left in flight are resumed (resume) once the
// schemes are registered, before traffic comes.
func (p *payments) buildEngine(cfg Config, reg *x402.Registry) error {
	pc := cfg.Payments
	ec := settle.Config{Settler: p.settler, Networks: reg, Confirm: settle.ConfirmMode(pc.Confirm),
		Logger: p.log, OnEvent: p.onEvent, Complete: schemeChain{schemes: &p.schemes}.complete}
	if p.chain != nil {
		ec.Settler = schemeChain{chainSettler: p.chain, schemes: &p.schemes}
	}
	var bookStore books.Store // the books live where the journal does
	switch {
	case cfg.DataDir != "":
		j, err := boltjournal.Open(cfg.DataDir, 5*time.Second)
		if err != nil {
			return fmt.Errorf("data_dir: %w", err)
		}
		ec.Journal = j
		// The channels live in the journal's file and share its commits
		// (unused buckets when no batch-settlement is offered), with a
		// write-ahead log of their own beside it.
		store, err := service.NewBoltStoreLogged(j.Committer(), cfg.DataDir, ChannelLogName)
		if err != nil {
			_ = j.Close()
			return fmt.Errorf("data_dir: %w", err)
		}
		p.chanStore = store
		bs, err := books.NewBoltStore(j.Committer())
		if err != nil {
			_ = j.Close()
			return fmt.Errorf("data_dir: %w", err)
		}
		bookStore = bs
		// The store flushes its log into the file before the journal closes it.
		p.closers = append(p.closers, func() { store.Close() }, func() { j.Close() })
	case pc.RedisURL != "":
		opt, err := redis.ParseURL(pc.RedisURL)
		if err != nil {
			return fmt.Errorf("payments.redis_url: %w", err)
		}
		rdb := redis.NewClient(opt)
		p.closers = append(p.closers, func() { rdb.Close() })
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := rdb.Ping(ctx).Err(); err != nil {
			return fmt.Errorf("payments.redis_url: %w", err)
		}
		p.readiness = append(p.readiness, func(ctx context.Context) error { return rdb.Ping(ctx).Err() })
		ec.Journal, ec.Holds = redisjournal.New(rdb, redisPrefix), redisjournal.NewHolds(rdb, redisPrefix)
		sa := cfg.StoredAnswers.withDefaults()
		ec.Answers = redisjournal.NewAnswers(rdb, redisPrefix, sa.MaxBytes, sa.MaxBytesPerPayer)
		checkRedisMemory(ctx, rdb, sa.MaxBytes, p.log)
		p.chanStore = service.NewRedisStore(rdb, channelsPrefix)
		bookStore = books.NewRedisStore(rdb, booksPrefix)
		host, _ := os.Hostname()
		ec.Instance = fmt.Sprintf("%s:%d", host, os.Getpid())
	default:
		ec.Journal = settle.NewMemoryJournal(1 << 20)
		p.chanStore = service.NewMemoryStore()
		bookStore = books.NewMemoryStore()
		p.log.Debug("settlement journal in memory: set data_dir to keep it across restarts")
	}
	if ec.Answers == nil {
		sa := cfg.StoredAnswers.withDefaults()
		ec.Answers = settle.NewMemoryAnswers(int(sa.MaxBytes), int(sa.MaxBytesPerPayer))
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
// left in flight (the engine takes over those idle for its StaleAfter).
const adoptInterval = time.Minute

// adoptOrphans runs Engine.Adopt until the payments close, so a replica
// that died mid-settlement does not leave its purchases stuck in flight.
func (p *payments) adoptOrphans(e *settle.Engine) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(adoptInterval)
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
