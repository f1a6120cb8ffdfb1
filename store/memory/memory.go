// Package memory is the stores of one process, lost on exit: the default
// when no storage is configured, and what tests run on. Package store
// registers it under "memory" itself, so the default needs no import.
package memory

import (
	"context"
	"log/slog"
	"sync"

	"github.com/farebox/farebox/books"
	"github.com/farebox/farebox/upstream/pool"
	"github.com/farebox/farebox/x402/channel/service"
	"github.com/farebox/farebox/x402/settle"
)

// journalEntries bounds the memory journal: past it new purchases are
// refused (settle.ErrJournalFull) rather than the process growing.
const journalEntries = 1 << 20

// Set is every store in process memory (it satisfies store.Set).
type Set struct {
	log      *slog.Logger
	once     sync.Once
	journal  *settle.MemoryJournal
	channels *service.MemoryStore
	books    *books.MemoryStore
	circuits *pool.MemoryCircuits
}

// New returns the stores, built on first use; log hears that the journal
// is not durable.
func New(log *slog.Logger) *Set { return &Set{log: log} }

func (s *Set) init() {
	s.once.Do(func() {
		s.journal = settle.NewMemoryJournal(journalEntries)
		s.channels = service.NewMemoryStore()
		s.books = books.NewMemoryStore()
		s.circuits = pool.NewMemoryCircuits()
	})
}

// Journal is a bounded memory journal.
func (s *Set) Journal() (settle.Journal, error) {
	s.init()
	s.log.Debug("settlement journal in memory: set store (bolt:DIR, or a Redis URL) to keep it across restarts")
	return s.journal, nil
}

// Holds is nil: the engine keeps its own in memory.
func (s *Set) Holds() settle.Holds { return nil }

// Answers is the process's bounded answer store.
func (s *Set) Answers(maxBytes, perPayer int64) settle.AnswerStore {
	return settle.NewMemoryAnswers(int(maxBytes), int(perPayer))
}

// Channels is the memory channel store.
func (s *Set) Channels() (service.Store, error) { s.init(); return s.channels, nil }

// Books is the memory books.
func (s *Set) Books() (books.Store, error) { s.init(); return s.books, nil }

// Circuits are this process's circuits.
func (s *Set) Circuits() pool.Circuits { s.init(); return s.circuits }

// Ready is always nil: memory is always there.
func (s *Set) Ready(context.Context) error { return nil }

// Instance is "": nothing is shared.
func (s *Set) Instance() string { return "" }

// Close has nothing to close.
func (s *Set) Close() error { return nil }
