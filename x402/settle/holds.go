package settle

import (
	"context"
	"errors"
	"math/big"
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
	// holds covers it, else ErrInsufficientFunds. Holding an id again is a
	// no-op (nil), whatever the amount: retries do not count twice.
	Hold(ctx context.Context, a Account, id string, amount, balance *big.Int, expires time.Time) error
	// Release removes the hold id of a; a missing hold is not an error.
	Release(ctx context.Context, a Account, id string) error
	// Held is the sum of a's live holds.
	Held(ctx context.Context, a Account) (*big.Int, error)
}

// MemoryHolds keeps holds in process: right for one replica.
type MemoryHolds struct {
	mu    sync.Mutex
	holds map[Account]map[string]hold
	// Now is the clock used to drop expired holds; nil means time.Now.
	Now func() time.Time
}

type hold struct {
	amount  *big.Int
	expires time.Time
}

var _ Holds = (*MemoryHolds)(nil)

// NewMemoryHolds returns empty in-process holds.
func NewMemoryHolds() *MemoryHolds {
	return &MemoryHolds{holds: make(map[Account]map[string]hold)}
}

func (m *MemoryHolds) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// live drops a's expired holds and sums the others; caller holds mu.
func (m *MemoryHolds) live(a Account) *big.Int {
	sum, now := new(big.Int), m.now()
	for id, h := range m.holds[a] {
		if !h.expires.After(now) {
			delete(m.holds[a], id)
			continue
		}
		sum.Add(sum, h.amount)
	}
	if len(m.holds[a]) == 0 {
		delete(m.holds, a)
	}
	return sum
}

// Hold adds a hold if the balance covers it.
func (m *MemoryHolds) Hold(ctx context.Context, a Account, id string, amount, balance *big.Int, expires time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	held := m.live(a)
	if _, ok := m.holds[a][id]; ok {
		return nil
	}
	if new(big.Int).Sub(balance, held).Cmp(amount) < 0 {
		return ErrInsufficientFunds
	}
	if m.holds[a] == nil {
		m.holds[a] = make(map[string]hold)
	}
	m.holds[a][id] = hold{amount: new(big.Int).Set(amount), expires: expires}
	return nil
}

// Release removes a hold.
func (m *MemoryHolds) Release(ctx context.Context, a Account, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.holds[a], id)
	if len(m.holds[a]) == 0 {
		delete(m.holds, a)
	}
	return nil
}

// Held sums a's live holds.
func (m *MemoryHolds) Held(ctx context.Context, a Account) (*big.Int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.live(a), nil
}
