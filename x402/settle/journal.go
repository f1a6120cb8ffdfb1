package settle

import (
	"context"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402"
)

// Journal is the write-ahead record of every authorization that may move
// money. Implementations: MemoryJournal (bounded, not durable),
// store/bolt (a file, fsync on every change) and store/redis (shared by
// replicas). Every method is safe for concurrent use; entries passed in and
// returned are copies.
type Journal interface {
	// Create stores e atomically if no entry has its key and, when
	// e.PaymentID is set, no entry of the same payer uses that id. Otherwise
	// it stores nothing and returns the entry in the way, with ErrExists
	// (same key) or ErrIDTaken (the id names another key).
	Create(ctx context.Context, e *Entry) (*Entry, error)
	// Get returns the entry of k, or ErrNotFound.
	Get(ctx context.Context, k x402.Key) (*Entry, error)
	// Update replaces the entry with e's key if its state is still from:
	// ErrStateChanged when it is not, ErrNotFound when it is gone.
	Update(ctx context.Context, e *Entry, from State) error
	// Delete removes the entry of k and its payment id if its state is from
	// (a purchase that moved no money); ErrStateChanged otherwise. A missing
	// entry is not an error.
	Delete(ctx context.Context, k x402.Key, from State) error
	// Unfinished lists the entries in Reserved, Settling or Broadcast.
	Unfinished(ctx context.Context) ([]*Entry, error)

	// AddDebt records that payer owes item (idempotent per item.Entry).
	AddDebt(ctx context.Context, payer common.Address, item DebtItem) error
	// Debts lists payer's debt items, lapsed ones included.
	Debts(ctx context.Context, payer common.Address) ([]DebtItem, error)
	// ClearDebts forgets every debt item of payer (an operator's decision)
	// and returns the items it forgot, in one step: an item recorded
	// meanwhile is either returned or kept.
	ClearDebts(ctx context.Context, payer common.Address) ([]DebtItem, error)

	// Close releases the store; the journal is unusable afterwards.
	Close() error
}

// SoonJournal is a Journal that can record a change its readers see at
// once and its store a moment later (store/bolt: an fsync off the answer's
// path). The engine uses it for the steps after the write-ahead one
// (Broadcast, Confirmed): a crash may lose them, and Resume finds their
// outcome on chain from the write-ahead entry.
type SoonJournal interface {
	Journal
	// UpdateSoon is Update, durable shortly after it returns.
	UpdateSoon(ctx context.Context, e *Entry, from State) error
}

// Claimer is a journal shared by replicas (store/redis) on which one of
// them can claim an entry: Adopt claims each orphan before it follows it,
// so the survivors of a dead replica do not all follow (and send again)
// the same transfers.
type Claimer interface {
	// Claim makes owner the taker of the entry named name for ttl, unless
	// someone (owner included) holds a claim on it: it reports whether the
	// claim is new.
	Claim(ctx context.Context, name, owner string, ttl time.Duration) (bool, error)
}

// MemoryJournal is the in-process Journal. It is NOT durable: a restart
// forgets everything, so a crash between broadcast and answer loses the
// receipt (the chain still refuses a second transfer of the same
// authorization). It is bounded: finished entries are forgotten once their
// authorization expired (verification refuses them by then), and when
// maxEntries entries may not be forgotten yet Create refuses with
// ErrJournalFull rather than reopen a replay hole.
type MemoryJournal struct {
	mu      sync.Mutex
	max     int
	entries map[string]*Entry
	ids     map[string]string // IDName -> KeyName
	debts   map[common.Address]map[string]DebtItem
	// Now is the clock used to forget expired entries; nil means time.Now.
	Now func() time.Time
}

var _ Journal = (*MemoryJournal)(nil)

// NewMemoryJournal returns a journal holding at most maxEntries entries (at
// least 1).
func NewMemoryJournal(maxEntries int) *MemoryJournal {
	return &MemoryJournal{max: max(maxEntries, 1), entries: make(map[string]*Entry),
		ids: make(map[string]string), debts: make(map[common.Address]map[string]DebtItem)}
}

// Len reports how many entries the journal holds.
func (m *MemoryJournal) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}

func (m *MemoryJournal) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// forget drops finished entries whose authorization expired; caller holds
// mu. It runs only when the journal is full, so its scan is rare.
func (m *MemoryJournal) forget(now time.Time) {
	for name, e := range m.entries {
		if e.State.Finished() && !e.Expires.After(now) {
			m.drop(name, e)
		}
	}
}

func (m *MemoryJournal) drop(name string, e *Entry) {
	delete(m.entries, name)
	if e.PaymentID != "" {
		if id := IDName(e.Payer, e.PaymentID); m.ids[id] == name {
			delete(m.ids, id)
		}
	}
}

// Entries calls fn with a copy of every entry (the books count the
// confirmed ones a crash kept out of them), until fn returns an error.
func (m *MemoryJournal) Entries(ctx context.Context, fn func(*Entry) error) error {
	m.mu.Lock()
	list := make([]*Entry, 0, len(m.entries))
	for _, e := range m.entries {
		list = append(list, e.Clone())
	}
	m.mu.Unlock()
	for _, e := range list {
		if err := fn(e); err != nil {
			return err
		}
	}
	return nil
}

// Create stores e unless its key or payment id is taken.
func (m *MemoryJournal) Create(ctx context.Context, e *Entry) (*Entry, error) {
	name := e.Name()
	m.mu.Lock()
	defer m.mu.Unlock()
	if cur, ok := m.entries[name]; ok {
		return cur.Clone(), ErrExists
	}
	var id string
	if e.PaymentID != "" {
		id = IDName(e.Payer, e.PaymentID)
		if other, ok := m.ids[id]; ok {
			return m.entries[other].Clone(), ErrIDTaken
		}
	}
	if len(m.entries) >= m.max {
		m.forget(m.now())
		if len(m.entries) >= m.max {
			return nil, ErrJournalFull
		}
	}
	m.entries[name] = e.Clone()
	if id != "" {
		m.ids[id] = name
	}
	return nil, nil
}

// Get returns the entry of k.
func (m *MemoryJournal) Get(ctx context.Context, k x402.Key) (*Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.entries[KeyName(k)]
	if !ok {
		return nil, ErrNotFound
	}
	return cur.Clone(), nil
}

// Update replaces the entry if it is still in state from.
func (m *MemoryJournal) Update(ctx context.Context, e *Entry, from State) error {
	name := e.Name()
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.entries[name]
	if !ok {
		return ErrNotFound
	}
	if cur.State != from {
		return ErrStateChanged
	}
	m.entries[name] = e.Clone()
	return nil
}

// Delete removes the entry of k if it is in state from.
func (m *MemoryJournal) Delete(ctx context.Context, k x402.Key, from State) error {
	name := KeyName(k)
	m.mu.Lock()
	defer m.mu.Unlock()
	cur, ok := m.entries[name]
	if !ok {
		return nil
	}
	if cur.State != from {
		return ErrStateChanged
	}
	m.drop(name, cur)
	return nil
}

// Unfinished lists entries not yet Confirmed or Failed.
func (m *MemoryJournal) Unfinished(ctx context.Context) ([]*Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Entry
	for _, e := range m.entries {
		if !e.State.Finished() {
			out = append(out, e.Clone())
		}
	}
	return out, nil
}

// AddDebt records item against payer.
func (m *MemoryJournal) AddDebt(ctx context.Context, payer common.Address, item DebtItem) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.debts[payer] == nil {
		m.debts[payer] = make(map[string]DebtItem)
	}
	m.debts[payer][item.Entry] = item
	return nil
}

// Debts lists payer's debt items.
func (m *MemoryJournal) Debts(ctx context.Context, payer common.Address) ([]DebtItem, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []DebtItem
	for _, d := range m.debts[payer] {
		out = append(out, d)
	}
	return out, nil
}

// ClearDebts forgets payer's debts and returns them.
func (m *MemoryJournal) ClearDebts(ctx context.Context, payer common.Address) ([]DebtItem, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []DebtItem
	for _, d := range m.debts[payer] {
		out = append(out, d)
	}
	delete(m.debts, payer)
	return out, nil
}

// Close does nothing: the memory journal has nothing to release.
func (m *MemoryJournal) Close() error { return nil }
