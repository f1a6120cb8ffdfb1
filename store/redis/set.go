package redis

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/store"
	"github.com/farebox/farebox/upstream/pool"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/settle"
)

// The key prefixes of each store: the ones payments.redis_url always
// used, so the data of an existing deployment stays where it is read.
const (
	JournalPrefix  = DefaultPrefix // the journal, holds and stored answers
	ChannelsPrefix = "farebox:channels:"
	BooksPrefix    = "farebox:books:"
	CircuitsPrefix = "farebox:pool:"
)

// Schemes are the URL schemes of a Redis setting (a unix:// URL is a
// socket, as go-redis reads it).
var Schemes = []string{"redis://", "rediss://", "unix://"}

func init() {
	for _, p := range Schemes {
		store.Register(p, Open)
		store.RegisterCheck(p, Check)
	}
}

// Check says what is wrong with a Redis URL, before anything is dialled.
func Check(location string) error {
	u, err := url.Parse(location)
	if err != nil || (u.Host == "" && u.Scheme != "unix") {
		return fmt.Errorf("not a Redis URL (want redis://HOST:PORT/DB, rediss://... or unix:///PATH)")
	}
	if _, err := goredis.ParseURL(location); err != nil {
		return err
	}
	return nil
}

// Open is every store on the Redis the URL names, shared by replicas: one
// client for all of them. Nothing is dialled until a store is used
// (Ready pings).
func Open(location string, opts store.Options) (store.Set, error) {
	opt, err := goredis.ParseURL(location)
	if err != nil {
		return nil, err
	}
	var journal *Journal
	// Every new connection checks the store epoch: after a restart the
	// replica reconnects before its next command, so a Redis that came
	// back empty is seen as a loss at once.
	opt.OnConnect = func(ctx context.Context, cn *goredis.Conn) error { return journal.onConnect(ctx, cn) }
	rdb := goredis.NewClient(opt)
	journal = NewJournal(rdb, JournalPrefix)
	journal.log = opts.Logger()
	channels := NewChannels(rdb, ChannelsPrefix)
	channels.journal = journal // the epoch on the same Redis tells the channels' loss too
	host, _ := os.Hostname()
	return &Set{rdb: rdb, log: opts.Logger(), key: opts.Key, instance: fmt.Sprintf("%s:%d", host, os.Getpid()),
		journal:  journal,
		holds:    NewHolds(rdb, JournalPrefix),
		channels: channels,
		books:    NewBooks(rdb, BooksPrefix),
		circuits: NewCircuits(rdb, CircuitsPrefix),
	}, nil
}

// Set is every store on one Redis client.
type Set struct {
	rdb      *goredis.Client
	log      *slog.Logger
	key      string
	instance string
	journal  *Journal
	holds    *Holds
	channels *Channels
	books    *Books
	circuits *Circuits
}

// Client is the Redis client every store shares.
func (s *Set) Client() *goredis.Client { return s.rdb }

// Journal is the shared journal.
func (s *Set) Journal() (settle.Journal, error) { return s.journal, nil }

// Holds are shared, so a payer's in-flight total counts every replica's.
func (s *Set) Holds() settle.Holds { return s.holds }

// Answers are shared within their own bound, never Redis eviction; it
// warns when Redis's settings could evict or squeeze the journal.
func (s *Set) Answers(maxBytes, perPayer int64) settle.AnswerStore {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.checkMemory(ctx, maxBytes)
	return NewAnswers(s.rdb, JournalPrefix, maxBytes, perPayer)
}

// Channels are shared, with locks across replicas.
func (s *Set) Channels() (service.Store, error) { return s.channels, nil }

// Books are shared: every replica books into the same rows.
func (s *Set) Books() (books.Store, error) { return s.books, nil }

// Circuits are shared: replicas agree on which supplier is failing.
func (s *Set) Circuits() pool.Circuits { return s.circuits }

// Ready pings Redis and compares its store epoch with the one this
// replica knows (a Redis that lost its data is noticed here too).
func (s *Set) Ready(ctx context.Context) error {
	if err := s.rdb.Ping(ctx).Err(); err != nil {
		return err
	}
	return s.journal.checkEpoch(ctx)
}

// Instance is host:pid, naming this replica among those sharing Redis.
func (s *Set) Instance() string { return s.instance }

// Close closes the client.
func (s *Set) Close() error { return s.rdb.Close() }

// checkMemory warns when Redis may evict keys: the journal's and replay
// protection's keys must never go (a replay would be accepted), so Redis
// must run with maxmemory-policy noeviction; the answers keep within
// their own bound instead. A Redis that hides CONFIG (some managed ones)
// is not asked.
func (s *Set) checkMemory(ctx context.Context, answers int64) {
	cfg, err := s.rdb.ConfigGet(ctx, "maxmemory*").Result()
	if err != nil {
		return
	}
	if p := cfg["maxmemory-policy"]; p != "" && p != "noeviction" {
		s.log.Warn("Redis may evict farebox's replay protection: set maxmemory-policy noeviction",
			"maxmemory-policy", p, "key", s.key)
	}
	if m := cfg["maxmemory"]; m != "" && m != "0" {
		if n, err := strconv.ParseInt(m, 10, 64); err == nil && n < 2*answers {
			s.log.Warn("Redis's maxmemory leaves the journal little room beside the stored answers",
				"maxmemory", n, "stored_answers.max_bytes", answers)
		}
	}
}
