package x402

import (
	"container/heap"
	"context"
	"errors"
	"sync"
	"time"
)

// ErrReplay is returned by ReplayStore.Reserve when the authorization is in
// flight or was already used.
var ErrReplay = errors.New("x402: authorization already used")

// ErrReplayStoreFull is returned by MemoryStore.Reserve when it holds its
// maximum of live entries. Evicting a live entry would reopen a replay hole,
// so the store refuses new payments until entries expire.
var ErrReplayStoreFull = errors.New("x402: replay store is full")

// Key identifies this payment's authorization for replay protection on n:
// (chainId, asset, from, nonce), never the malleable signature.
func (p *Payment) Key(n *Network) Key {
	return Key{ChainID: n.ChainID.String(), Asset: n.Asset, From: p.Authorization.From, Nonce: p.Authorization.Nonce}
}

// Expires is when the authorization stops being valid on chain: the moment
// its replay-store entry may be forgotten.
func (a *Authorization) Expires() time.Time {
	if a.ValidBefore == nil || !a.ValidBefore.IsInt64() {
		return time.Unix(1<<62, 0)
	}
	return time.Unix(a.ValidBefore.Int64(), 0)
}

// MemoryStore is the in-process ReplayStore: one mutex, a map and a min-heap
// of expiry times, purged lazily on Reserve. It is bounded: when full it
// refuses new reservations rather than forget a live one.
type MemoryStore struct {
	mu      sync.Mutex
	max     int
	entries map[Key]*replayEntry
	byTime  expiryHeap
	// Now is the clock used to purge expired entries; nil means time.Now.
	Now func() time.Time
}

type replayEntry struct {
	key       Key
	expires   time.Time
	committed bool
	index     int // position in the heap
}

// NewMemoryStore returns a store holding at most maxEntries live
// authorizations (at least 1).
func NewMemoryStore(maxEntries int) *MemoryStore {
	if maxEntries < 1 {
		maxEntries = 1
	}
	return &MemoryStore{max: maxEntries, entries: make(map[Key]*replayEntry)}
}

// Len reports how many authorizations the store currently holds.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}

func (m *MemoryStore) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// purge drops entries whose expiry has passed. Caller holds mu.
func (m *MemoryStore) purge(now time.Time) {
	for len(m.byTime) > 0 && !m.byTime[0].expires.After(now) {
		e := heap.Pop(&m.byTime).(*replayEntry)
		delete(m.entries, e.key)
	}
}

// Reserve claims k until expires; ErrReplay if it is already held.
func (m *MemoryStore) Reserve(ctx context.Context, k Key, expires time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.purge(m.now())
	if _, taken := m.entries[k]; taken {
		return ErrReplay
	}
	if len(m.entries) >= m.max {
		return ErrReplayStoreFull
	}
	e := &replayEntry{key: k, expires: expires}
	m.entries[k] = e
	heap.Push(&m.byTime, e)
	return nil
}

// Commit marks k as used for good until expires (the later of the
// reservation's and this expiry). Committing an unreserved key records it.
func (m *MemoryStore) Commit(ctx context.Context, k Key, expires time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[k]
	if !ok {
		e = &replayEntry{key: k, expires: expires, committed: true}
		m.entries[k] = e
		heap.Push(&m.byTime, e)
		return nil
	}
	e.committed = true
	if expires.After(e.expires) {
		e.expires = expires
		heap.Fix(&m.byTime, e.index)
	}
	return nil
}

// Release frees a reservation that was not committed, so the payer may use
// the same authorization again; a committed key stays used.
func (m *MemoryStore) Release(ctx context.Context, k Key) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[k]
	if !ok || e.committed {
		return nil
	}
	heap.Remove(&m.byTime, e.index)
	delete(m.entries, k)
	return nil
}

// expiryHeap orders entries by expiry, soonest first.
type expiryHeap []*replayEntry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].expires.Before(h[j].expires) }
func (h expiryHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *expiryHeap) Push(x any) {
	e := x.(*replayEntry)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}
