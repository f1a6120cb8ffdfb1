package bolt

import (
	"github.com/farebox/farebox/x402/channel/service"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	bbolt "go.etcd.io/bbolt"

	"github.com/farebox/farebox/internal/groupcommit"
)

// Buckets of the bbolt store, beside the settlement journal's in the same
// file when the caller shares it.
var (
	bucketChannels = []byte("channels")
	bucketClaims   = []byte("channel_claims")
)

// Channels is a Store in a bbolt file: durable (every write is on disk
// when it returns), one process at a time. Locks are in-process. Writes
// from concurrent calls (vouchers on different channels) share commits and
// so fsyncs (groupcommit). The records are also kept decoded in memory
// (the file is this store's alone: open one Channels per file), so a
// paid request reads its channel without decoding it.
type Channels struct {
	db      *bbolt.DB
	commits *groupcommit.Committer
	own     bool
	locks   service.Locks
	cache   recordCache
	logged  *channelLog // nil: each write is a commit of its own (see store_log.go)
}

// recordCache holds the records as last committed. A write empties its
// channel's entry when it starts and fills it when it committed, unless
// another write of the channel started meanwhile (of writes that overlap,
// at most one can pass the revision check, and it may not be the last to
// finish); a read fills it only when no write of the channel started or
// ran while it read the file.
type recordCache struct {
	mu       sync.Mutex
	recs     map[[32]byte]*service.Record
	started  map[[32]byte]uint64 // writes started, per channel
	inflight map[[32]byte]int
}

// maxCachedRecords bounds the cache; past it the cache starts over.
const maxCachedRecords = 1 << 16

// get returns a copy of the cached record, or the write count to pass to fill.
func (c *recordCache) get(id [32]byte) (*service.Record, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.recs[id]; r != nil {
		return r.Clone(), 0, true
	}
	return nil, c.started[id], false
}

// fill caches rec, read from the file when started writes had begun.
func (c *recordCache) fill(id [32]byte, rec *service.Record, started uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if rec == nil || c.started[id] != started || c.inflight[id] > 0 {
		return
	}
	c.put(id, rec.Clone())
}

func (c *recordCache) put(id [32]byte, rec *service.Record) {
	if c.recs == nil || len(c.recs) >= maxCachedRecords {
		c.recs = map[[32]byte]*service.Record{}
	}
	c.recs[id] = rec
}

// begin marks a write of id under way and returns its number.
func (c *recordCache) begin(id [32]byte) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started == nil {
		c.started, c.inflight = map[[32]byte]uint64{}, map[[32]byte]int{}
	}
	c.started[id]++
	c.inflight[id]++
	delete(c.recs, id)
	return c.started[id]
}

// end records the outcome of write n of id: rec committed (nil: deleted,
// or failed).
func (c *recordCache) end(id [32]byte, n uint64, rec *service.Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inflight[id]--; c.inflight[id] == 0 {
		delete(c.inflight, id)
	}
	if rec != nil && c.started[id] == n {
		c.put(id, rec)
	} else {
		delete(c.recs, id)
	}
}

// NewChannels keeps channels in db (typically the settlement journal's,
// Journal.DB, so one data directory holds both), in buckets of
// its own. Closing the store leaves db open.
func NewChannels(db *bbolt.DB) (*Channels, error) {
	return NewChannelsSharing(groupcommit.New(db))
}

// NewChannelsSharing is NewChannels on c's file, its writes sharing
// commits with c's other writers (Journal.Committer: the
// settlement journal's).
func NewChannelsSharing(c *groupcommit.Committer) (*Channels, error) {
	db := c.DB()
	err := db.Update(func(tx *bbolt.Tx) error {
		for _, b := range [][]byte{bucketChannels, bucketClaims} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("channel store: %w", err)
	}
	return &Channels{db: db, commits: c}, nil
}

// NewChannelsLogged is NewChannelsSharing with a write-ahead log in dir
// (segments named name.1, name.2, ...): a write is durable in the log when
// it returns and reaches c's file with the next flush (see store_log.go).
// The log is replayed into the file first. Close the store before the file.
func NewChannelsLogged(c *groupcommit.Committer, dir, name string) (*Channels, error) {
	s, err := NewChannelsSharing(c)
	if err != nil {
		return nil, err
	}
	if err := s.openLog(dir, name); err != nil {
		return nil, fmt.Errorf("channel store: %w", err)
	}
	return s, nil
}

// OpenChannels opens (creating it) a bbolt file of its own at path, for a
// process without a bbolt settlement journal, with its write-ahead log
// beside it (path.wal.1, ...).
func OpenChannels(path string) (*Channels, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("channel store: %w", err)
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("channel store: opening %s: %w", path, err)
	}
	s, err := NewChannelsLogged(groupcommit.New(db), filepath.Dir(path), filepath.Base(path)+".wal")
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	s.own = true
	return s, nil
}

// Close writes what only the log holds to the file and closes the log,
// then the file when the store opened it.
func (s *Channels) Close() error {
	var err error
	if s.logged != nil {
		err = s.logged.close()
	}
	if s.own {
		if cerr := s.db.Close(); cerr != nil {
			return cerr
		}
	}
	return err
}

// Get implements service.Store.
func (s *Channels) Get(_ context.Context, id [32]byte) (*service.Record, error) {
	rec, started, ok := s.cache.get(id)
	if ok {
		return rec, nil
	}
	rec, err := s.read(id)
	if err == nil {
		s.cache.fill(id, rec, started)
	}
	return rec, err
}

// read reads the channel's record from the log's pending writes or the file.
func (s *Channels) read(id [32]byte) (*service.Record, error) {
	if s.logged != nil {
		if rec, found, err := s.pendingRecord(id); found || err != nil {
			return rec, err
		}
	}
	var rec *service.Record
	err := s.db.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket(bucketChannels).Get(id[:])
		if b == nil {
			return nil
		}
		var err error
		rec, err = service.DecodeRecord(b)
		return err
	})
	return rec, err
}

// storedRev is the revision of the stored record, 0 without one: its
// "rev" field alone is read.
func storedRev(b *bbolt.Bucket, key []byte) (uint64, error) {
	v := b.Get(key)
	if v == nil {
		return 0, nil
	}
	r := gjson.GetBytes(v, "rev")
	if r.Type != gjson.Number || !gjson.GetBytes(v, "state").IsObject() {
		return 0, errors.New("channel store: unreadable record")
	}
	return r.Uint(), nil
}

// Put implements service.Store.
func (s *Channels) Put(_ context.Context, rec *service.Record, prev uint64) error {
	next := *rec
	next.Rev = prev + 1
	v, err := service.EncodeRecord(&next) // outside the shared transaction: it holds the writer lock
	if err != nil {
		return err
	}
	id := rec.State.ChannelID
	n := s.cache.begin(id)
	if s.logged != nil {
		if err := s.write(id, prev, v); err != nil {
			s.cache.end(id, n, nil)
			return err
		}
		rec.Rev = next.Rev
		s.cache.end(id, n, next.Clone())
		return nil
	}
	if err := s.update(func(tx *bbolt.Tx) (error, error) {
		b := tx.Bucket(bucketChannels)
		if rev, err := storedRev(b, id[:]); err != nil {
			return nil, err
		} else if rev != prev {
			return service.ErrConflict, nil
		}
		return nil, b.Put(id[:], v)
	}); err != nil {
		s.cache.end(id, n, nil)
		return err
	}
	rec.Rev = next.Rev
	s.cache.end(id, n, next.Clone())
	return nil
}

// update runs fn in a commit shared with the file's other writers: fn's
// refusal or the error that kept its change from the disk.
func (s *Channels) update(fn groupcommit.Func) error {
	refusal, err := s.commits.Update(fn)
	if err != nil {
		return err
	}
	return refusal
}

// Delete implements service.Store.
func (s *Channels) Delete(_ context.Context, id [32]byte, prev uint64) error {
	n := s.cache.begin(id)
	defer s.cache.end(id, n, nil)
	if s.logged != nil {
		return s.write(id, prev, nil)
	}
	return s.update(func(tx *bbolt.Tx) (error, error) {
		b := tx.Bucket(bucketChannels)
		if rev, err := storedRev(b, id[:]); err != nil {
			return nil, err
		} else if rev != prev {
			return service.ErrConflict, nil
		}
		return nil, b.Delete(id[:])
	})
}

// List implements service.Store.
func (s *Channels) List(context.Context) ([]*service.Record, error) {
	// The log's pending versions replace the file's.
	pending := map[[32]byte]*pendingWrite{}
	if s.logged != nil {
		s.logged.mu.Lock()
		for id, w := range s.logged.pending {
			pending[id] = w
		}
		s.logged.mu.Unlock()
	}
	var out []*service.Record
	add := func(v []byte) error {
		r, err := service.DecodeRecord(v)
		if err == nil {
			out = append(out, r)
		}
		return err
	}
	err := s.db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketChannels).ForEach(func(k, v []byte) error {
			if len(k) == 32 {
				if _, ok := pending[[32]byte(k)]; ok {
					return nil
				}
			}
			return add(v)
		})
	})
	if err != nil {
		return nil, err
	}
	for _, w := range pending {
		if !w.deleted {
			if err := add(w.value); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// PutClaim implements service.Store.
func (s *Channels) PutClaim(_ context.Context, c *service.ClaimRecord) error {
	v, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return s.update(func(tx *bbolt.Tx) (error, error) { return nil, tx.Bucket(bucketClaims).Put([]byte(c.Key), v) })
}

// Claims implements service.Store.
func (s *Channels) Claims(context.Context) ([]*service.ClaimRecord, error) {
	var out []*service.ClaimRecord
	err := s.db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketClaims).ForEach(func(_, v []byte) error {
			var c service.ClaimRecord
			if err := json.Unmarshal(v, &c); err != nil {
				return err
			}
			out = append(out, &c)
			return nil
		})
	})
	return out, err
}

// DeleteClaim implements service.Store.
func (s *Channels) DeleteClaim(_ context.Context, key string) error {
	return s.update(func(tx *bbolt.Tx) (error, error) { return nil, tx.Bucket(bucketClaims).Delete([]byte(key)) })
}

// TryLock implements service.Store (in-process: bbolt is one process's file).
func (s *Channels) TryLock(_ context.Context, name string, _ time.Duration) (func(), error) {
	return s.locks.TryLock(name)
}
