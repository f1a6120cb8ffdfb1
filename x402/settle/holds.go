package settle

import (
	"context"
	"errors"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// ErrInsufficientFunds is returned when the payer's balance minus what it
// already has in flight does not cover this purchase (HTTP 402, reason
// insufficient_funds).
var ErrInsufficientFunds = errors.New("settle: the payer's balance minus its payments in flight does not cover this one")

// Account is the balance holds are counted against: one payer's balance of
// one token on one chain.
type Account struct {
	ChainID string // decimal
	Asset   common.Address
	Payer   common.Address
}

// Holds is per-payer in-flight accounting: money promised by authorizations
// that were accepted but whose transfer is not mined yet. A hold has an id
// (the authorization's KeyName) and an expiry, so the holds of a replica
// that died go away on their own.
type Holds interface {
	// Hold adds amount under id to a's holds if balance minus the live
	// holds covers it, else ErrInsufficientFunds. The holds named in shown
	// are not counted: balance already shows their transfers (mined
	// before their hold was released). Holding an id again is a no-op
	// (nil), whatever the amount: retries do not count twice.
	Hold(ctx context.Context, a Account, id string, amount, balance *big.Int, expires time.Time, shown ...string) error
	// Release removes the hold id of a; a missing hold is not an error.
	Release(ctx context.Context, a Account, id string) error
	// Held is the sum of a's live holds.
	Held(ctx context.Context, a Account) (*big.Int, error)
	// IDs lists a's live holds.
	IDs(ctx context.Context, a Account) ([]string, error)
}

// MemoryHolds keeps holds in process: right for one replica. Each account
// keeps the sum of its holds and the earliest expiry among them, so a hold
// costs the same whatever the payer has in flight (a payer with thousands
// of calls in flight does not make each new one scan them all); expired
// holds are dropped when that earliest expiry has passed.
type MemoryHolds struct {
	mu    sync.Mutex
	holds map[Account]*accountHolds
	// Now is the clock used to drop expired holds; nil means time.Now.
	Now func() time.Time
}

type hold struct {
	amount  *big.Int
	expires time.Time
}

// accountHolds is one account's holds with their sum and the earliest
// expiry among them (never later than the true earliest: a release may
// leave it early, which costs one extra scan).
type accountHolds struct {
	items    map[string]hold
	sum      *big.Int
	earliest time.Time
}

var _ Holds = (*MemoryHolds)(nil)

// NewMemoryHolds returns empty in-process holds.
func NewMemoryHolds() *MemoryHolds {
	return &MemoryHolds{holds: make(map[Account]*accountHolds)}
}

func (m *MemoryHolds) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// live drops a's expired holds once the earliest has expired and returns
// a's holds (nil when none are left); caller holds mu.
func (m *MemoryHolds) live(a Account) *accountHolds {
	ah := m.holds[a]
	if ah == nil {
		return nil
	}
	if now := m.now(); !ah.earliest.After(now) {
		ah.sum.SetInt64(0)
		ah.earliest = time.Time{}
		for id, h := range ah.items {
			if !h.expires.After(now) {
				delete(ah.items, id)
				continue
			}
			ah.sum.Add(ah.sum, h.amount)
			if ah.earliest.IsZero() || h.expires.Before(ah.earliest) {
				ah.earliest = h.expires
			}
		}
	}
	if len(ah.items) == 0 {
		delete(m.holds, a)
		return nil
	}
	return ah
}

// Hold adds a hold if the balance covers it.
func (m *MemoryHolds) Hold(ctx context.Context, a Account, id string, amount, balance *big.Int, expires time.Time, shown ...string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ah := m.live(a)
	held := new(big.Int)
	if ah != nil {
		if _, ok := ah.items[id]; ok {
			return nil
		}
		held.Set(ah.sum)
		for i, s := range shown {
			if h, ok := ah.items[s]; ok && !slices.Contains(shown[:i], s) {
				held.Sub(held, h.amount)
			}
		}
	}
	if held.Sub(balance, held).Cmp(amount) < 0 {
		return ErrInsufficientFunds
	}
	if ah == nil {
		ah = &accountHolds{items: make(map[string]hold), sum: new(big.Int)}
		m.holds[a] = ah
	}
	ah.items[id] = hold{amount: new(big.Int).Set(amount), expires: expires}
	ah.sum.Add(ah.sum, amount)
	if ah.earliest.IsZero() || expires.Before(ah.earliest) {
		ah.earliest = expires
	}
	return nil
}

// Release removes a hold.
func (m *MemoryHolds) Release(ctx context.Context, a Account, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ah := m.holds[a]
	if ah == nil {
		return nil
	}
	if h, ok := ah.items[id]; ok {
		delete(ah.items, id)
		ah.sum.Sub(ah.sum, h.amount)
	}
	if len(ah.items) == 0 {
		delete(m.holds, a)
	}
	return nil
}

// IDs lists a's live holds.
func (m *MemoryHolds) IDs(ctx context.Context, a Account) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ah := m.live(a)
	if ah == nil {
		return nil, nil
	}
	ids := make([]string, 0, len(ah.items))
	for id := range ah.items {
		ids = append(ids, id)
	}
	return ids, nil
}

// Held sums a's live holds.
func (m *MemoryHolds) Held(ctx context.Context, a Account) (*big.Int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ah := m.live(a); ah != nil {
		return new(big.Int).Set(ah.sum), nil
	}
	return new(big.Int), nil
}
