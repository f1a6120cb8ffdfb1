package service

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/farebox/farebox/internal/groupcommit"
)

// Buckets of the bbolt store, beside the settlement journal's in the same
// file when the caller shares it.
var (
	bucketChannels = []byte("channels")
	bucketClaims   = []byte("channel_claims")
)

// BoltStore is a Store in a bbolt file: durable (every write is on disk
// when it returns), one process at a time. Locks are in-process. Writes
// from concurrent calls (vouchers on different channels) share commits and
// so fsyncs (groupcommit).
type BoltStore struct {
	db      *bolt.DB
	commits *groupcommit.Committer
	own     bool
	locks   locks
}

// NewBoltStore keeps channels in db (typically the settlement journal's,
// boltjournal.Journal.DB, so one data directory holds both), in buckets of
// its own. Closing the store leaves db open.
func NewBoltStore(db *bolt.DB) (*BoltStore, error) {
	return NewBoltStoreSharing(groupcommit.New(db))
}

// NewBoltStoreSharing is NewBoltStore on c's file, its writes sharing
// commits with c's other writers (boltjournal.Journal.Committer: the
// settlement journal's).
func NewBoltStoreSharing(c *groupcommit.Committer) (*BoltStore, error) {
	db := c.DB()
	err := db.Update(func(tx *bolt.Tx) error {
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
	return &BoltStore{db: db, commits: c}, nil
}

// OpenBoltStore opens (creating it) a bbolt file of its own at path, for a
// process without a bbolt settlement journal.
func OpenBoltStore(path string) (*BoltStore, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("channel store: %w", err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("channel store: opening %s: %w", path, err)
	}
	s, err := NewBoltStore(db)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	s.own = true
	return s, nil
}

// Close closes the file when the store opened it.
func (s *BoltStore) Close() error {
	if s.own {
		return s.db.Close()
	}
	return nil
}

// Get implements Store.
func (s *BoltStore) Get(_ context.Context, id [32]byte) (*Record, error) {
	var rec *Record
	err := s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketChannels).Get(id[:])
		if b == nil {
			return nil
		}
		var err error
		rec, err = decodeRecord(b)
		return err
	})
	return rec, err
}

func storedRev(b *bolt.Bucket, key []byte) (uint64, error) {
	v := b.Get(key)
	if v == nil {
		return 0, nil
	}
	r, err := decodeRecord(v)
	if err != nil {
		return 0, err
	}
	return r.Rev, nil
}

// Put implements Store.
func (s *BoltStore) Put(_ context.Context, rec *Record, prev uint64) error {
	next := *rec
	next.Rev = prev + 1
	v, err := encodeRecord(&next) // outside the shared transaction: it holds the writer lock
	if err != nil {
		return err
	}
	key := rec.State.ChannelID[:]
	if err := s.update(func(tx *bolt.Tx) (error, error) {
		b := tx.Bucket(bucketChannels)
		if rev, err := storedRev(b, key); err != nil {
			return nil, err
		} else if rev != prev {
			return ErrConflict, nil
		}
		return nil, b.Put(key, v)
	}); err != nil {
		return err
	}
	rec.Rev = next.Rev
	return nil
}

// update runs fn in a commit shared with the file's other writers: fn's
// refusal or the error that kept its change from the disk.
func (s *BoltStore) update(fn groupcommit.Func) error {
	refusal, err := s.commits.Update(fn)
	if err != nil {
		return err
	}
	return refusal
}

// Delete implements Store.
func (s *BoltStore) Delete(_ context.Context, id [32]byte, prev uint64) error {
	return s.update(func(tx *bolt.Tx) (error, error) {
		b := tx.Bucket(bucketChannels)
		if rev, err := storedRev(b, id[:]); err != nil {
			return nil, err
		} else if rev != prev {
			return ErrConflict, nil
		}
		return nil, b.Delete(id[:])
	})
}

// List implements Store.
func (s *BoltStore) List(context.Context) ([]*Record, error) {
	var out []*Record
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketChannels).ForEach(func(_, v []byte) error {
			r, err := decodeRecord(v)
			if err != nil {
				return err
			}
			out = append(out, r)
			return nil
		})
	})
	return out, err
}

// PutClaim implements Store.
func (s *BoltStore) PutClaim(_ context.Context, c *ClaimRecord) error {
	v, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return s.update(func(tx *bolt.Tx) (error, error) { return nil, tx.Bucket(bucketClaims).Put([]byte(c.Key), v) })
}

// Claims implements Store.
func (s *BoltStore) Claims(context.Context) ([]*ClaimRecord, error) {
	var out []*ClaimRecord
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketClaims).ForEach(func(_, v []byte) error {
			var c ClaimRecord
			if err := json.Unmarshal(v, &c); err != nil {
				return err
			}
			out = append(out, &c)
			return nil
		})
	})
	return out, err
}

// DeleteClaim implements Store.
func (s *BoltStore) DeleteClaim(_ context.Context, key string) error {
	return s.update(func(tx *bolt.Tx) (error, error) { return nil, tx.Bucket(bucketClaims).Delete([]byte(key)) })
}

// TryLock implements Store (in-process: bbolt is one process's file).
func (s *BoltStore) TryLock(_ context.Context, name string, _ time.Duration) (func(), error) {
	return s.locks.tryLock(name)
}
