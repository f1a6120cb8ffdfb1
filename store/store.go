// Package store is the registry of farebox's storage technologies. One
// package per technology (store/memory, store/bolt, store/redis) provides
// every store farebox keeps (the settlement journal, in-flight holds,
// stored answers, payment channels, the books, the pools' circuits) and
// registers itself under a prefix, so one setting chooses where all of
// them live and no caller names a technology. The composition root links
// the technologies it wants with blank imports.
package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/store/memory"
	"github.com/farebox/farebox/upstream/pool"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/settle"
)

// Set is every store one technology provides, opened from one setting.
// A store is built when first asked for and the same one is returned
// after, so the stores that share a file or a connection share it.
type Set interface {
	// Journal is the settlement journal.
	Journal() (settle.Journal, error)
	// Holds is the in-flight accounting shared by replicas; nil when it is
	// the process's own (settle.NewMemoryHolds).
	Holds() settle.Holds
	// Answers keeps paid answers for retries within maxBytes in all and
	// perPayer for one payer.
	Answers(maxBytes, perPayer int64) settle.AnswerStore
	// Channels is the payment channels' store.
	Channels() (service.Store, error)
	// Books is where the books' rows are kept.
	Books() (books.Store, error)
	// Circuits is the pools' supplier circuits.
	Circuits() pool.Circuits
	// Ready reports whether the stores can be reached now (a readiness
	// probe, and the check at start).
	Ready(ctx context.Context) error
	// Instance names this process among replicas sharing the stores ("":
	// the stores are this process's alone).
	Instance() string
	// Close closes what was opened, in the order the stores need.
	Close() error
}

// Options is what a technology needs beyond its location.
type Options struct {
	// Log receives what a store warns about (nil: discarded).
	Log *slog.Logger
	// Key is the configuration key the setting came from, named in
	// warnings so the operator knows what to change.
	Key string
	// Wait bounds how long opening waits for a file another process holds
	// (0: each technology's default).
	Wait time.Duration
}

// Logger is Log, or a logger that discards.
func (o Options) Logger() *slog.Logger {
	if o.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Log
}

// Opener opens a Set at location: the setting with its prefix, which some
// technologies keep (a Redis URL's scheme).
type Opener func(location string, opts Options) (Set, error)

// Checker says what is wrong with a location before anything is opened
// (`farebox serve --check`).
type Checker func(location string) error

var (
	mu       sync.RWMutex
	openers  = map[string]Opener{}
	checkers = map[string]Checker{}
)

// The memory stores are the default, so they are always linked.
func init() {
	Register(Memory, func(_ string, o Options) (Set, error) { return memory.New(o.Logger()), nil })
}

// Register makes a technology available under prefix (e.g. "bolt:",
// "redis://"). It panics on an empty or already registered prefix: two
// packages claiming one setting is a build mistake.
func Register(prefix string, open Opener) {
	if prefix == "" {
		panic("store: Register with an empty prefix")
	}
	mu.Lock()
	defer mu.Unlock()
	if _, ok := openers[prefix]; ok {
		panic(fmt.Sprintf("store: %q registered twice", prefix))
	}
	openers[prefix] = open
}

// RegisterCheck adds the validation of a registered prefix's locations.
func RegisterCheck(prefix string, check Checker) {
	mu.Lock()
	defer mu.Unlock()
	checkers[prefix] = check
}

// Memory is the setting of the in-process stores, the default.
const Memory = "memory"

// ErrUnknown means no linked technology takes the setting.
var ErrUnknown = errors.New("store: no storage technology takes this setting")

// Open opens the Set the setting names: "" is Memory. The longest
// registered prefix the setting starts with wins.
func Open(setting string, opts Options) (Set, error) {
	if setting == "" {
		setting = Memory
	}
	open, ok := lookup(setting)
	if !ok {
		return nil, fmt.Errorf("%w (want one of %s)", ErrUnknown, strings.Join(Prefixes(), ", "))
	}
	return open(setting, opts)
}

// Check says what is wrong with the setting without opening anything:
// ErrUnknown when no linked technology takes it, else its technology's
// verdict.
func Check(setting string) error {
	if setting == "" {
		setting = Memory
	}
	if _, ok := lookup(setting); !ok {
		return fmt.Errorf("%w (want one of %s)", ErrUnknown, strings.Join(Prefixes(), ", "))
	}
	mu.RLock()
	check := checkers[prefixOf(setting)]
	mu.RUnlock()
	if check == nil {
		return nil
	}
	return check(setting)
}

func lookup(setting string) (Opener, bool) {
	mu.RLock()
	defer mu.RUnlock()
	open, ok := openers[prefixOf(setting)]
	return open, ok
}

// prefixOf is the longest registered prefix setting starts with ("" for
// none); the caller holds mu.
func prefixOf(setting string) string {
	best := ""
	for p := range openers {
		if strings.HasPrefix(setting, p) && len(p) > len(best) {
			best = p
		}
	}
	return best
}

// Prefixes are the registered prefixes, sorted.
func Prefixes() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(openers))
	for p := range openers {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
