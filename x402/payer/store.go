package payer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// ChannelKey names the batch-settlement channels of one payer with one
// receiver on one network (one file of a FileChannels store).
type ChannelKey struct {
	Payer    common.Address
	Network  string // CAIP-2
	Receiver common.Address
}

// ChannelRecord is what the payer knows of one channel: the amounts are
// the client's own bookkeeping (spec: it never copies the server's
// channelState, it adds the charges the receipts report).
type ChannelRecord struct {
	ChannelID common.Hash `json:"channelId"`
	// Salt is the channel config's salt (random for a channel this payer
	// opened): with the server's terms it gives the channel id back, which
	// is how the channel is read on chain.
	Salt common.Hash `json:"salt"`
	// Balance is what the payer deposited (minus refunds) as far as it knows.
	Balance *big.Int `json:"balance"`
	// Charged is chargedCumulativeAmount: the sum of the charges receipts reported.
	Charged *big.Int `json:"chargedCumulativeAmount"`
	// Signed is the highest voucher ceiling ever signed for the channel:
	// what the receiver could claim at most.
	Signed *big.Int `json:"signedMaxClaimable"`
	// Deposit is a deposit authorization that was sent and whose outcome is
	// unknown: it is presented again rather than signing a second one.
	Deposit *PendingDeposit `json:"pendingDeposit,omitempty"`
	// Chain is the chain the channel lives on: a record whose chain is
	// provably not the offer's is set aside, and the next payment deposits.
	Chain *ChainMark `json:"chain,omitempty"`
}

// PendingDeposit is a signed deposit authorization (EIP-3009 or Permit2)
// not yet known to have landed.
type PendingDeposit struct {
	Method    string        `json:"method"` // channel.MethodEIP3009 or channel.MethodPermit2
	Amount    *big.Int      `json:"amount"`
	Expires   int64         `json:"expires"` // validBefore / deadline, unix seconds
	Nonce     hexutil.Bytes `json:"nonce"`   // EIP-3009 salt or Permit2 nonce (32 bytes)
	Signature hexutil.Bytes `json:"signature"`
	// Permit is the EIP-2612 gas-sponsoring extension sent with a Permit2
	// deposit, raw, or empty.
	Permit json.RawMessage `json:"eip2612,omitempty"`
}

func (r *ChannelRecord) clone() *ChannelRecord {
	n := *r
	n.Balance, n.Charged, n.Signed = new(big.Int).Set(r.Balance), new(big.Int).Set(r.Charged), new(big.Int).Set(r.Signed)
	if r.Deposit != nil {
		d := *r.Deposit
		n.Deposit = &d
	}
	if r.Chain != nil {
		c := *r.Chain
		n.Chain = &c
	}
	return &n
}

// ChannelStore keeps ChannelRecords. Lock serialises everything done with
// one key (within a process and, for FileChannels, across processes): the
// transport holds it from signing a voucher until its answer is read.
type ChannelStore interface {
	Lock(ctx context.Context, k ChannelKey) (unlock func(), err error)
	// Get returns the record of channel id, nil when there is none.
	Get(k ChannelKey, id common.Hash) (*ChannelRecord, error)
	Put(k ChannelKey, r *ChannelRecord) error
	Delete(k ChannelKey, id common.Hash) error
	// List returns every record of k.
	List(k ChannelKey) ([]*ChannelRecord, error)
	// SetAside moves r out of k's records and keeps it apart (a channel
	// on a chain that is gone): never read again, never deleted.
	SetAside(k ChannelKey, r *ChannelRecord) error
}

// keyLocks is a context-aware mutex per key.
type keyLocks struct {
	mu    sync.Mutex
	locks map[string]chan struct{}
}

func (l *keyLocks) lock(ctx context.Context, k string) (func(), error) {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[string]chan struct{}{}
	}
	ch, ok := l.locks[k]
	if !ok {
		ch = make(chan struct{}, 1)
		l.locks[k] = ch
	}
	l.mu.Unlock()
	select {
	case ch <- struct{}{}:
		var once sync.Once
		return func() { once.Do(func() { <-ch }) }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// String names k: payer/network/receiver, lower-case.
func (k ChannelKey) String() string {
	return strings.ToLower(k.Payer.Hex() + "/" + k.Network + "/" + k.Receiver.Hex())
}

// MemoryChannels is a ChannelStore in memory: channels are forgotten when
// the process ends (the next deposit or a corrective 402 recovers them).
type MemoryChannels struct {
	locks keyLocks
	mu    sync.Mutex
	recs  map[string]map[common.Hash]*ChannelRecord
	aside []*ChannelRecord
}

// NewMemoryChannels returns an empty in-memory store.
func NewMemoryChannels() *MemoryChannels {
	return &MemoryChannels{recs: map[string]map[common.Hash]*ChannelRecord{}}
}

// Lock implements ChannelStore.
func (m *MemoryChannels) Lock(ctx context.Context, k ChannelKey) (func(), error) {
	return m.locks.lock(ctx, k.String())
}

// Get implements ChannelStore.
func (m *MemoryChannels) Get(k ChannelKey, id common.Hash) (*ChannelRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r := m.recs[k.String()][id]; r != nil {
		return r.clone(), nil
	}
	return nil, nil
}

// Put implements ChannelStore.
func (m *MemoryChannels) Put(k ChannelKey, r *ChannelRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.recs[k.String()] == nil {
		m.recs[k.String()] = map[common.Hash]*ChannelRecord{}
	}
	m.recs[k.String()][r.ChannelID] = r.clone()
	return nil
}

// List implements ChannelStore.
func (m *MemoryChannels) List(k ChannelKey) ([]*ChannelRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*ChannelRecord
	for _, r := range m.recs[k.String()] {
		out = append(out, r.clone())
	}
	return out, nil
}

// Delete implements ChannelStore.
func (m *MemoryChannels) Delete(k ChannelKey, id common.Hash) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.recs[k.String()], id)
	return nil
}

// SetAside implements ChannelStore.
func (m *MemoryChannels) SetAside(k ChannelKey, r *ChannelRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.aside = append(m.aside, r.clone())
	delete(m.recs[k.String()], r.ChannelID)
	return nil
}

// SetAsideRecords returns the records set aside, oldest first.
func (m *MemoryChannels) SetAsideRecords() []*ChannelRecord {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*ChannelRecord, 0, len(m.aside))
	for _, r := range m.aside {
		out = append(out, r.clone())
	}
	return out
}

// FileChannels is a ChannelStore of JSON files under a directory, one per
// payer, network and receiver (DIR/<payer>/<network>/<receiver>.json, the
// channels by id), written atomically (temporary file, fsync, rename) and
// locked with flock on a sibling .lock file, so processes sharing the
// directory take turns.
type FileChannels struct {
	dir   string
	locks keyLocks
}

// NewFileChannels returns a store under dir, created with its first
// channel (a payer that never opens one leaves no trace).
func NewFileChannels(dir string) (*FileChannels, error) {
	if dir == "" {
		return nil, errors.New("payer: channel store needs a directory")
	}
	return &FileChannels{dir: dir}, nil
}

// path is the file of k; the network's ':' is kept out of file names.
func (f *FileChannels) path(k ChannelKey) string {
	return filepath.Join(f.dir, strings.ToLower(k.Payer.Hex()), strings.ReplaceAll(k.Network, ":", "_"),
		strings.ToLower(k.Receiver.Hex())+".json")
}

// Lock implements ChannelStore: an in-process lock, then flock.
func (f *FileChannels) Lock(ctx context.Context, k ChannelKey) (func(), error) {
	unlock, err := f.locks.lock(ctx, k.String())
	if err != nil {
		return nil, err
	}
	p := f.path(k)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		unlock()
		return nil, err
	}
	lf, err := os.OpenFile(p+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		unlock()
		return nil, err
	}
	if err := flock(ctx, lf); err != nil {
		lf.Close()
		unlock()
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			syscall.Flock(int(lf.Fd()), syscall.LOCK_UN)
			lf.Close()
			unlock()
		})
	}, nil
}

func (f *FileChannels) read(k ChannelKey) (map[common.Hash]*ChannelRecord, error) {
	b, err := os.ReadFile(f.path(k))
	if errors.Is(err, os.ErrNotExist) {
		return map[common.Hash]*ChannelRecord{}, nil
	}
	if err != nil {
		return nil, err
	}
	var file struct {
		Channels map[common.Hash]*ChannelRecord `json:"channels"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		return nil, fmt.Errorf("payer: channel store %s: %w", f.path(k), err)
	}
	if file.Channels == nil {
		file.Channels = map[common.Hash]*ChannelRecord{}
	}
	for id, r := range file.Channels {
		if r == nil || r.Balance == nil || r.Charged == nil || r.Signed == nil {
			return nil, fmt.Errorf("payer: channel store %s: incomplete record %s", f.path(k), id.Hex())
		}
	}
	return file.Channels, nil
}

func (f *FileChannels) write(k ChannelKey, recs map[common.Hash]*ChannelRecord) error {
	p := f.path(k)
	b, err := json.MarshalIndent(struct {
		Channels map[common.Hash]*ChannelRecord `json:"channels"`
	}{recs}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".channels-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}

// Get implements ChannelStore.
func (f *FileChannels) Get(k ChannelKey, id common.Hash) (*ChannelRecord, error) {
	recs, err := f.read(k)
	if err != nil {
		return nil, err
	}
	return recs[id], nil
}

// Put implements ChannelStore; call it holding Lock(k).
func (f *FileChannels) Put(k ChannelKey, r *ChannelRecord) error {
	recs, err := f.read(k)
	if err != nil {
		return err
	}
	recs[r.ChannelID] = r.clone()
	return f.write(k, recs)
}

// List implements ChannelStore.
func (f *FileChannels) List(k ChannelKey) ([]*ChannelRecord, error) {
	recs, err := f.read(k)
	if err != nil {
		return nil, err
	}
	out := make([]*ChannelRecord, 0, len(recs))
	for _, r := range recs {
		out = append(out, r)
	}
	return out, nil
}

// Delete implements ChannelStore; call it holding Lock(k).
func (f *FileChannels) Delete(k ChannelKey, id common.Hash) error {
	recs, err := f.read(k)
	if err != nil {
		return err
	}
	delete(recs, id)
	return f.write(k, recs)
}

// SetAside implements ChannelStore; call it holding Lock(k). The record is
// written to DIR/<payer>/<network>/set-aside/<receiver>-<channel>-<unix
// nanoseconds>.json first, then removed from k's file.
func (f *FileChannels) SetAside(k ChannelKey, r *ChannelRecord) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Join(filepath.Dir(f.path(k)), "set-aside")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	name := fmt.Sprintf("%s-%s-%d.json", strings.ToLower(k.Receiver.Hex()), strings.ToLower(r.ChannelID.Hex()), time.Now().UnixNano())
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
		return err
	}
	return f.Delete(k, r.ChannelID)
}

// flockPoll is how often a lock held by another process is tried again.
const flockPoll = 20 * time.Millisecond

// flock takes an exclusive flock on f, giving up when ctx ends (another
// process may hold the channel for a whole request).
func flock(ctx context.Context, f *os.File) error {
	tick := time.NewTicker(flockPoll)
	defer tick.Stop()
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}
