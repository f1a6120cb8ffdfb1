// Package boltjournal is the embedded, durable settle.Journal: one bbolt
// file in farebox's data directory. bbolt is a single-file B+tree with
// serializable read-write transactions that fsync on commit, so every
// state change is on disk before the engine sends anything, and a process
// killed at any point leaves the last committed state. bbolt locks the file:
// one process at a time, which is what an embedded journal means (replicas
// use redisjournal).
package boltjournal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/farebox/farebox/internal/groupcommit"
	"github.com/farebox/farebox/x402/settle"
)

// FileName is the journal's file in the data directory.
const FileName = "journal.db"

// Buckets: entries by KeyName, payment ids (IDName -> KeyName), the names
// of unfinished entries (so Resume does not scan history), and debt items
// in one sub-bucket per payer.
var (
	bucketEntries = []byte("entries")
	bucketIDs     = []byte("ids")
	bucketOpen    = []byte("open")
	bucketDebts   = []byte("debts")
)

// Journal is a settle.Journal in a bbolt file. Settled entries are never
// deleted. Entries in Reserved live in memory only (nothing was sent, so a
// crash may forget them: Resume would release them anyway), which keeps an
// fsync off the path before the model; the write-ahead step (Settling, with
// the transaction hash) is the first that reaches the disk.
type Journal struct {
	db      *bolt.DB
	commits *groupcommit.Committer

	// mem holds the entries in flight: Reserved ones, changes not yet on
	// disk, and unfinished ones written; readers see it first. ids indexes
	// their payment ids.
	mu  sync.Mutex
	mem map[string]*memEntry
	ids map[string]string
	due map[string]struct{} // UpdateSoon changes the flusher writes
	// debtors are the payers with a debt bucket (read at Open, kept by
	// AddDebt and ClearDebts: the file is this process's alone), so that
	// Debts of everyone else, every paid call's question, reads nothing.
	debtors  map[common.Address]struct{}
	debtMu   sync.Mutex // serializes AddDebt and ClearDebts, so debtors follows the disk
	flushing bool
	flushed  sync.WaitGroup
	closing  atomic.Bool // the flusher writes at once
}

// memEntry is an entry's newest version. dirty says it must be written
// (never for a Reserved entry); onDisk that some version of it is on disk.
// An unfinished entry stays after it was written (clean), so its next
// change needs no read and decode from disk.
type memEntry struct {
	e      *settle.Entry
	dirty  bool
	onDisk bool
}

var _ settle.Journal = (*Journal)(nil)

// Open opens (creating it and dir when missing) dir/journal.db. It waits at
// most timeout for another process holding the file (0: 5 s).
func Open(dir string, timeout time.Duration) (*Journal, error) {
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("boltjournal: %w", err)
	}
	path := filepath.Join(dir, FileName)
	// The freelist is rebuilt on open instead of written with every commit
	// (as etcd runs bbolt): less to write before each fsync.
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout, NoFreelistSync: true, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return nil, fmt.Errorf("boltjournal: opening %s: %w", path, err)
	}
	debtors := map[common.Address]struct{}{}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketEntries, bucketIDs, bucketOpen, bucketDebts} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketDebts).ForEachBucket(func(k []byte) error {
			debtors[common.BytesToAddress(k)] = struct{}{}
			return nil
		})
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("boltjournal: %w", err)
	}
	return &Journal{db: db, commits: groupcommit.New(db), mem: map[string]*memEntry{}, ids: map[string]string{},
		due: map[string]struct{}{}, debtors: debtors}, nil
}

// Path is the journal's file.
func (j *Journal) Path() string { return j.db.Path() }

// DB is the open bbolt file, for other durable state that shares the data
// directory's one file (bbolt locks it per process): the channel store
// keeps its own buckets in it.
func (j *Journal) DB() *bolt.DB { return j.db }

// Committer shares the journal's commits with other writers of DB (the
// channel store), so their writes and the journal's go to disk together.
func (j *Journal) Committer() *groupcommit.Committer { return j.commits }

// Close writes what UpdateSoon left in memory, then closes the file.
func (j *Journal) Close() error {
	j.closing.Store(true)
	j.flushed.Wait()
	return j.db.Close()
}

func decode(b []byte) (*settle.Entry, error) {
	var e settle.Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("boltjournal: corrupt entry: %w", err)
	}
	return &e, nil
}

func put(tx *bolt.Tx, e *settle.Entry) error {
	// A fresh buffer each time: bbolt keeps the value until the commit.
	b, err := e.AppendJSON(nil)
	if err != nil {
		return err
	}
	name := []byte(e.Name())
	if err := tx.Bucket(bucketEntries).Put(name, b); err != nil {
		return err
	}
	if e.PaymentID != "" {
		if err := tx.Bucket(bucketIDs).Put([]byte(settle.IDName(e.Payer, e.PaymentID)), name); err != nil {
			return err
		}
	}
	if e.State.Finished() {
		return tx.Bucket(bucketOpen).Delete(name)
	}
	return tx.Bucket(bucketOpen).Put(name, nil)
}

// write runs fn in a read-write transaction shared with the other writes
// under way (groupcommit): concurrent writers share one commit and one
// fsync, and each change is on disk when write returns. fn may run again
// (a failed shared commit is retried part by part), so it returns its
// refusal (ErrStateChanged...) apart from its error: an error would roll
// back the whole commit.
func (j *Journal) write(fn groupcommit.Func) error {
	refusal, err := j.commits.Update(fn)
	if err != nil {
		return fmt.Errorf("boltjournal: %w", err)
	}
	return refusal
}

// AddDebt records item in payer's debt bucket.
func (j *Journal) AddDebt(ctx context.Context, payer common.Address, item settle.DebtItem) error {
	b, err := json.Marshal(item)
	if err != nil {
		return err
	}
	j.debtMu.Lock()
	defer j.debtMu.Unlock()
	j.mu.Lock()
	j.debtors[payer] = struct{}{} // before the write: a reader in between looks on disk
	j.mu.Unlock()
	return j.db.Update(func(tx *bolt.Tx) error {
		pb, err := tx.Bucket(bucketDebts).CreateBucketIfNotExists(payer.Bytes())
		if err != nil {
			return err
		}
		return pb.Put([]byte(item.Entry), b)
	})
}

// Debts lists payer's debt items.
func (j *Journal) Debts(ctx context.Context, payer common.Address) ([]settle.DebtItem, error) {
	j.mu.Lock()
	_, owes := j.debtors[payer]
	j.mu.Unlock()
	if !owes {
		return nil, nil
	}
	var out []settle.DebtItem
	err := j.db.View(func(tx *bolt.Tx) error {
		pb := tx.Bucket(bucketDebts).Bucket(payer.Bytes())
		if pb == nil {
			return nil
		}
		return pb.ForEach(func(_, v []byte) error {
			var d settle.DebtItem
			if err := json.Unmarshal(v, &d); err != nil {
				return fmt.Errorf("boltjournal: corrupt debt: %w", err)
			}
			out = append(out, d)
			return nil
		})
	})
	return out, err
}

// ClearDebts deletes payer's debt bucket.
func (j *Journal) ClearDebts(ctx context.Context, payer common.Address) error {
	j.debtMu.Lock()
	defer j.debtMu.Unlock()
	err := j.db.Update(func(tx *bolt.Tx) error {
		err := tx.Bucket(bucketDebts).DeleteBucket(payer.Bytes())
		if errors.Is(err, berrors.ErrBucketNotFound) {
			return nil
		}
		return err
	})
	if err == nil {
		j.mu.Lock()
		delete(j.debtors, payer)
		j.mu.Unlock()
	}
	return err
}
