// Package bolt is every store of farebox in one bbolt file of a data
// directory (registered as the bolt:DIR setting, which data_dir means):
// the journal, the payment channels and the books share the file and its
// commits; see Set. The journal is the embedded, durable settle.Journal:
// the file and a write-ahead log beside it. bbolt is a single-file B+tree
// with serializable read-write transactions that fsync on commit; bbolt
// locks the file: one process at a time, which is what an embedded journal
// means (replicas use store/redis).
//
// The durable step (Update: the write-ahead Settling entry, before the
// engine sends anything) is on disk when it returns: it is appended to the
// log (internal/wal: one write and one fdatasync, shared by concurrent
// calls), and the B+tree gets it with the next flush, many entries per
// commit. A bbolt commit costs two fdatasyncs and rewrites pages, which per
// paid call was most of the journal's CPU. Open replays the log into the
// B+tree; every entry version carries a sequence (bucket revs), so a
// record the B+tree already holds a newer version of is skipped.
package bolt

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/farebox/farebox/internal/groupcommit"
	"github.com/farebox/farebox/internal/wal"
	"github.com/farebox/farebox/x402/settle"
)

// FileName is the journal's file in the data directory.
const FileName = "journal.db"

// LogName names the write-ahead log's segments in the data directory
// (journal.wal.1, journal.wal.2, ...).
const LogName = "journal.wal"

// rotateBytes is the log segment size past which the flusher starts a new
// segment; the old one is removed after the next flush, which holds
// everything it logged (wal.Log.Covered).
const rotateBytes = 8 << 20

// Buckets: entries by KeyName, payment ids (IDName -> KeyName), the names
// of unfinished entries (so Resume does not scan history), debt items in
// one sub-bucket per payer, the sequence of each entry's version on disk
// (revs), and the highest sequence handed out (meta).
var (
	bucketEntries = []byte("entries")
	bucketIDs     = []byte("ids")
	bucketOpen    = []byte("open")
	bucketDebts   = []byte("debts")
	bucketRevs    = []byte("revs")
	bucketMeta    = []byte("meta")
	keySeq        = []byte("seq")
)

// Journal is a settle.Journal in a bbolt file. Settled entries are never
// deleted. Entries in Reserved live in memory only (nothing was sent, so a
// crash may forget them: Resume would release them anyway), which keeps an
// fsync off the path before the model; the write-ahead step (Settling, with
// the transaction hash) is the first that reaches the disk.
type Journal struct {
	db       *bbolt.DB
	commits  *groupcommit.Committer
	log      *wal.Log
	rotateAt int64 // rotateBytes

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
	seq      uint64      // the last sequence handed to an entry version
}

// memEntry is an entry's newest version. dirty says it must be written
// (never for a Reserved entry); onDisk that some version of it is on disk.
// An unfinished entry stays after it was written (clean), so its next
// change needs no read and decode from disk.
type memEntry struct {
	e      *settle.Entry
	seq    uint64
	dirty  bool
	onDisk bool
}

var _ settle.Journal = (*Journal)(nil)

// OpenJournal opens (creating it and dir when missing) dir/journal.db. It waits at
// most timeout for another process holding the file (0: 5 s).
func OpenJournal(dir string, timeout time.Duration) (*Journal, error) {
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("boltjournal: %w", err)
	}
	path := filepath.Join(dir, FileName)
	// The freelist is rebuilt on open instead of written with every commit
	// (as etcd runs bbolt): less to write before each fsync.
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: timeout, NoFreelistSync: true, FreelistType: bbolt.FreelistMapType})
	if err != nil {
		return nil, fmt.Errorf("boltjournal: opening %s: %w", path, err)
	}
	debtors := map[common.Address]struct{}{}
	err = db.Update(func(tx *bbolt.Tx) error {
		for _, b := range [][]byte{bucketEntries, bucketIDs, bucketOpen, bucketDebts, bucketRevs, bucketMeta} {
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
	j := &Journal{db: db, commits: groupcommit.New(db), mem: map[string]*memEntry{}, ids: map[string]string{},
		due: map[string]struct{}{}, debtors: debtors, rotateAt: rotateBytes}
	if j.log, err = wal.Open(dir, LogName); err == nil {
		err = j.replay()
	}
	if err != nil {
		if j.log != nil {
			_ = j.log.Close()
		}
		_ = db.Close()
		return nil, fmt.Errorf("boltjournal: %w", err)
	}
	return j, nil
}

// logRecord is an Update as logged: the version's sequence (8 bytes, big
// endian), then the entry's JSON as the B+tree stores it.
func logRecord(seq uint64, e *settle.Entry) ([]byte, error) {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 2048), seq)
	return e.AppendJSON(b)
}

// replay writes the log's entries into the B+tree, each unless the tree
// holds a version of that entry as new or newer, in one commit; then the
// log's old segments go.
func (j *Journal) replay() error {
	type rec struct {
		seq uint64
		e   *settle.Entry
	}
	var recs []rec
	err := j.log.Replay(func(b []byte) error {
		if len(b) < 8 {
			return errors.New("a log record without its sequence")
		}
		e, err := decode(b[8:])
		if err != nil {
			return err
		}
		recs = append(recs, rec{binary.BigEndian.Uint64(b), e})
		return nil
	})
	if err != nil {
		return err
	}
	err = j.db.Update(func(tx *bbolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if v := meta.Get(keySeq); len(v) == 8 {
			j.seq = binary.BigEndian.Uint64(v)
		}
		revs := tx.Bucket(bucketRevs)
		for _, r := range recs {
			j.seq = max(j.seq, r.seq)
			if v := revs.Get([]byte(r.e.Name())); len(v) == 8 && binary.BigEndian.Uint64(v) >= r.seq {
				continue
			}
			if err := put(tx, r.e, r.seq); err != nil {
				return err
			}
		}
		return meta.Put(keySeq, binary.BigEndian.AppendUint64(nil, j.seq))
	})
	if err != nil {
		return err
	}
	// Every segment before the one Open started is in the tree now.
	return j.log.Remove(^uint64(0))
}

// Path is the journal's file.
func (j *Journal) Path() string { return j.db.Path() }

// DB is the open bbolt file, for other durable state that shares the data
// directory's one file (bbolt locks it per process): the channel store
// keeps its own buckets in it.
func (j *Journal) DB() *bbolt.DB { return j.db }

// Committer shares the journal's commits with other writers of DB (the
// channel store), so their writes and the journal's go to disk together.
func (j *Journal) Committer() *groupcommit.Committer { return j.commits }

// Close writes what the memory holds to the B+tree, then closes the files.
func (j *Journal) Close() error {
	j.closing.Store(true)
	j.flushed.Wait()
	lerr := j.log.Close()
	if err := j.db.Close(); err != nil {
		return err
	}
	return lerr
}

func decode(b []byte) (*settle.Entry, error) {
	var e settle.Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("boltjournal: corrupt entry: %w", err)
	}
	return &e, nil
}

// put writes e, version seq, to the tree.
func put(tx *bbolt.Tx, e *settle.Entry, seq uint64) error {
	// A fresh buffer each time: bbolt keeps the value until the commit.
	b, err := e.AppendJSON(nil)
	if err != nil {
		return err
	}
	name := []byte(e.Name())
	if err := tx.Bucket(bucketEntries).Put(name, b); err != nil {
		return err
	}
	if err := tx.Bucket(bucketRevs).Put(name, binary.BigEndian.AppendUint64(nil, seq)); err != nil {
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
	return j.db.Update(func(tx *bbolt.Tx) error {
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
	err := j.db.View(func(tx *bbolt.Tx) error {
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

// ClearDebts deletes payer's debt bucket and returns its items.
func (j *Journal) ClearDebts(ctx context.Context, payer common.Address) ([]settle.DebtItem, error) {
	j.debtMu.Lock()
	defer j.debtMu.Unlock()
	var out []settle.DebtItem
	err := j.db.Update(func(tx *bbolt.Tx) error {
		out = nil
		if pb := tx.Bucket(bucketDebts).Bucket(payer.Bytes()); pb != nil {
			if err := pb.ForEach(func(_, v []byte) error {
				var d settle.DebtItem
				if err := json.Unmarshal(v, &d); err != nil {
					return fmt.Errorf("boltjournal: corrupt debt: %w", err)
				}
				out = append(out, d)
				return nil
			}); err != nil {
				return err
			}
		}
		err := tx.Bucket(bucketDebts).DeleteBucket(payer.Bytes())
		if errors.Is(err, berrors.ErrBucketNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	j.mu.Lock()
	delete(j.debtors, payer)
	j.mu.Unlock()
	return out, nil
}
