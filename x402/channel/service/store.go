package service

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/farebox/farebox/x402/channel"
)

// Record is what the Store keeps per channel: the spec's channel state and
// a deposit signed for it but not yet seen mined.
type Record struct {
	State *channel.State `json:"state"`
	// Rev is the record's revision, bumped by every Put: writes are
	// compare-and-swap on it, so a replica never overwrites a newer state.
	Rev uint64 `json:"rev"`
	// Deposit is journaled before a deposit's broadcast and cleared once
	// the chain was read after it: a process that died in between reads the
	// chain before trusting the record.
	Deposit *PendingTx `json:"deposit,omitempty"`
	// Quarantine is set when the settlement contract refused the channel's
	// voucher at claim time: the channel is served no more and left out of
	// claims, so its payer cannot hold up anyone else's.
	Quarantine *Quarantine `json:"quarantine,omitempty"`
	// RefundedAt is when the last cooperative refund of the channel was sent
	// (unix milliseconds, 0 for never): refunds are rate-limited per channel.
	RefundedAt int64 `json:"refundedAt,omitempty"`
}

// Quarantine says why and since when a channel is no longer served.
type Quarantine struct {
	Reason string `json:"reason"`
	At     int64  `json:"at"` // unix milliseconds
}

// PendingTx is a relayer transaction signed and maybe broadcast, whose
// outcome is not yet recorded.
type PendingTx struct {
	Tx     common.Hash `json:"tx"`
	Amount string      `json:"amount,omitempty"`
}

// ClaimRecord is a claim-and-settle transaction journaled before its
// broadcast: on restart the claimer awaits it before claiming again.
type ClaimRecord struct {
	// Key names the batch: receiver and token (one sweep each).
	Key      string      `json:"key"`
	Tx       common.Hash `json:"tx"`
	Channels []string    `json:"channels"` // channel ids (hex)
	Total    string      `json:"total"`    // sum of the rows' increments
	SignedAt int64       `json:"signedAt"` // unix milliseconds
}

// ErrConflict means the stored revision is not the one the writer read:
// another writer (replica) changed the record meanwhile.
var ErrConflict = errors.New("channel store: the record changed meanwhile")

// ErrLocked means another request (or replica) holds the lock.
var ErrLocked = errors.New("channel store: locked")

// Store keeps channel records durably and serialises work on a channel.
// Every implementation must survive a restart of the process (memory
// only within one process) and, for Redis, share state and locks across
// replicas.
type Store interface {
	// Get returns the channel's record, nil (and no error) when none.
	Get(ctx context.Context, id [32]byte) (*Record, error)
	// Put writes rec when the stored revision is still prev (0: no
	// record) and sets rec.Rev to prev+1; else ErrConflict.
	Put(ctx context.Context, rec *Record, prev uint64) error
	// Delete removes the record when its revision is still prev.
	Delete(ctx context.Context, id [32]byte, prev uint64) error
	// List returns every record.
	List(ctx context.Context) ([]*Record, error)
	// PutClaim journals an in-flight claim under its Key.
	PutClaim(ctx context.Context, c *ClaimRecord) error
	// Claims returns the journaled in-flight claims.
	Claims(ctx context.Context) ([]*ClaimRecord, error)
	// DeleteClaim forgets the in-flight claim key.
	DeleteClaim(ctx context.Context, key string) error
	// TryLock takes the named lock or returns ErrLocked at once. The lock
	// lasts until unlock (a shared store also lets it lapse after ttl when
	// its holder died); unlock is idempotent.
	TryLock(ctx context.Context, name string, ttl time.Duration) (unlock func(), err error)
}

// ChannelKey names a channel in stores and locks (its id in hex): every
// store keys its records by it, so the data a store wrote stays readable.
func ChannelKey(id [32]byte) string { return common.Hash(id).Hex() }

func channelKey(id [32]byte) string { return ChannelKey(id) }

// EncodeRecord writes rec as encoding/json would (its tags), without
// reflection for the state: one record is written per paid request, in
// every store.
func EncodeRecord(rec *Record) ([]byte, error) {
	if rec.State == nil {
		return nil, errors.New("channel store: record without state")
	}
	b := make([]byte, 0, 896)
	b = append(b, `{"state":`...)
	b = rec.State.AppendJSON(b)
	b = append(b, `,"rev":`...)
	b = strconv.AppendUint(b, rec.Rev, 10)
	for _, f := range []struct {
		name string
		v    any
		set  bool
	}{{"deposit", rec.Deposit, rec.Deposit != nil}, {"quarantine", rec.Quarantine, rec.Quarantine != nil}} {
		if !f.set {
			continue
		}
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, `,"`...), f.name...), `":`...)
		b = append(b, v...)
	}
	if rec.RefundedAt != 0 {
		b = append(b, `,"refundedAt":`...)
		b = strconv.AppendInt(b, rec.RefundedAt, 10)
	}
	return append(b, '}'), nil
}

// Clone is a deep copy of the record, for a store that keeps records
// decoded and must not share them with its callers.
func (r *Record) Clone() *Record {
	n := *r
	n.State = r.State.Clone()
	if r.Deposit != nil {
		d := *r.Deposit
		n.Deposit = &d
	}
	if r.Quarantine != nil {
		q := *r.Quarantine
		n.Quarantine = &q
	}
	return &n
}

// DecodeRecord reads a record EncodeRecord wrote, refusing one without a
// state (every store reads its records through it).
func DecodeRecord(b []byte) (*Record, error) {
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	if r.State == nil {
		return nil, errors.New("channel store: record without state")
	}
	return &r, nil
}

// Locks is the in-process lock table of the stores whose locks are one
// process's (memory, bbolt): the zero value holds no lock.
type Locks struct {
	mu   sync.Mutex
	held map[string]struct{}
}

// TryLock takes the named lock or returns ErrLocked at once; the returned
// unlock is idempotent.
func (l *Locks) TryLock(name string) (func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held == nil {
		l.held = map[string]struct{}{}
	}
	if _, ok := l.held[name]; ok {
		return nil, ErrLocked
	}
	l.held[name] = struct{}{}
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			delete(l.held, name)
			l.mu.Unlock()
		})
	}, nil
}

// MemoryStore is a Store in process memory: state is lost with the
// process (the spec's recovery then forfeits unclaimed charges), so it is
// for tests and throwaway dev runs.
type MemoryStore struct {
	mu     sync.Mutex
	recs   map[string][]byte
	claims map[string]*ClaimRecord
	locks  Locks
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{recs: map[string][]byte{}, claims: map[string]*ClaimRecord{}}
}

// Get implements Store.
func (m *MemoryStore) Get(_ context.Context, id [32]byte) (*Record, error) {
	m.mu.Lock()
	b, ok := m.recs[channelKey(id)]
	m.mu.Unlock()
	if !ok {
		return nil, nil
	}
	return DecodeRecord(b)
}

func (m *MemoryStore) rev(key string) uint64 {
	b, ok := m.recs[key]
	if !ok {
		return 0
	}
	r, err := DecodeRecord(b)
	if err != nil {
		return 0
	}
	return r.Rev
}

// Put implements Store.
func (m *MemoryStore) Put(_ context.Context, rec *Record, prev uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := channelKey(rec.State.ChannelID)
	if m.rev(key) != prev {
		return ErrConflict
	}
	rec.Rev = prev + 1
	b, err := EncodeRecord(rec)
	if err != nil {
		return err
	}
	m.recs[key] = b
	return nil
}

// Delete implements Store.
func (m *MemoryStore) Delete(_ context.Context, id [32]byte, prev uint64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := channelKey(id)
	if m.rev(key) != prev {
		return ErrConflict
	}
	delete(m.recs, key)
	return nil
}

// List implements Store.
func (m *MemoryStore) List(context.Context) ([]*Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Record, 0, len(m.recs))
	for _, b := range m.recs {
		r, err := DecodeRecord(b)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// PutClaim implements Store.
func (m *MemoryStore) PutClaim(_ context.Context, c *ClaimRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	cp := *c
	m.claims[c.Key] = &cp
	return nil
}

// Claims implements Store.
func (m *MemoryStore) Claims(context.Context) ([]*ClaimRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*ClaimRecord, 0, len(m.claims))
	for _, c := range m.claims {
		cp := *c
		out = append(out, &cp)
	}
	return out, nil
}

// DeleteClaim implements Store.
func (m *MemoryStore) DeleteClaim(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.claims, key)
	return nil
}

// TryLock implements Store (in-process only).
func (m *MemoryStore) TryLock(_ context.Context, name string, _ time.Duration) (func(), error) {
	return m.locks.TryLock(name)
}
